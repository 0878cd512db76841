import { createHash, type Hash } from 'node:crypto';
import { crc32, crc32c } from '@node-rs/crc32';

/**
 * S3 additional checksums (x-amz-checksum-*), shared by auth/sigv4 (verifies them while a body streams)
 * and http/s3 (multipart composite checksums).
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html
 */

/** Checksum algorithms of the S3 additional-checksums feature; same union as storage/engine/object-layer.ts. */
export type ChecksumAlgorithm = 'CRC32' | 'CRC32C' | 'CRC64NVME' | 'SHA1' | 'SHA256';

/** Every supported algorithm, in the order AWS lists them. */
export const CHECKSUM_ALGORITHMS: readonly ChecksumAlgorithm[] = Object.freeze([
  'CRC32', 'CRC32C', 'CRC64NVME', 'SHA1', 'SHA256',
]);

const DIGEST_BYTES: Readonly<Record<ChecksumAlgorithm, number>> = {
  CRC32: 4, CRC32C: 4, CRC64NVME: 8, SHA1: 20, SHA256: 32,
};

/** An incremental hasher; `digest*` may be called once, after the last `update`. */
export interface ChecksumHasher {
  readonly algorithm: ChecksumAlgorithm;
  update(data: Uint8Array): void;
  /** Raw digest; CRCs as big-endian bytes, the way AWS serializes them before base64. */
  digest(): Buffer;
  /** Base64 of `digest()`, the wire form of x-amz-checksum-* values. */
  digestBase64(): string;
}

/** Number of raw bytes of a digest of `alg` (4 for CRC32/CRC32C, 8 for CRC64NVME, 20 for SHA1, 32 for SHA256). */
export function checksumByteLength(alg: ChecksumAlgorithm): number {
  return DIGEST_BYTES[alg];
}

/** Starts an incremental checksum of `alg`. */
export function createChecksum(alg: ChecksumAlgorithm): ChecksumHasher {
  switch (alg) {
    case 'CRC32': return new Crc32Hasher(alg, crc32);
    case 'CRC32C': return new Crc32Hasher(alg, crc32c);
    case 'CRC64NVME': return new Crc64NvmeHasher();
    case 'SHA1': return new NodeHasher(alg, createHash('sha1'));
    case 'SHA256': return new NodeHasher(alg, createHash('sha256'));
    default: return alg satisfies never;
  }
}

/** Base64 checksum of a whole buffer. */
export function computeChecksum(alg: ChecksumAlgorithm, data: Uint8Array): string {
  const h = createChecksum(alg);
  h.update(data);
  return h.digestBase64();
}

/** `CRC32` → `x-amz-checksum-crc32` (request/response header and trailer name). */
export function checksumHeaderName(alg: ChecksumAlgorithm): string {
  return `x-amz-checksum-${alg.toLowerCase()}`;
}

/** Case-insensitive algorithm name (`crc32`, `CRC32C`...) → algorithm, or undefined when unknown. */
export function parseChecksumAlgorithm(name: string): ChecksumAlgorithm | undefined {
  const upper = name.trim().toUpperCase();
  return (CHECKSUM_ALGORITHMS as readonly string[]).includes(upper) ? (upper as ChecksumAlgorithm) : undefined;
}

/** `x-amz-checksum-crc32` (any case) → `CRC32`; undefined for other names, including x-amz-checksum-type. */
export function checksumAlgorithmFromHeaderName(headerName: string): ChecksumAlgorithm | undefined {
  const lower = headerName.trim().toLowerCase();
  const prefix = 'x-amz-checksum-';
  if (!lower.startsWith(prefix)) return undefined;
  return parseChecksumAlgorithm(lower.slice(prefix.length));
}

/** Decodes a base64 checksum value, or undefined when it is not canonical base64 of the right length for `alg`. */
export function decodeChecksumValue(alg: ChecksumAlgorithm, base64: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 !== 0) return undefined;
  const raw = Buffer.from(base64, 'base64');
  if (raw.length !== DIGEST_BYTES[alg] || raw.toString('base64') !== base64) return undefined;
  return raw;
}

