import type { ErasureCodec } from './codec.js';
import { blockLength, chunkLength } from './layout.js';

/**
 * Erasure decoding: a block is rebuilt from any K verified chunks. Data shards are read first so
 * that a healthy object needs no Reed-Solomon work at all (the data chunks are streamed as-is);
 * a missing or corrupt chunk (typed error from the provider) marks that shard bad for the rest
 * of the stream and the next shard (parity) is read instead.
 */

/** Supplies verified chunks of one part, per shard index (0-based; data first, then parity). */
export interface ShardProvider {
  /** Verified chunk `block` of shard `shard`; rejects when the shard is missing or corrupt. */
  readChunk(shard: number, block: number, chunkLen: number): Promise<Buffer>;
}

/** Shared state of one decode: shards already known bad, and what to do about them. */
export interface DecodeState {
  codec: ErasureCodec;
  provider: ShardProvider;
  /** bad[s] = true once shard s failed; such shards are not read again. */
  bad: boolean[];
  /** Called once per shard the first time it fails. */
  onBad(shard: number, err: unknown): void;
  /** Error thrown when fewer than K shards can be read. */
  quorumError(): Error;
}

/**
 * Returns the K+M chunks of one block with every data chunk present (reconstructed when needed).
 * With `all`, every shard is read (to find damage) and missing parity chunks are rebuilt too.
 */
export async function fetchBlock(st: DecodeState, block: number, chunkLen: number, all = false): Promise<Buffer[]> {
  const { k, m } = st.codec;
  const n = k + m;
  const shards: (Buffer | null)[] = new Array<Buffer | null>(n).fill(null);
  const order: number[] = [];
  for (let s = 0; s < n; s++) if (st.bad[s] !== true) order.push(s);
  let good = 0;
  let next = 0;
  const readOne = async (s: number): Promise<void> => {
    try {
      shards[s] = await st.provider.readChunk(s, block, chunkLen);
      good++;
    } catch (err) {
      if (st.bad[s] !== true) {
        st.bad[s] = true;
        st.onBad(s, err);
      }
    }
  };
  if (all) {
    await Promise.all(order.map(readOne));
    next = order.length;
  }
  while (good < k) {
    const batch = order.slice(next, next + (k - good));
    next += batch.length;
    if (batch.length === 0) throw st.quorumError();
    await Promise.all(batch.map(readOne));
  }
  const targets: number[] = [];
  for (let s = 0; s < (all ? n : k); s++) if (shards[s] === null) targets.push(s);
  if (targets.length > 0) {
    const data = Buffer.alloc(k * chunkLen);
    const parity = Buffer.alloc(m * chunkLen);
    const present = shards.map((x) => x !== null);
    shards.forEach((x, s) => {
      if (x === null) return;
      x.copy(s < k ? data : parity, (s < k ? s : s - k) * chunkLen);
    });
    await st.codec.reconstruct(data, parity, chunkLen, present, targets);
    for (const t of targets) {
      shards[t] = t < k ? data.subarray(t * chunkLen, (t + 1) * chunkLen) : parity.subarray((t - k) * chunkLen, (t - k + 1) * chunkLen);
    }
  }
  return shards.map((x) => x ?? Buffer.alloc(0));
}

/** Parameters of {@link readPartRange}. */
export interface RangeOptions {
  blockSize: number;
  /** Size of the part. */
  partSize: number;
  /** First byte (within the part) and number of bytes to return. */
  offset: number;
  length: number;
}

/** Blocks read ahead of the consumer: several reads in flight per shard file hide disk latency (bounded memory: READ_AHEAD blocks). */
const READ_AHEAD = 4;

/**
 * Yields the bytes [offset, offset+length) of one erasure-coded part, reading only the blocks
 * that overlap the range, up to READ_AHEAD blocks ahead of the consumer. Output buffers are views
 * of the chunks read (no concatenation).
 */
export async function* readPartRange(st: DecodeState, r: RangeOptions): AsyncGenerator<Buffer> {
  if (r.length <= 0) return;
  const { k } = st.codec;
  const first = Math.floor(r.offset / r.blockSize);
  const last = Math.floor((r.offset + r.length - 1) / r.blockSize);
  const fetch = (b: number): Promise<Buffer[]> => {
    const p = fetchBlock(st, b, chunkLength(blockLength(r.partSize, r.blockSize, b), k));
    p.catch(() => undefined);
    return p;
  };
  const ahead: Promise<Buffer[]>[] = [];
  let next = first;
  try {
    for (let b = first; b <= last; b++) {
      while (next <= last && ahead.length < READ_AHEAD) ahead.push(fetch(next++));
      const shards = await ahead.shift()!;
      const blockStart = b * r.blockSize;
      const lo = Math.max(r.offset, blockStart) - blockStart;
      const hi = Math.min(r.offset + r.length, blockStart + blockLength(r.partSize, r.blockSize, b)) - blockStart;
      const chunkLen = shards[0]!.length;
      for (let s = 0; s < k && s * chunkLen < hi; s++) {
        const cs = s * chunkLen;
        const a = Math.max(lo, cs);
        const z = Math.min(hi, cs + chunkLen);
        if (z > a) yield shards[s]!.subarray(a - cs, z - cs);
      }
    }
  } finally {
    // A consumer that stops early (client gone) must not leave reads running on readers about to close.
    await Promise.allSettled(ahead);
  }
}
