import { createRequire } from 'node:module';
import { ServerError } from '../../common/index.js';
import { SMALL_PARITY_MAX, SmallParity, type NativeEncode } from './small-parity.js';
import { NativeParity } from './native-parity.js';

/**
 * Reed-Solomon over @ronomon/reed-solomon, a native addon that encodes in libuv's thread pool
 * so the event loop stays free. Shards of one block are equal-sized chunks laid out
 * contiguously: `data` holds K chunks, `parity` holds M chunks.
 */

interface RsModule {
  MAX_K: number;
  MAX_M: number;
  create(k: number, m: number): unknown;
  encode(
    ctx: unknown, sources: number, targets: number, buffer: Buffer, bufferOffset: number, bufferSize: number,
    parity: Buffer, parityOffset: number, paritySize: number, cb: (err?: Error) => void,
  ): void;
}

const RS = createRequire(import.meta.url)('@ronomon/reed-solomon') as RsModule;

/** Largest parity count the codec supports. */
export const MAX_PARITY = RS.MAX_M;
/** Largest data-shard count the codec supports. */
export const MAX_DATA = RS.MAX_K;

/** Erasure parameters outside what the codec supports. */
export class UnsupportedErasureError extends ServerError {
  constructor(message: string) { super('ERR_UNSUPPORTED_ERASURE', message); }
}

const contexts = new Map<string, unknown>();
/** Per `k+m`: the synchronous encoder of small blocks once probed and checked (null: it did not match the codec). */
const smallParity = new Map<string, SmallParity | null | Promise<void>>();
/** The same for blocks over SMALL_PARITY_MAX and the C addon (null: not built, or it did not match the codec). */
const largeParity = new Map<string, NativeParity | null | Promise<void>>();

/** K data + M parity Reed-Solomon codec. M = 0 is a pass-through (single drive). */
export class ErasureCodec {
  readonly k: number;
  readonly m: number;
  readonly #ctx: unknown;
  readonly #id: string;

  constructor(k: number, m: number) {
    if (!Number.isInteger(k) || !Number.isInteger(m) || k < 1 || m < 0) throw new UnsupportedErasureError(`invalid erasure ${k}+${m}`);
    if (k > RS.MAX_K || m > RS.MAX_M) throw new UnsupportedErasureError(`erasure ${k}+${m} exceeds the codec limits (K <= ${RS.MAX_K}, M <= ${RS.MAX_M})`);
    this.k = k;
    this.m = m;
    const id = `${k}+${m}`;
    this.#id = id;
    let ctx = contexts.get(id);
    if (ctx === undefined && m > 0) {
      ctx = RS.create(k, m);
      contexts.set(id, ctx);
    }
    this.#ctx = ctx;
  }

  #run(sources: number, targets: number, data: Buffer, parity: Buffer, chunkLen: number): Promise<void> {
    if (chunkLen === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      RS.encode(this.#ctx, sources, targets, data, 0, this.k * chunkLen, parity, 0, this.m * chunkLen, (err) => {
        if (err) reject(err);
        else resolve();
      });
    });
  }

  /**
   * Fills `parity` (M chunks) from `data` (K chunks) of `chunkLen` bytes each. Small blocks are encoded on the spot,
   * identically (small-parity.ts says why and how), and so are large ones where the C addon runs (native-parity.ts),
   * each once the first encode of this `k+m` of its size has checked that encoder against the codec.
   */
  encode(data: Buffer, parity: Buffer, chunkLen: number): Promise<void> {
    if (this.m === 0) return Promise.resolve();
    const small = this.k * chunkLen <= SMALL_PARITY_MAX;
    const checked = (small ? smallParity : largeParity).get(this.#id);
    if (checked instanceof SmallParity && checked.fits(data, parity, chunkLen)) {
      checked.encode(data, parity, chunkLen);
      return Promise.resolve();
    }
    if (checked instanceof NativeParity && checked.fits(chunkLen)) {
      checked.encode(data, parity, chunkLen);
      return Promise.resolve();
    }
    if (checked === undefined) {
      // The codec's context buffer starts with its word size (binding.c).
      const w = (this.#ctx as Buffer)[0]!;
      const native: NativeEncode = (d, p, len) => this.#native(d, p, len);
      const map: Map<string, unknown> = small ? smallParity : largeParity;
      map.set(this.#id, (small ? SmallParity.create(this.k, this.m, w, native) : NativeParity.create(this.k, this.m, w, native)).then(
        (s) => { map.set(this.#id, s); },
        () => { map.set(this.#id, null); },
      ));
    }
    return this.#native(data, parity, chunkLen);
  }

  #native(data: Buffer, parity: Buffer, chunkLen: number): Promise<void> {
    let sources = 0;
    let targets = 0;
    for (let i = 0; i < this.k; i++) sources |= 1 << i;
    for (let i = this.k; i < this.k + this.m; i++) targets |= 1 << i;
    return this.#run(sources, targets, data, parity, chunkLen);
  }

  /**
   * Rebuilds the chunks listed in `targets` (shard indexes, data 0..K-1, parity K..K+M-1) from the
   * shards marked present (at least K). Present chunks must already be in place in data/parity.
   */
  reconstruct(data: Buffer, parity: Buffer, chunkLen: number, present: readonly boolean[], targets: readonly number[]): Promise<void> {
    if (targets.length === 0) return Promise.resolve();
    let s = 0;
    let count = 0;
    for (let i = 0; i < this.k + this.m; i++) {
      if (present[i] === true && count < this.k) { s |= 1 << i; count++; }
    }
    if (count < this.k) return Promise.reject(new UnsupportedErasureError(`need ${this.k} shards, have ${count}`));
    let t = 0;
    for (const i of targets) t |= 1 << i;
    return this.#run(s, t, data, parity, chunkLen);
  }
}
