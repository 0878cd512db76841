import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/**
 * Object data encryption in independent packages (the idea of MinIO's DARE format): the plaintext is cut into
 * packages of 64 KiB, each sealed with AES-256-GCM under the part's key, its nonce the package's sequence number
 * and its additional data a "final" flag. A range read decrypts only the packages it covers, reordering or
 * dropping packages fails authentication, and a stream cut at a package boundary lacks its final package.
 * Every part of an object has its own key (partKey), so a (key, nonce) pair is never reused.
 */

/** Plaintext bytes per package. */
export const PACKAGE_SIZE = 64 * 1024;
/** GCM tag bytes added to every package. */
export const TAG_SIZE = 16;
const CIPHER_PACKAGE = PACKAGE_SIZE + TAG_SIZE;

/** Stored data that does not decrypt: a wrong key, or data changed on disk. */
export class DecryptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecryptError';
  }
}

/** Bytes stored for `plain` bytes of plaintext (an empty part still has one empty final package). */
export function encryptedSize(plain: number): number {
  return plain + TAG_SIZE * Math.max(1, Math.ceil(plain / PACKAGE_SIZE));
}

/** Plaintext bytes of `cipher` stored bytes. Throws RangeError for a size no encryption produces. */
export function plainSize(cipher: number): number {
  const packages = Math.ceil(cipher / CIPHER_PACKAGE);
  const last = cipher - (packages - 1) * CIPHER_PACKAGE;
  if (packages === 0 || last < TAG_SIZE || (last === TAG_SIZE && packages > 1)) throw new RangeError(`${cipher} is not the size of encrypted data`);
  return cipher - packages * TAG_SIZE;
}

function nonce(seq: number): Buffer {
  const n = Buffer.alloc(12);
  n.writeBigUInt64BE(BigInt(seq), 4);
  return n;
}

const FINAL = Buffer.from([1]);
const NOT_FINAL = Buffer.from([0]);

function seal(key: Buffer, seq: number, final: boolean, data: Buffer): Buffer {
  const c = createCipheriv('aes-256-gcm', key, nonce(seq));
  c.setAAD(final ? FINAL : NOT_FINAL);
  return Buffer.concat([c.update(data), c.final(), c.getAuthTag()]);
}

function open(key: Buffer, seq: number, final: boolean, data: Buffer): Buffer {
  if (data.length < TAG_SIZE) throw new DecryptError(`package ${seq} is truncated`);
  const d = createDecipheriv('aes-256-gcm', key, nonce(seq));
  d.setAAD(final ? FINAL : NOT_FINAL);
  d.setAuthTag(data.subarray(data.length - TAG_SIZE));
  try {
    return Buffer.concat([d.update(data.subarray(0, data.length - TAG_SIZE)), d.final()]);
  } catch {
    throw new DecryptError(`package ${seq} does not authenticate`);
  }
}

/** An encrypting stream and what it saw of the plaintext (valid once it ended). */
export interface EncryptingStream {
  stream: Transform;
  /** MD5 of the plaintext. */
  plainMd5(): Buffer;
  /** Plaintext bytes. */
  plainLength(): number;
}

/**
 * Encrypts one part with `key`. `check` runs on the plaintext's MD5 and length before the final package is
 * emitted: throwing there (e.g. BadDigest) errors the stream, so the engine never commits the object.
 */
export function encryptStream(key: Buffer, check?: (md5: Buffer, length: number) => void): EncryptingStream {
  const md5 = createHash('md5');
  let pending: Buffer[] = [];
  let pendingLength = 0;
  let seq = 0;
  let total = 0;
  let digest: Buffer | undefined;
  const take = (n: number): Buffer => {
    const all = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
    const out = all.subarray(0, n);
    pending = all.length > n ? [all.subarray(n)] : [];
    pendingLength = all.length - n;
    return out;
  };
  const stream = new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) {
      md5.update(chunk);
      total += chunk.length;
      pending.push(chunk);
      pendingLength += chunk.length;
      // A full package is held back until more data shows it is not the last one.
      while (pendingLength > PACKAGE_SIZE) this.push(seal(key, seq++, false, take(PACKAGE_SIZE)));
      cb();
    },
    flush(cb: TransformCallback) {
      digest = md5.digest();
      try {
        check?.(digest, total);
      } catch (err) {
        cb(err as Error);
        return;
      }
      cb(null, seal(key, seq++, true, take(pendingLength)));
    },
  });
  return {
    stream,
    plainMd5: () => digest ?? Buffer.alloc(0),
    plainLength: () => total,
  };
}

