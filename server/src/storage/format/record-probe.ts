import { envelopeLayout } from './envelope.js';

/**
 * Reads the write id of an object metadata record (object-meta.ts) without decoding it: the envelope's msgpack
 * map is walked and every value other than the write id is skipped by its length, nothing is materialized. The
 * listing uses it to check that a second drive's record is the same write as the first one's (fully decoded), at
 * a fraction of a full decode's cost (https://github.com/msgpack/msgpack/blob/master/spec.md for the encoding).
 */

const MAGIC = 0x4d435653; // "SVCM" little-endian
const SINGLE_VERSION = 1;
const JOURNAL_VERSION = 2;
const HEADER = 6;

/** Position after the msgpack value at `p`, or -1 when malformed or truncated. */
function skip(b: Uint8Array, v: DataView, p: number, depth: number): number {
  if (p >= b.length || depth > 64) return -1;
  const t = b[p]!;
  if (t <= 0x7f || t >= 0xe0 || t === 0xc0 || t === 0xc2 || t === 0xc3) return p + 1;
  if (t >= 0xa0 && t <= 0xbf) return p + 1 + (t & 0x1f);
  if (t >= 0x80 && t <= 0x9f) {
    const n = (t & 0x0f) * (t <= 0x8f ? 2 : 1);
    return items(b, v, p + 1, n, depth);
  }
  // Length-prefixed values: the prefix (1, 2 or 4 bytes) must be inside the buffer.
  const has1 = p + 2 <= b.length;
  const has2 = p + 3 <= b.length;
  const has4 = p + 5 <= b.length;
  switch (t) {
    case 0xcc: case 0xd0: return p + 2;
    case 0xcd: case 0xd1: return p + 3;
    case 0xca: case 0xce: case 0xd2: return p + 5;
    case 0xcb: case 0xcf: case 0xd3: return p + 9;
    case 0xd4: return p + 3;
    case 0xd5: return p + 4;
    case 0xd6: return p + 6;
    case 0xd7: return p + 10;
    case 0xd8: return p + 18;
    case 0xc4: case 0xd9: return has1 ? p + 2 + b[p + 1]! : -1;
    case 0xc5: case 0xda: return has2 ? p + 3 + v.getUint16(p + 1) : -1;
    case 0xc6: case 0xdb: return has4 ? p + 5 + v.getUint32(p + 1) : -1;
    case 0xc7: return has1 ? p + 3 + b[p + 1]! : -1;
    case 0xc8: return has2 ? p + 4 + v.getUint16(p + 1) : -1;
    case 0xc9: return has4 ? p + 6 + v.getUint32(p + 1) : -1;
    case 0xdc: return has2 ? items(b, v, p + 3, v.getUint16(p + 1), depth) : -1;
    case 0xdd: return has4 ? items(b, v, p + 5, v.getUint32(p + 1), depth) : -1;
    case 0xde: return has2 ? items(b, v, p + 3, 2 * v.getUint16(p + 1), depth) : -1;
    case 0xdf: return has4 ? items(b, v, p + 5, 2 * v.getUint32(p + 1), depth) : -1;
    default: return -1;
  }
}

function items(b: Uint8Array, v: DataView, p: number, n: number, depth: number): number {
  let at = p;
  for (let i = 0; i < n && at >= 0; i++) at = skip(b, v, at, depth + 1);
  return at;
}

/** The string at `p` as [start, end) of its bytes, or null when the value there is not a string. */
function strAt(b: Uint8Array, v: DataView, p: number): [number, number] | null {
  const t = b[p];
  if (t === undefined) return null;
  let start = -1;
  let len = 0;
  if (t >= 0xa0 && t <= 0xbf) {
    start = p + 1;
    len = t & 0x1f;
  } else if (t === 0xd9 && p + 1 < b.length) {
    start = p + 2;
    len = b[p + 1]!;
  } else if (t === 0xda && p + 2 < b.length) {
    start = p + 3;
    len = v.getUint16(p + 1);
  } else if (t === 0xdb && p + 4 < b.length) {
    start = p + 5;
    len = v.getUint32(p + 1);
  }
  return start >= 0 && start + len <= b.length ? [start, start + len] : null;
}

function keyIs(b: Uint8Array, s: [number, number], ascii: string): boolean {
  if (s[1] - s[0] !== ascii.length) return false;
  for (let i = 0; i < ascii.length; i++) if (b[s[0] + i] !== ascii.charCodeAt(i)) return false;
  return true;
}

/**
 * The write id of an object metadata record (what decodeObjectRecord returns as `writeId`), or undefined when
 * the bytes are not a well-formed record of a known version (the caller then decodes it and gets the error).
 */
export function recordWriteId(record: Uint8Array): string | undefined {
  const layout = envelopeLayout(record);
  if (layout === undefined || layout.bodyEnd < HEADER + 1) return undefined;
  // Header and msgpack body (a checked record's CRC is the full decode's business: this compares write ids).
  const bytes = record.subarray(0, layout.bodyEnd);
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (v.getUint32(0, true) !== MAGIC) return undefined;
  const { version } = layout;
  // Version 1 stores the write id as `versionId`, version 2 as `writeId` (object-meta.ts).
  const field = version === SINGLE_VERSION ? 'versionId' : version === JOURNAL_VERSION ? 'writeId' : undefined;
  if (field === undefined) return undefined;
  const t = bytes[HEADER]!;
  let n: number;
  let p: number;
  if (t >= 0x80 && t <= 0x8f) {
    n = t & 0x0f;
    p = HEADER + 1;
  } else if (t === 0xde && bytes.length >= HEADER + 3) {
    n = v.getUint16(HEADER + 1);
    p = HEADER + 3;
  } else if (t === 0xdf && bytes.length >= HEADER + 5) {
    n = v.getUint32(HEADER + 1);
    p = HEADER + 5;
  } else {
    return undefined;
  }
  let found: string | undefined;
  for (let i = 0; i < n; i++) {
    const k = strAt(bytes, v, p);
    if (k === null) return undefined;
    p = k[1];
    if (found === undefined && keyIs(bytes, k, field)) {
      const s = strAt(bytes, v, p);
      if (s === null) return undefined;
      found = Buffer.from(bytes.buffer, bytes.byteOffset + s[0], s[1] - s[0]).toString('utf8');
    }
    p = skip(bytes, v, p, 0);
    if (p < 0) return undefined;
  }
  // The whole map must span the record exactly, as a full decode would require.
  return p === bytes.length ? found : undefined;
}
