import { crc32c } from '@node-rs/crc32';

/**
 * The records of a drive's commit log (commit-log.ts): how they are laid out, read back up to the first damaged one,
 * and which of them a replay applies.
 */

/** A record as replayed: the key's metadata file content. */
export interface LogRecord {
  volume: string;
  key: string;
  meta: Uint8Array;
}

const MAGIC = 0x4c435653;
const HEADER_BYTES = 12;
export const KIND_META = 1;
export const KIND_DROP_KEY = 2;
export const KIND_DROP_VOLUME = 3;

/** Record: magic, body length, CRC32C of the body (all u32 LE); body: kind u8, volume and key (u16 LE length + UTF-8), meta. */
export function encodeRecord(kind: number, volume: string, key: string, meta: Uint8Array | null): Buffer {
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
  buf.writeUInt32LE(crc32c(buf.subarray(HEADER_BYTES)), 8);
  return buf;
}

interface Decoded {
  kind: number;
  volume: string;
  key: string;
  meta: Uint8Array;
}

/** The records of one log file, up to the first one torn or damaged (a write the crash cut short: never answered). */
export function decodeRecords(buf: Buffer): Decoded[] {
  const out: Decoded[] = [];
  let at = 0;
  while (at + HEADER_BYTES <= buf.length) {
    if (buf.readUInt32LE(at) !== MAGIC) break;
    const len = buf.readUInt32LE(at + 4);
    const end = at + HEADER_BYTES + len;
    if (len < 5 || end > buf.length) break;
    const body = buf.subarray(at + HEADER_BYTES, end);
    if (crc32c(body) !== buf.readUInt32LE(at + 8)) break;
    const kind = body[0]!;
    const volLen = body.readUInt16LE(1);
    const keyAt = 3 + volLen;
    if (keyAt + 2 > body.length) break;
    const keyLen = body.readUInt16LE(keyAt);
    const metaAt = keyAt + 2 + keyLen;
    if (metaAt > body.length) break;
    out.push({
      kind, volume: body.toString('utf8', 3, keyAt), key: body.toString('utf8', keyAt + 2, metaAt), meta: body.subarray(metaAt),
    });
    at = end;
  }
  return out;
}

/** What replay applies, in order: per key, its last record, unless a later record dropped the key or its volume. */
export function recordsToReplay(logs: readonly Buffer[]): LogRecord[] {
  const last = new Map<string, LogRecord>();
  for (const buf of logs) {
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
