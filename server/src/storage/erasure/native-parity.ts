import { randomFillSync } from 'node:crypto';
import { chunkLength } from './layout.js';
import { loadAddon } from '../../common/index.js';
import { dotChunkSize, probeBitmatrix, SMALL_PARITY_MAX, type NativeEncode } from './small-parity.js';

/**
 * Parity of large blocks computed on the calling thread by the C addon server/native/parity.c, bit for bit what the
 * codec (@ronomon/reed-solomon) computes on libuv's thread pool: the addon's comment says why (the pool's hand-offs,
 * and parity landing in another core's cache just before the event loop hashes it). Like small-parity.ts it reads the
 * codec's bitmatrix from the codec itself (`probeBitmatrix`), and it is used for a `k+m` only once its output matched
 * the codec's on random blocks of the sizes the erasure layer makes, among them several regions of halved packets
 * (`create`). Blocks whose packet is not a multiple of 8 bytes (K = 3, 5, 6, 7 with 1 MiB blocks) stay with the codec.
 */

interface ParityAddon {
  encode(rows: Int32Array, w: number, packet: number, data: Uint8Array, parity: Uint8Array, chunkLen: number, k: number, m: number): void;
}

/** The addon, or undefined where it is not built (the codec then does every large encode). */
function addon(): ParityAddon | undefined {
  return loadAddon('parity')?.exports as ParityAddon | undefined;
}

let encodes = 0;

/** Encodes done by the addon in this process (tests). */
export function nativeParityEncodes(): number {
  return encodes;
}

/** Parity of blocks over SMALL_PARITY_MAX computed synchronously by the addon. */
export class NativeParity {
  readonly #addon: ParityAddon;
  readonly #rows: Int32Array;
  readonly #k: number;
  readonly #m: number;
  readonly #w: number;

  private constructor(addon: ParityAddon, k: number, m: number, w: number, rows: readonly (readonly (readonly [number, number])[])[]) {
    this.#addon = addon;
    this.#k = k;
    this.#m = m;
    this.#w = w;
    this.#rows = Int32Array.from(rows.flatMap((row) => [row.length, ...row.flat()]));
  }

  /**
   * The encoder for `k`+`m` with the codec's word size `w`, once its output matched the codec's on random blocks;
   * null when the addon is not built, or did not match (the codec then does every encode).
   */
  static async create(k: number, m: number, w: number, encode: NativeEncode): Promise<NativeParity | null> {
    const found = addon();
    if (found === undefined) return null;
    const parity = new NativeParity(found, k, m, w, await probeBitmatrix(k, m, w, encode));
    // The chunk lengths of 1 MiB and 4 MiB blocks (as the erasure layer cuts them) and the smallest ones handled.
    const lengths = [1 << 20, 4 << 20, 2 * SMALL_PARITY_MAX].map((block) => chunkLength(block, k));
    lengths.push(w * 8, 3 * w * 64);
    let checked = 0;
    for (const len of lengths) {
      if (!parity.fits(len)) continue;
      const data = randomFillSync(Buffer.alloc(k * len));
      const want = Buffer.alloc(m * len);
      const got = Buffer.alloc(m * len, 0x5a);
      await encode(data, want, len);
      parity.encode(data, got, len);
      if (!got.equals(want)) return null;
      checked++;
    }
    return checked > 0 ? parity : null;
  }

  /** True when the addon takes chunks of `chunkLen`: whole regions of packets of a multiple of 8 bytes. */
  fits(chunkLen: number): boolean {
    const packet = dotChunkSize(this.#w, this.#k, chunkLen);
    return Number.isInteger(packet) && packet % 8 === 0 && chunkLen % (this.#w * packet) === 0;
  }

  /** Fills `parity` (M chunks of `chunkLen`) from `data` (K chunks), as the codec would. Only where `fits`. */
  encode(data: Uint8Array, parity: Uint8Array, chunkLen: number): void {
    this.#addon.encode(this.#rows, this.#w, dotChunkSize(this.#w, this.#k, chunkLen), data, parity, chunkLen, this.#k, this.#m);
    encodes++;
  }
}