/**
 * Multipart COMPOSITE checksum: the checksum of the concatenated raw part checksums, suffixed `-<part count>`.
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html#large-object-checksums
 * Throws RangeError when a part value is not a valid base64 checksum of `alg` or there are no parts.
 */
export function combineCompositeChecksum(alg: ChecksumAlgorithm, partChecksumsBase64: readonly string[]): string {
  if (partChecksumsBase64.length === 0) throw new RangeError('a composite checksum needs at least one part');
  const h = createChecksum(alg);
  partChecksumsBase64.forEach((value, i) => {
    const raw = decodeChecksumValue(alg, value);
    if (raw === undefined) throw new RangeError(`part ${i + 1}: "${value}" is not a valid ${alg} checksum`);
    h.update(raw);
  });
  return `${h.digestBase64()}-${partChecksumsBase64.length}`;
}

/** Algorithms whose multipart uploads may use the FULL_OBJECT checksum type (AWS: the CRCs only). */
export type FullObjectChecksumAlgorithm = Extract<ChecksumAlgorithm, 'CRC32' | 'CRC32C' | 'CRC64NVME'>;

/** Reflected generator polynomials and widths of the CRCs, for CRC combination. */
const CRC_PARAMS: Readonly<Record<FullObjectChecksumAlgorithm, { width: bigint; poly: bigint }>> = {
  CRC32: { width: 32n, poly: 0xedb88320n },
  CRC32C: { width: 32n, poly: 0x82f63b78n },
  CRC64NVME: { width: 64n, poly: 0x9a6c9329ac4bc9b5n },
};

/**
 * Multipart FULL_OBJECT checksum: the CRC of the whole object, computed from the parts' CRCs and sizes
 * (CRC linearity, as zlib's crc32_combine), so the object never has to be re-read. No `-N` suffix.
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html#full-object-checksums
 * Throws RangeError for an invalid part value or size, or no parts.
 */
export function combineFullObjectChecksum(
  alg: FullObjectChecksumAlgorithm, parts: readonly { checksum: string; size: number }[],
): string {
  if (parts.length === 0) throw new RangeError('a full-object checksum needs at least one part');
  const { width, poly } = CRC_PARAMS[alg];
  const bytes = Number(width / 8n);
  const top = 1n << (width - 1n);
  // Product of two polynomials modulo the generator, both in reflected bit order (x^0 is the top bit).
  const mulmod = (a: bigint, b: bigint): bigint => {
    let p = 0n;
    for (let m = top; m > 0n; m >>= 1n) {
      if (a & m) p ^= b;
      b = b & 1n ? (b >> 1n) ^ poly : b >> 1n;
    }
    return p;
  };
  // x^(8 * n) modulo the generator, by repeated squaring.
  const shiftBytes = (n: number): bigint => {
    let result = top;
    let square = mulmod(top >> 1n, top >> 1n);
    square = mulmod(square, square);
    square = mulmod(square, square);
    for (let k = BigInt(n); k > 0n; k >>= 1n) {
      if (k & 1n) result = mulmod(square, result);
      square = mulmod(square, square);
    }
    return result;
  };
  let crc = 0n;
  parts.forEach((part, i) => {
    const raw = decodeChecksumValue(alg, part.checksum);
    if (raw === undefined) throw new RangeError(`part ${i + 1}: "${part.checksum}" is not a valid ${alg} checksum`);
    if (!Number.isSafeInteger(part.size) || part.size < 0) throw new RangeError(`part ${i + 1}: invalid size ${part.size}`);
    const value = BigInt('0x' + raw.toString('hex'));
    crc = i === 0 ? value : mulmod(shiftBytes(part.size), crc) ^ value;
  });
  return Buffer.from(crc.toString(16).padStart(bytes * 2, '0'), 'hex').toString('base64');
}

