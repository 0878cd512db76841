import { InvalidObjectNameError } from './storage-errors.js';

/** S3 object keys are at most 1024 bytes of UTF-8 (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-keys.html). */
export const MAX_KEY_BYTES = 1024;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Rejects keys the store cannot keep literally: empty, longer than 1024 UTF-8 bytes, containing
 * NUL, or not valid Unicode (a lone surrogate has no UTF-8 encoding). Everything else — `..`,
 * `.`, `a//b`, long segments, internal file names — is stored as is (drive/object-path.ts).
 */
export function checkObjectName(key: string): void {
  if (key.length === 0) throw new InvalidObjectNameError('object key must not be empty');
  if (key.includes('\0')) throw new InvalidObjectNameError('object key must not contain NUL');
  if (LONE_SURROGATE.test(key)) throw new InvalidObjectNameError('object key is not valid UTF-8');
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) throw new InvalidObjectNameError(`object key is longer than ${MAX_KEY_BYTES} bytes`);
}

/**
 * Compares two strings in UTF-8 byte order (S3 listing order) without encoding them: UTF-16
 * code-unit order differs from UTF-8 order only between surrogates (U+10000..) and U+E000..U+FFFF.
 */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** 32-bit FNV-1a of a string's UTF-16 code units: a cheap, stable spread of keys (scanner cycles, listing drives). */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
