import { crc32c } from '@node-rs/crc32';

/**
 * The records of a drive's commit log (commit-log.ts): how they are laid out, read back up to the first damaged one,
 * and which of them a replay applies.
 *
 * A log file is reused after its checkpoint, overwritten from its start (commit-log.ts says why), so what follows the
 * last record written in its current use may be records of an earlier use. Each use therefore starts with a header
 * naming it (a per-process epoch and the log's generation), and its records' CRC32C is seeded with the header's own
 * CRC: a record left over from an earlier use fails its check and ends the log there, like a torn one. A header
 * overwritten with zeros (the checkpoint's last step) leaves nothing to replay. Logs written before files were reused
 * (no header, records from offset 0 with unseeded CRCs) are still read, before the others.
 */

/** A record as replayed: the key's metadata file content. */
export interface LogRecord {
  volume: string;
  key: string;
  meta: Uint8Array;
}

const MAGIC = 0x4c435653;
const HEADER_BYTES = 12;
const USE_MAGIC = 0x55435653;
/** A use's header: USE_MAGIC, epoch, generation, CRC32C of those 12 bytes (all u32 LE). */
export const USE_HEADER_BYTES = 16;
export const KIND_META = 1;
export const KIND_DROP_KEY = 2;
export const KIND_DROP_VOLUME = 3;

/** The header starting one use of a log file, and the seed of its records' CRCs. */
export function encodeUseHeader(epoch: number, gen: number): { header: Buffer; seed: number } {
  const header = Buffer.alloc(USE_HEADER_BYTES);
  header.writeUInt32LE(USE_MAGIC, 0);
  header.writeUInt32LE(epoch >>> 0, 4);
  header.writeUInt32LE(gen >>> 0, 8);
  const seed = crc32c(header.subarray(0, 12));
  header.writeUInt32LE(seed, 12);
  return { header, seed };
}

/** A use's generation and seed, or null when `buf` does not start with an intact header (a void or headerless log). */
export function readUseHeader(buf: Buffer): { gen: number; seed: number } | null {
  if (buf.length < USE_HEADER_BYTES || buf.readUInt32LE(0) !== USE_MAGIC) return null;
  const seed = buf.readUInt32LE(12);
  return crc32c(buf.subarray(0, 12)) === seed ? { gen: buf.readUInt32LE(8), seed } : null;
}

/**
 * Record: magic, body length, CRC32C of the body seeded with `seed` (all u32 LE); body: kind u8, volume and key (u16 LE
 * length + UTF-8), meta. Seed 0 is an unseeded CRC (the headerless logs of earlier versions).
 */
export function encodeRecord(kind: number, volume: string, key: string, meta: Uint8Array | null, seed = 0): Buffer {
  // Strings written straight into the record (4 records per 4 KiB PUT: no intermediate buffers).
  const volLen = Buffer.byteLength(volume, 'utf8');
  const keyLen = Buffer.byteLength(key, 'utf8');
  const bodyLen = 1 + 2 + volLen + 2 + keyLen + (meta?.length ?? 0);
  const buf = Buffer.allocUnsafe(HEADER_BYTES + bodyLen);
  let at = HEADER_BYTES;
  buf[at++] = kind;
  at = buf.writeUInt16LE(volLen, at);
  at += buf.write(volume, at, 'utf8');
  at = buf.writeUInt16LE(keyLen, at);
  at += buf.write(key, at, 'utf8');
  if (meta !== null) buf.set(meta, at);
  buf.writeUInt32LE(MAGIC, 0);
  buf.writeUInt32LE(bodyLen, 4);
  buf.writeUInt32LE(crc32c(buf.subarray(HEADER_BYTES), seed), 8);
  return buf;
}

interface Decoded {
  kind: number;
  volume: string;
  key: string;
  meta: Uint8Array;
}

/**
 * The records of one log file's current use, up to the first one torn, damaged or left from an earlier use (a write the
 * crash cut short was never answered). A headerless log is read from its start with unseeded CRCs.
 */
export function decodeRecords(buf: Buffer): Decoded[] {
  const use = readUseHeader(buf);
  if (use !== null) return decodeFrom(buf, USE_HEADER_BYTES, use.seed);
  return buf.length >= 4 && buf.readUInt32LE(0) === MAGIC ? decodeFrom(buf, 0, 0) : [];
}

function decodeFrom(buf: Buffer, start: number, seed: number): Decoded[] {
  const out: Decoded[] = [];
  for (let at = start; ;) {
    const r = recordAt(buf, at, seed);
    if (r === null) return out;
    out.push({ kind: r.kind, volume: r.volume, key: r.key, meta: buf.subarray(at + r.metaAt, at + r.length) });
    at += r.length;
  }
}

/** One record read in place: its fields, its total length, and where its metadata starts (both from the record's start). */
export interface RecordInPlace {
  kind: number;
  volume: string;
  key: string;
  length: number;
  metaAt: number;
}

/** The intact record at `at` of `buf` (CRC seeded with `seed`), or null: torn, damaged, of another use, or none. */
export function recordAt(buf: Buffer, at: number, seed: number): RecordInPlace | null {
  if (at + HEADER_BYTES > buf.length || buf.readUInt32LE(at) !== MAGIC) return null;
  const len = buf.readUInt32LE(at + 4);
  const end = at + HEADER_BYTES + len;
  if (len < 5 || end > buf.length) return null;
  const body = buf.subarray(at + HEADER_BYTES, end);
  if (crc32c(body, seed) !== buf.readUInt32LE(at + 8)) return null;
  const volLen = body.readUInt16LE(1);
  const keyAt = 3 + volLen;
  if (keyAt + 2 > body.length) return null;
  const keyLen = body.readUInt16LE(keyAt);
  const metaAt = keyAt + 2 + keyLen;
  if (metaAt > body.length) return null;
  return {
    kind: body[0]!, volume: body.toString('utf8', 3, keyAt), key: body.toString('utf8', keyAt + 2, metaAt), length: HEADER_BYTES + len,
    metaAt: HEADER_BYTES + metaAt,
  };
}

/**
 * What replay applies, in order: per key, its last record, unless a later record dropped the key or its volume. `logs`
 * in their file names' order; reused files no longer sort by name, so the uses are ordered by their generation, after
 * the headerless logs of an earlier version (which kept the name order). One process's logs share one epoch: a
 * process replays and deletes the logs it finds before it writes any.
 */
export function recordsToReplay(logs: readonly Buffer[]): LogRecord[] {
  const gen = (buf: Buffer): number => readUseHeader(buf)?.gen ?? -1;
  const ordered = logs.map((buf, at) => ({ buf, at, gen: gen(buf) })).sort((a, b) => a.gen - b.gen || a.at - b.at);
  const last = new Map<string, LogRecord>();
  for (const { buf } of ordered) {
    for (const r of decodeRecords(buf)) {
      const id = `${r.volume}\0${r.key}`;
      if (r.kind === KIND_META) {
        // Re-inserted: the map's order is the order of each key's last record.
        last.delete(id);
        last.set(id, { volume: r.volume, key: r.key, meta: r.meta });
      } else if (r.kind === KIND_DROP_KEY) {
        last.delete(id);
      } else if (r.kind === KIND_DROP_VOLUME) {
        for (const [other, rec] of last) if (rec.volume === r.volume) last.delete(other);
      }
    }
  }
  return [...last.values()];
}
