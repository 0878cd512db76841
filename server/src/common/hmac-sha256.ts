import { createHash, hash } from 'node:crypto';

/**
 * HMAC-SHA256 (RFC 2104) under a key that signs many short messages: H((K ^ opad) || H((K ^ ipad) || m)), the pads
 * made once per key and each hash one `crypto.hash` call. Why (issue 9): every S3 request computes two such HMACs
 * (the SigV4 signature under the day's signing key, the object's placement under the deployment id), and
 * `createHmac(...).update(...).digest()` builds a native Hmac object, a digest fetch and a result Buffer each time:
 * 4.2 µs here against ~2 µs for the two one-shot hashes (`crypto.hash`, Node ≥ 20.12, hence package.json's engines).
 * With the string to sign's SHA-256 (sha256Hex below) they were ~12 % of a 4 KiB GET's event loop (docs/performance.md,
 * thirty-first session).
 */

/** SHA-256's block size: keys are padded (or first hashed) to it. */
const BLOCK = 64;

/** The inner hash's input, reused: a key's inner pad, then the message (grown for longer messages, up to a bound). */
let scratch = Buffer.allocUnsafe(BLOCK + 1024);
const MAX_SCRATCH = 64 * 1024;

export class HmacSha256 {
  readonly #innerPad = Buffer.allocUnsafe(BLOCK);
  /** The outer pad followed by the inner hash. */
  readonly #outer = Buffer.allocUnsafe(BLOCK + 32);

  constructor(key: Uint8Array | string) {
    let k = typeof key === 'string' ? Buffer.from(key, 'utf8') : Buffer.from(key);
    if (k.length > BLOCK) k = createHash('sha256').update(k).digest();
    for (let i = 0; i < BLOCK; i++) {
      const b = i < k.length ? k[i]! : 0;
      this.#innerPad[i] = b ^ 0x36;
      this.#outer[i] = b ^ 0x5c;
    }
  }

  /** The MAC of `data` (UTF-8) as lower-case hex: a SigV4 signature. */
  hex(data: string): string {
    return hash('sha256', this.#outerInput(data), 'hex');
  }

  /** The MAC of `data` (UTF-8) as 32 latin1 characters, one per byte: its bytes without making a Buffer. */
  latin1(data: string): string {
    return hash('sha256', this.#outerInput(data), 'latin1');
  }

  /** The outer hash's input: the outer pad, then H((K ^ ipad) || data). */
  #outerInput(data: string): Buffer {
    let buf = scratch;
    // UTF-8 takes at most three bytes per UTF-16 unit, so a message that fits this bound is never cut short.
    if (BLOCK + data.length * 3 > buf.length) {
      buf = Buffer.allocUnsafe(BLOCK + Buffer.byteLength(data, 'utf8'));
      if (buf.length <= MAX_SCRATCH) scratch = buf;
    }
    buf.set(this.#innerPad, 0);
    const end = BLOCK + buf.write(data, BLOCK, 'utf8');
    this.#outer.write(hash('sha256', buf.subarray(0, end), 'latin1'), BLOCK, 'latin1');
    return this.#outer;
  }
}

/** Lower-case hex SHA-256 of a string (UTF-8) or bytes, by one `crypto.hash` call. */
export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}
