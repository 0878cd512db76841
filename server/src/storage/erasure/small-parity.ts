import { randomFillSync } from 'node:crypto';

/**
 * Parity of small blocks on the event loop, bit for bit what the native codec (@ronomon/reed-solomon) computes.
 *
 * Why: the native codec encodes on libuv's thread pool. For a 4 KiB object (two 2 KiB data chunks on a 2+2 set) the
 * parity is a few KiB of XOR, and the hand-off (queueing the job under the pool's lock, a worker woken, the loop woken
 * again) cost more of the event loop than the work: skipping the encode altogether in a scratch build made 4 KiB PUTs
 * at 16 in flight 4-8 % faster (docs/performance.md, eighteenth session). Here the same parity takes a few µs.
 *
 * How it stays identical: the codec is a Cauchy bitmatrix code (Jerasure's "bitmatrix dot"). Each shard is cut into
 * regions of `w` packets of `chunkSize` bytes (`dotChunkSize`, which halves packets of large shards to fit the cache);
 * packet `a` of parity shard `j` is the XOR of the data packets `(i, c)` whose bit is set in row `j * w + a` of the
 * bitmatrix. Rather than re-deriving the matrix from the codec's tables, `probeBitmatrix` asks the codec itself: one
 * encode of data whose only set bytes mark each (shard, packet) pair at its own byte position reads every bit back
 * from the parity. The result is then checked against the codec on random blocks of several sizes, and used only if
 * they all match (`SmallParity.create`).
 */

/** Packet size of one region for shards of `shardSize` bytes (binding.c `dot_chunk_size`; it changes the parity). */
export function dotChunkSize(w: number, k: number, shardSize: number): number {
  let chunk = shardSize / w;
  while (chunk > 64 && chunk % 2 === 0 && (1 + k * w) * chunk > 1048576) chunk /= 2;
  return chunk;
}

/** The codec as this module sees it: the native encode of all parity from all data. */
export type NativeEncode = (data: Buffer, parity: Buffer, chunkLen: number) => Promise<void>;

/** Per parity packet (row `j * w + a`), the data packets (shard, packet) XORed into it. */
type Rows = readonly (readonly (readonly [number, number])[])[];

/**
 * Reads the bitmatrix from one native encode: data shard `i`, packet `c` holds 0xff at byte `i * w + c` and zeros
 * elsewhere, so parity packet `a` of shard `j` holds 0xff at that byte exactly when the bit (j, a, i, c) is set.
 */
export async function probeBitmatrix(k: number, m: number, w: number, encode: NativeEncode): Promise<Rows> {
  // Room for k * w marks per packet; the codec takes shards of a multiple of 8 bytes only.
  const packet = Math.ceil((k * w) / 8) * 8;
  const shard = w * packet;
  if (dotChunkSize(w, k, shard) !== packet) throw new Error(`probe of ${k}+${m} (w ${w}) would not be one region`);
  const data = Buffer.alloc(k * shard);
  const parity = Buffer.alloc(m * shard);
  for (let i = 0; i < k; i++) for (let c = 0; c < w; c++) data[i * shard + c * packet + i * w + c] = 0xff;
  await encode(data, parity, shard);
  const rows: [number, number][][] = [];
  for (let j = 0; j < m; j++) {
    for (let a = 0; a < w; a++) {
      const row: [number, number][] = [];
      for (let i = 0; i < k; i++) {
        for (let c = 0; c < w; c++) {
          const byte = parity[j * shard + a * packet + i * w + c];
          if (byte === 0xff) row.push([i, c]);
          else if (byte !== 0) throw new Error(`probe of ${k}+${m}: parity byte ${byte} is neither 0 nor 0xff`);
        }
      }
      rows.push(row);
    }
  }
  return rows;
}

/** Blocks whose data chunks total more than this go to the native codec (its thread pool pays off). */
export const SMALL_PARITY_MAX = 64 * 1024;

/** Parity of blocks up to SMALL_PARITY_MAX computed synchronously. */
export class SmallParity {
  readonly #k: number;
  readonly #m: number;
  readonly #w: number;
  readonly #rows: Rows;

  private constructor(k: number, m: number, w: number, rows: Rows) {
    this.#k = k;
    this.#m = m;
    this.#w = w;
    this.#rows = rows;
  }

  /**
   * The encoder for `k`+`m` with the codec's word size `w`, once its output matched the codec's on random blocks
   * of several sizes; null when it did not (the codec then does every encode).
   */
  static async create(k: number, m: number, w: number, encode: NativeEncode): Promise<SmallParity | null> {
    const small = new SmallParity(k, m, w, await probeBitmatrix(k, m, w, encode));
    // Sizes as the erasure layer makes them (multiples of 8 per chunk), from the smallest to the largest handled.
    const lengths = [8, 24, 2048, 2056, Math.floor(SMALL_PARITY_MAX / k / 8) * 8];
    for (const len of lengths) {
      const data = randomFillSync(Buffer.alloc(k * len));
      const want = Buffer.alloc(m * len);
      const got = Buffer.alloc(m * len);
      await encode(data, want, len);
      small.encode(data, got, len);
      if (!got.equals(want)) return null;
    }
    return small;
  }

  /**
   * True when `encode` can XOR whole 32-bit words for these buffers: packets a multiple of 4 bytes at 4-byte aligned
   * addresses (the erasure layer's pooled block buffers start at 0). Otherwise the XOR goes byte by byte, about four
   * times slower than the native codec's hand-off for a 12+4 stripe of a 4 KiB object (52 µs): the caller then asks
   * the codec instead.
   */
  fits(data: Buffer, parity: Buffer, chunkLen: number): boolean {
    return data.byteOffset % 4 === 0 && parity.byteOffset % 4 === 0 && dotChunkSize(this.#w, this.#k, chunkLen) % 4 === 0;
  }

  /**
   * Fills `parity` (M chunks of `chunkLen`) from `data` (K chunks), as the codec would: each parity packet is a copy of
   * its row's first data packet XORed with the others, in 32-bit words when the buffers allow it (`fits`), else bytes.
   */
  encode(data: Buffer, parity: Buffer, chunkLen: number): void {
    const w = this.#w;
    const chunk = dotChunkSize(w, this.#k, chunkLen);
    const unit = this.fits(data, parity, chunkLen) ? 4 : 1;
    const src = unit === 4 ? new Int32Array(data.buffer, data.byteOffset, (this.#k * chunkLen) / 4) : data;
    const dst = unit === 4 ? new Int32Array(parity.buffer, parity.byteOffset, (this.#m * chunkLen) / 4) : parity;
    const n = chunk / unit;
    for (let off = 0; off < chunkLen; off += w * chunk) {
      for (let j = 0; j < this.#m; j++) {
        for (let a = 0; a < w; a++) {
          const target = (j * chunkLen + off + a * chunk) / unit;
          let first = true;
          for (const [i, c] of this.#rows[j * w + a]!) {
            const source = (i * chunkLen + off + c * chunk) / unit;
            if (first) {
              dst.set(src.subarray(source, source + n), target);
              first = false;
            } else {
              for (let b = 0; b < n; b++) dst[target + b] = dst[target + b]! ^ src[source + b]!;
            }
          }
        }
      }
    }
  }
}
