import { createHmac, timingSafeEqual } from 'node:crypto';
import { HmacSha256, sha256Hex } from '../../common/index.js';
import { SCOPE_TERMINATOR } from './constants.js';

/**
 * Signing primitives of SigV4: kSigning = HMAC(HMAC(HMAC(HMAC("AWS4"+secret, date), region), service), "aws4_request").
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html (signing key)
 */

/**
 * Signing keys already derived, by secret and scope: the key changes once a day per credential, and deriving it
 * (four HMACs) was ~6% of a 4 KiB GET's CPU (issue 9). Bounded: emptied when it holds too many.
 */
const derived = new Map<string, Buffer>();
const MAX_DERIVED = 1024;
/** Each derived key's pads (common/hmac-sha256.ts): a request's signature is then two one-shot hashes. */
const macs = new WeakMap<Uint8Array, HmacSha256>();

/** Derives the scoped signing key for one day, region and service. */
export function deriveSigningKey(secret: string, date: string, region: string, service: string): Buffer {
  const id = `${date}\n${region}\n${service}\n${secret}`;
  const known = derived.get(id);
  if (known !== undefined) return known;
  const kDate = hmac(Buffer.from('AWS4' + secret, 'utf8'), date);
  const kRegion = hmac(kDate, region);
  const kService = hmac(kRegion, service);
  const key = hmac(kService, SCOPE_TERMINATOR);
  if (derived.size >= MAX_DERIVED) derived.clear();
  derived.set(id, key);
  return key;
}

/** HMAC-SHA256 of a UTF-8 string (the key derivation's four steps, once a day per credential). */
function hmac(key: Uint8Array, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/** Lower-case hex HMAC-SHA256: a SigV4 signature. */
export function hmacHex(key: Uint8Array, data: string): string {
  let mac = macs.get(key);
  if (mac === undefined) {
    mac = new HmacSha256(key);
    macs.set(key, mac);
  }
  return mac.hex(data);
}

/** Lower-case hex SHA-256. */
export { sha256Hex };

/** Constant-time comparison of a computed hex signature with the one a client supplied. */
export function signaturesEqual(expectedHex: string, providedHex: string): boolean {
  const a = Buffer.from(expectedHex, 'latin1');
  const b = Buffer.from(providedHex, 'latin1');
  if (a.length !== b.length) {
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}