/** One encrypted part of an object: its key and its stored size. */
export interface CipherPart {
  key: Buffer;
  cipherSize: number;
}

/** What to read from storage for a plaintext range, and how to decrypt it. */
export interface RangePlan {
  /** Inclusive range of stored bytes covering every needed package. */
  cipherStart: number;
  cipherEnd: number;
  /** Per touched part: which packages (sequence numbers) and how many the part has. */
  segments: Array<{ key: Buffer; firstSeq: number; lastSeq: number; packages: number; lastPackageCipher: number }>;
  /** Plaintext bytes to drop from the first package, then bytes to deliver. */
  skip: number;
  length: number;
}

/** Plans the decryption of plaintext bytes [start, end] (inclusive) of an object made of `parts`. */
export function planRange(parts: readonly CipherPart[], start: number, end: number): RangePlan {
  const segments: RangePlan['segments'] = [];
  let plainOffset = 0;
  let cipherOffset = 0;
  let cipherStart = -1;
  let cipherEnd = -1;
  let skip = 0;
  for (const part of parts) {
    const plain = plainSize(part.cipherSize);
    const packages = Math.max(1, Math.ceil(plain / PACKAGE_SIZE));
    const partEnd = plainOffset + plain - 1;
    if (plain > 0 && partEnd >= start && plainOffset <= end) {
      const from = Math.max(start, plainOffset) - plainOffset;
      const to = Math.min(end, partEnd) - plainOffset;
      const firstSeq = Math.floor(from / PACKAGE_SIZE);
      const lastSeq = Math.floor(to / PACKAGE_SIZE);
      if (cipherStart === -1) {
        cipherStart = cipherOffset + firstSeq * CIPHER_PACKAGE;
        skip = from - firstSeq * PACKAGE_SIZE;
      }
      cipherEnd = Math.min(cipherOffset + (lastSeq + 1) * CIPHER_PACKAGE, cipherOffset + part.cipherSize) - 1;
      segments.push({ key: part.key, firstSeq, lastSeq, packages, lastPackageCipher: part.cipherSize - (packages - 1) * CIPHER_PACKAGE });
    }
    plainOffset += plain;
    cipherOffset += part.cipherSize;
    if (plainOffset > end) break;
  }
  return { cipherStart, cipherEnd, segments, skip, length: cipherStart === -1 ? 0 : end - start + 1 };
}

/** Decrypts the stored bytes `plan` asked for into the requested plaintext. Throws DecryptError. */
export async function* decryptRange(source: AsyncIterable<Buffer>, plan: RangePlan): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]();
  let buf: Buffer = Buffer.alloc(0);
  let skip = plan.skip;
  let left = plan.length;
  const need = async (n: number): Promise<Buffer> => {
    while (buf.length < n) {
      const r = await it.next();
      if (r.done === true) throw new DecryptError('stored data ended early');
      buf = buf.length === 0 ? r.value : Buffer.concat([buf, r.value]);
    }
    const out = buf.subarray(0, n);
    buf = buf.subarray(n);
    return out;
  };
  try {
    for (const seg of plan.segments) {
      for (let seq = seg.firstSeq; seq <= seg.lastSeq && left > 0; seq++) {
        const final = seq === seg.packages - 1;
        let plain = open(seg.key, seq, final, await need(final ? seg.lastPackageCipher : CIPHER_PACKAGE));
        if (skip > 0) {
          plain = plain.subarray(skip);
          skip = 0;
        }
        if (plain.length > left) plain = plain.subarray(0, left);
        left -= plain.length;
        if (plain.length > 0) yield plain;
      }
    }
  } finally {
    await it.return?.();
  }
}
