/**
 * Reusable buffers for the data path: shard reads that stream to a client (GET) and the erasure encoder's block and
 * parity buffers (PUT, erasure/encode.ts). A 64 MiB GET reads ~130 chunks of ~512 KiB; read into fresh buffers,
 * every GiB served allocates a GiB outside V8's heap, which V8 answers with a full mark-compact every ~64 MiB of such
 * memory (~20 per GiB at 5–15 ms each) and the kernel with page faults on every new mapping. Measured with the
 * server's CPU per 64 MiB GET (docs/performance.md): ~1.5 s of CPU per GiB with fresh buffers, about half of it with
 * reused ones. A 1 MiB PUT allocated two 1 MiB blocks the same way (twelfth session).
 *
 * A buffer is lent by `take` and comes back by `recycle` only from a holder that knows no reference to its bytes
 * remains (the GET body stream, once the response socket has taken every byte, engine/recycling-stream.ts; the
 * encoder once every shard writer took its bytes). A lent buffer that is never recycled is ordinary garbage, so
 * every other user stays correct by doing nothing.
 */

import { pageAlignedArrayBuffer, pageAlignedSharedBuffer } from './direct-align.js';

const KiB = 1024;

/** Capacities are rounded up to this step, so that the short last chunk of an object shares a class with others. */
const CLASS_STEP = 64 * KiB;

/** Reads smaller than this are cheap to allocate and are not pooled. */
const MIN_POOLED = 64 * KiB;

/** Reads larger than this (unusual block sizes) are not pooled: a few such buffers would hold the whole budget. */
const MAX_POOLED = 4 * 1024 * KiB;

/** Free buffers kept for reuse, in bytes of capacity (RSS that stays after a burst of large GETs). */
const FREE_BYTES_MAX = 32 * 1024 * KiB;

/** A pooled allocation: its capacity class and whether it is lent out (recycling twice must not free it twice). */
interface Lent {
  capacity: number;
  out: boolean;
}

export class BufferPool {
  readonly #free = new Map<number, ArrayBufferLike[]>();
  readonly #owned = new WeakMap<ArrayBufferLike, Lent>();
  readonly #freeBytesMax: number;
  readonly #allocate: (capacity: number) => ArrayBufferLike;
  #freeBytes = 0;

  /**
   * `pageAligned`: buffers that O_DIRECT reads go into (direct-read.ts), allocated page-aligned (direct-align.ts: a third
   * of the speed from memory aligned to the logical block only); other pools take ordinary memory. `shared`: in
   * SharedArrayBuffers, which another thread can read in place (shard reads: bitrot/hash-offload.ts).
   */
  constructor(freeBytesMax = FREE_BYTES_MAX, opts: { pageAligned?: boolean; shared?: boolean } = {}) {
    this.#freeBytesMax = freeBytesMax;
    if (opts.pageAligned === true) this.#allocate = opts.shared === true ? pageAlignedSharedBuffer : pageAlignedArrayBuffer;
    else this.#allocate = opts.shared === true ? (n) => new SharedArrayBuffer(n) : (n) => new ArrayBuffer(n);
  }

  /** Bytes of capacity held for reuse now. */
  get freeBytes(): number {
    return this.#freeBytes;
  }

  /** A buffer of exactly `length` bytes (contents undefined), reused when the pool holds one of its class. */
  take(length: number): Buffer {
    if (length < MIN_POOLED || length > MAX_POOLED) return Buffer.allocUnsafe(length);
    const capacity = Math.ceil(length / CLASS_STEP) * CLASS_STEP;
    let ab = this.#free.get(capacity)?.pop();
    if (ab === undefined) {
      ab = this.#allocate(capacity);
      this.#owned.set(ab, { capacity, out: true });
    } else {
      this.#freeBytes -= capacity;
      this.#owned.get(ab)!.out = true;
    }
    return Buffer.from(ab, 0, length);
  }

  /**
   * The ArrayBuffer behind `view`, given away (to be transferred to a worker, which detaches it here): the pool forgets
   * it. Null when `view` is not a whole buffer this pool lent (memory the caller must not transfer).
   */
  giveAway(view: Uint8Array): ArrayBuffer | null {
    const ab = view.buffer;
    const lent = this.#owned.get(ab);
    if (lent === undefined || !lent.out || view.byteOffset !== 0 || !(ab instanceof ArrayBuffer)) return null;
    this.#owned.delete(ab);
    return ab;
  }

  /** Takes back, as free, an ArrayBuffer `giveAway` handed out that came back from its transfer (a new object). */
  takeBack(ab: ArrayBuffer): void {
    const capacity = ab.byteLength;
    if (capacity % CLASS_STEP !== 0 || capacity < MIN_POOLED || capacity > MAX_POOLED) return;
    this.#owned.set(ab, { capacity, out: true });
    this.recycle(new Uint8Array(ab, 0, 0));
  }

  /**
   * Hands back the buffer behind `view` (any view of a buffer `take` returned). The caller guarantees that nothing
   * reads or writes its bytes any more. Views of other memory, and buffers already handed back, are ignored.
   */
  recycle(view: Uint8Array): void {
    const ab = view.buffer;
    const lent = this.#owned.get(ab);
    if (lent === undefined || !lent.out) return;
    lent.out = false;
    if (this.#freeBytes + lent.capacity > this.#freeBytesMax) {
      // Over budget: forget it, so that it is garbage like any unpooled buffer.
      this.#owned.delete(ab);
      return;
    }
    let list = this.#free.get(lent.capacity);
    if (list === undefined) this.#free.set(lent.capacity, (list = []));
    list.push(ab);
    this.#freeBytes += lent.capacity;
  }
}

/** The process's pool for shard reads (shared: their bitrot hash is computed by a worker, bitrot/hash-offload.ts). */
export const readBuffers = new BufferPool(FREE_BYTES_MAX, { pageAligned: true, shared: true });
