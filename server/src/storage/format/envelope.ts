import { Packr } from 'msgpackr';
import { CorruptRecordError } from './format-errors.js';

/**
 * Binary envelope of every msgpack record the engine persists: a 4-byte ASCII magic, the
 * record version as a little-endian uint16, then the msgpack body (MinIO's xl.meta uses the
 * same idea: "XL2 " + version). Decoders switch on the version (STYLE.md convention 7).
 */

const HEADER = 6;
// Plain maps (no record extension) so that any msgpack reader can inspect a record.
const packr = new Packr({ useRecords: false, moreTypes: false, mapsAsObjects: true });

/** Packs `value` behind `magic` + `version`. */
export function encodeEnvelope(magic: string, version: number, value: unknown): Buffer {
  const body = packr.pack(value);
  const out = Buffer.allocUnsafe(HEADER + body.length);
  out.write(magic, 0, 4, 'latin1');
  out.writeUInt16LE(version, 4);
  body.copy(out, HEADER);
  return out;
}

/** Checks the magic and returns the version and the decoded body. */
export function decodeEnvelope(what: string, magic: string, bytes: Uint8Array): { version: number; body: unknown } {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < HEADER || buf.toString('latin1', 0, 4) !== magic) {
    throw new CorruptRecordError(what, 'bad magic');
  }
  const version = buf.readUInt16LE(4);
  try {
    return { version, body: packr.unpack(buf.subarray(HEADER)) };
  } catch (err) {
    throw new CorruptRecordError(what, 'undecodable body', { cause: err });
  }
}