class NodeHasher implements ChecksumHasher {
  readonly algorithm: ChecksumAlgorithm;
  readonly #hash: Hash;
  constructor(algorithm: ChecksumAlgorithm, hash: Hash) {
    this.algorithm = algorithm;
    this.#hash = hash;
  }
  update(data: Uint8Array): void { this.#hash.update(data); }
  digest(): Buffer { return this.#hash.digest(); }
  digestBase64(): string { return this.digest().toString('base64'); }
}

class Crc32Hasher implements ChecksumHasher {
  readonly algorithm: ChecksumAlgorithm;
  readonly #fn: (input: Uint8Array, initial?: number) => number;
  #state = 0;
  constructor(algorithm: ChecksumAlgorithm, fn: (input: Uint8Array, initial?: number) => number) {
    this.algorithm = algorithm;
    this.#fn = fn;
  }
  update(data: Uint8Array): void {
    if (data.length > 0) this.#state = this.#fn(data, this.#state);
  }
  digest(): Buffer {
    const out = Buffer.alloc(4);
    out.writeUInt32BE(this.#state >>> 0);
    return out;
  }
  digestBase64(): string { return this.digest().toString('base64'); }
}

/**
 * CRC-64/NVME (reflected, poly 0xad93d23594c935a9, init and xorout all ones), slice-by-8 on 32-bit halves.
 * Implemented here because the AWS package only offers an async digest.
 */
const CRC64_TABLES = buildCrc64Tables();

function buildCrc64Tables(): { lo: Uint32Array[]; hi: Uint32Array[] } {
  const reflectedPoly = 0x9a6c9329ac4bc9b5n;
  const base: bigint[] = [];
  for (let i = 0n; i < 256n; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1n ? (c >> 1n) ^ reflectedPoly : c >> 1n;
    base.push(c);
  }
  const tables: bigint[][] = [base];
  for (let t = 1; t < 8; t++) {
    const prev = tables[t - 1]!;
    tables.push(prev.map((v) => (v >> 8n) ^ base[Number(v & 0xffn)]!));
  }
  return {
    lo: tables.map((tb) => Uint32Array.from(tb, (v) => Number(v & 0xffffffffn))),
    hi: tables.map((tb) => Uint32Array.from(tb, (v) => Number(v >> 32n))),
  };
}

class Crc64NvmeHasher implements ChecksumHasher {
  readonly algorithm: ChecksumAlgorithm = 'CRC64NVME';
  #lo = 0xffffffff;
  #hi = 0xffffffff;

  update(data: Uint8Array): void {
    const [L0, L1, L2, L3, L4, L5, L6, L7] = CRC64_TABLES.lo as [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];
    const [H0, H1, H2, H3, H4, H5, H6, H7] = CRC64_TABLES.hi as [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];
    let lo = this.#lo;
    let hi = this.#hi;
    let i = 0;
    const end8 = data.length - (data.length % 8);
    for (; i < end8; i += 8) {
      const a = lo ^ (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24));
      const b = hi ^ (data[i + 4]! | (data[i + 5]! << 8) | (data[i + 6]! << 16) | (data[i + 7]! << 24));
      const i0 = a & 0xff, i1 = (a >>> 8) & 0xff, i2 = (a >>> 16) & 0xff, i3 = a >>> 24;
      const i4 = b & 0xff, i5 = (b >>> 8) & 0xff, i6 = (b >>> 16) & 0xff, i7 = b >>> 24;
      lo = L7[i0]! ^ L6[i1]! ^ L5[i2]! ^ L4[i3]! ^ L3[i4]! ^ L2[i5]! ^ L1[i6]! ^ L0[i7]!;
      hi = H7[i0]! ^ H6[i1]! ^ H5[i2]! ^ H4[i3]! ^ H3[i4]! ^ H2[i5]! ^ H1[i6]! ^ H0[i7]!;
    }
    for (; i < data.length; i++) {
      const idx = (lo ^ data[i]!) & 0xff;
      lo = ((lo >>> 8) | (hi << 24)) ^ L0[idx]!;
      hi = (hi >>> 8) ^ H0[idx]!;
    }
    this.#lo = lo >>> 0;
    this.#hi = hi >>> 0;
  }

  digest(): Buffer {
    const out = Buffer.alloc(8);
    out.writeUInt32BE((this.#hi ^ 0xffffffff) >>> 0, 0);
    out.writeUInt32BE((this.#lo ^ 0xffffffff) >>> 0, 4);
    return out;
  }

  digestBase64(): string { return this.digest().toString('base64'); }
}
