import { crc32c } from '@node-rs/crc32';
import { Packr } from 'msgpackr';
import { CorruptRecordError } from './format-errors.js';

/**
 * Binary envelope of every msgpack record the engine persists: a 4-byte ASCII magic, the
 * record version as a little-endian uint16, then the msgpack body (MinIO's xl.meta uses the
 * same idea: "XL2 " + version). Decoders switch on the version (STYLE.md convention 7).
 *
 * Records written since the seventh performance session end with a CRC32C (little-endian) of everything before
 * it, and say so with the version's top bit (CHECKED). Why: a record's shared fields (ETag, checksums, size, user
 * metadata) had no integrity check of their own — the inline data has its bitrot hash, the rest had none — so a
 * bit flip in, say, the stored CRC32 of one drive's record was served to clients when that drive was asked first
 * (the fault run found it: seed 2312676904). A record failing its CRC is a CorruptRecordError like any undecodable
 * one: the engine reads the other drives and heals it. MinIO's xl.meta carries a checksum of its metadata for the
 * same reason. Records without the bit (earlier releases) decode as before; earlier releases cannot read the new
 * ones (no downgrade across this change).
 */

const HEADER = 6;
/** Version bit: the body is followed by a CRC32C of magic, version and body. */
const CHECKED = 0x8000;
const TRAILER = 4;
// Plain maps (no record extension) so that any msgpack reader can inspect a record.
const packr = new Packr({ useRecords: false, moreTypes: false, mapsAsObjects: true });

/** Packs `value` behind `magic` + `version`, followed by the record's CRC32C. */
export function encodeEnvelope(magic: string, version: number, value: unknown): Buffer {
  const body = packr.pack(value);
  const end = HEADER + body.length;
  const out = Buffer.allocUnsafe(end + TRAILER);
  out.write(magic, 0, 4, 'latin1');
  out.writeUInt16LE(version | CHECKED, 4);
  body.copy(out, HEADER);
  out.writeUInt32LE(crc32c(out.subarray(0, end)) >>> 0, end);
  return out;
}

/**
 * The record version of an envelope without decoding it, and where its msgpack body ends (before the CRC of a
 * checked record); undefined when too short to tell. The CRC itself is not verified here.
 */
export function envelopeLayout(bytes: Uint8Array): { version: number; bodyEnd: number } | undefined {
  if (bytes.length < HEADER) return undefined;
  const raw = bytes[4]! | (bytes[5]! << 8);
  if ((raw & CHECKED) === 0) return { version: raw, bodyEnd: bytes.length };
  if (bytes.length < HEADER + TRAILER) return undefined;
  return { version: raw & ~CHECKED, bodyEnd: bytes.length - TRAILER };
}

/** Checks the magic (and the CRC of a checked record) and returns the version and the decoded body. */
export function decodeEnvelope(what: string, magic: string, bytes: Uint8Array): { version: number; body: unknown } {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < HEADER || buf.toString('latin1', 0, 4) !== magic) {
    throw new CorruptRecordError(what, 'bad magic');
  }
  const layout = envelopeLayout(buf);
  if (layout === undefined) throw new CorruptRecordError(what, 'truncated');
  const { version, bodyEnd } = layout;
  if (bodyEnd < buf.length && (crc32c(buf.subarray(0, bodyEnd)) >>> 0) !== buf.readUInt32LE(bodyEnd)) {
    throw new CorruptRecordError(what, 'checksum mismatch (damaged record)');
  }
  try {
    return { version, body: packr.unpack(buf.subarray(HEADER, bodyEnd)) };
  } catch (err) {
    throw new CorruptRecordError(what, 'undecodable body', { cause: err });
  }
}
