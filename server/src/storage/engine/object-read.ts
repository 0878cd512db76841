import { Readable } from 'node:stream';
import { BitrotReader, verifyFramedChunk, type BitrotReaderOptions } from '../bitrot/index.js';
import type { ShardReader } from '../drive/index.js';
import { FileNotFoundError } from '../drive/index.js';
import { ErasureCodec, blockCount, blockLength, chunkLength, readPartRange, shardDataLength, shardSize } from '../erasure/index.js';
import type { DecodeState, ShardProvider } from '../erasure/index.js';
import type { ObjectMeta } from '../format/index.js';
import type { ErasureSet, QuorumMeta } from './erasure-set.js';
import { toObjectInfo } from './erasure-set.js';
import type { ByteRange, OpenObject, ReadOptions } from './object-layer.js';
import { RecyclingReadable } from './recycling-stream.js';
import { shardDrives } from './object-write.js';
import { InsufficientReadQuorumError } from './storage-errors.js';
import { selectVersion } from './versions.js';

/**
 * GET on one erasure set: metadata at read quorum once, then any range is streamed block by
 * block from any K drives (object-read reads data shards first and decodes only when one is
 * missing or fails its bitrot check). Damage seen while reading queues a deep heal (MRF).
 */

/**
 * Objects from this size on have the bitrot hash of their chunks computed by the hash worker on a GET
 * (bitrot/hash-offload.ts): their GETs stream many blocks and the event loop bounds them (64 MiB at 4 in flight
 * +9–15 %), while a 1 MiB GET at 1 in flight lost ~15 % to the hand-off's wake-ups (docs/performance.md, thirty-third
 * session). Eight blocks of the default 1 MiB.
 */
export const OFFLOAD_MIN_OBJECT_BYTES = 8 * 1024 * 1024;

/** Reads verified chunks of one part from the drives that agree on the object version. */
class PartShards implements ShardProvider {
  readonly #set: ErasureSet;
  readonly #bucket: string;
  readonly #q: QuorumMeta;
  readonly #part: number;
  readonly #byShard: number[];
  readonly #stride: number;
  readonly #readers = new Map<number, Promise<BitrotReader>>();
  readonly #opened: Promise<ShardReader>[] = [];
  readonly #opts: BitrotReaderOptions;

  constructor(set: ErasureSet, bucket: string, q: QuorumMeta, part: number, pooled: boolean) {
    this.#set = set;
    this.#bucket = bucket;
    this.#q = q;
    this.#part = part;
    this.#byShard = shardDrives(q.meta.erasure.distribution);
    const { blockSize, k } = q.meta.erasure;
    this.#stride = shardSize(blockSize, k);
    // A GET's (pooled) reads of a large object have their chunks' bitrot hash computed off the event loop.
    this.#opts = { pooled, offload: pooled && q.meta.size >= OFFLOAD_MIN_OBJECT_BYTES };
    const meta = q.meta.parts.find((p) => p.number === part);
    if (meta?.bitrot === 'trailing') {
      this.#opts.trailing = { dataSize: shardDataLength(meta.size, blockSize, k), chunks: blockCount(meta.size, blockSize) };
    }
  }

  #reader(i: number): Promise<BitrotReader> {
    let r = this.#readers.get(i);
    if (r === undefined) {
      const slot = this.#set.drives[i]!;
      const { meta } = this.#q;
      const opened = slot.drive.openShardReader(this.#bucket, meta.key, meta.dataDir!, `part.${this.#part}`);
      opened.catch(() => undefined);
      this.#opened.push(opened);
      r = opened.then((sr) => new BitrotReader(sr, this.#set.hasher, this.#stride, `${slot.drive.endpoint} ${meta.key} part ${this.#part}`, this.#opts));
      this.#readers.set(i, r);
    }
    return r;
  }

  async readChunk(shard: number, block: number, chunkLen: number): Promise<Buffer> {
    const i = this.#byShard[shard]!;
    const slot = this.#set.drives[i]!;
    let own = this.#q.perDrive[i];
    if ((own === null || own === undefined) && this.#q.fetchDrive !== undefined && slot.online) {
      // Metadata read from the data-shard drives only (readObjectMeta): this drive is asked now that its shard is needed.
      own = await this.#q.fetchDrive(i).catch(() => null);
      this.#q.perDrive[i] = own;
    }
    if (this.#q.meta.dataDir === null) {
      if (block !== 0) throw new FileNotFoundError(slot.drive.endpoint, this.#q.meta.key);
      return inlineShard(this.#set, this.#q, i, chunkLen);
    }
    if (own === null || own === undefined || !slot.online) throw new FileNotFoundError(slot.drive.endpoint, this.#q.meta.key);
    return (await this.#reader(i)).readChunk(block, chunkLen);
  }

  async close(): Promise<void> {
    await Promise.all(this.#opened.map((p) => p.then((r) => r.close(), () => undefined)));
  }
}

/**
 * The verified inline shard of drive `i` (its data after the bitrot hash); FileNotFoundError when that drive's copy
 * is absent, offline or of the wrong length, BitrotMismatchError when damaged.
 */
function inlineShard(set: ErasureSet, q: QuorumMeta, i: number, chunkLen: number): Buffer {
  const slot = set.drives[i]!;
  const own = q.perDrive[i];
  if (own === null || own === undefined || own.inline === null || !slot.online) throw new FileNotFoundError(slot.drive.endpoint, q.meta.key);
  const data = verifyFramedChunk(set.hasher, own.inline, `${slot.drive.endpoint} ${own.key} (inline)`);
  if (data.length !== chunkLen) throw new FileNotFoundError(slot.drive.endpoint, q.meta.key);
  return data;
}

/**
 * Builds the decode state of one part; `onBad` hears of a shard that failed. `pooled`: chunks may be views of lent
 * buffers, for a consumer that hands them back (RecyclingReadable).
 */
export function partDecoder(
  set: ErasureSet, bucket: string, q: QuorumMeta, part: number, onBad: () => void, pooled = false,
): { st: DecodeState; shards: PartShards } {
  const shards = new PartShards(set, bucket, q, part, pooled);
  const { k, m } = q.meta.erasure;
  const st: DecodeState = {
    codec: new ErasureCodec(k, m),
    provider: shards,
    bad: new Array<boolean>(k + m).fill(false),
    onBad,
    quorumError: () => new InsufficientReadQuorumError(`fewer than ${k} readable shards for ${bucket}/${q.meta.key}`),
  };
  return { st, shards };
}

async function* readObject(set: ErasureSet, bucket: string, q: QuorumMeta, start: number, end: number, pooled: boolean): AsyncGenerator<Buffer> {
  const meta: ObjectMeta = q.meta;
  let damaged = false;
  let partStart = 0;
  try {
    for (const part of meta.parts) {
      const partEnd = partStart + part.size; // exclusive
      if (partEnd > start && partStart <= end && part.size > 0) {
        const { st, shards } = partDecoder(set, bucket, q, part.number, () => { damaged = true; }, pooled);
        try {
          const offset = Math.max(start, partStart) - partStart;
          const length = Math.min(end + 1, partEnd) - partStart - offset;
          yield* readPartRange(st, { blockSize: meta.erasure.blockSize, partSize: part.size, offset, length });
        } finally {
          await shards.close();
        }
      }
      partStart = partEnd;
      if (partStart > end) break;
    }
  } finally {
    if (damaged) set.heals.queueObject(set, bucket, meta.key, true);
  }
}

/**
 * The bytes [start, end] of an inline object when every data shard is at hand and passes its bitrot check, else
 * undefined (a missing or damaged shard is the streaming read's job: it reads parity, rebuilds and queues a heal).
 * A small GET then answers with one buffer instead of a generator, a Readable and a pipe (about a quarter less
 * server CPU per 4 KiB GET; docs/performance.md, fifth session).
 */
function inlineBytes(set: ErasureSet, q: QuorumMeta, start: number, end: number): Buffer | undefined {
  const { meta } = q;
  if (meta.dataDir !== null || meta.parts.length !== 1) return undefined;
  const size = meta.parts[0]!.size;
  if (size === 0) return Buffer.alloc(0);
  const { k } = meta.erasure;
  const chunkLen = chunkLength(blockLength(size, meta.erasure.blockSize, 0), k);
  const byShard = shardDrives(meta.erasure.distribution);
  const chunks: Buffer[] = [];
  try {
    for (let s = 0; s < k && s * chunkLen <= end; s++) chunks.push(inlineShard(set, q, byShard[s]!, chunkLen));
  } catch {
    return undefined;
  }
  const whole = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  return whole.subarray(start, end + 1);
}

/** Bytes a body stream buffers ahead of its consumer (two default chunks). */
const BODY_HIGH_WATER_MARK = 1 << 20;

/** OpenObject on this set: the newest version, or `versionId`. */
export async function openObject(set: ErasureSet, bucket: string, key: string, versionId?: string): Promise<OpenObject> {
  const q = selectVersion(bucket, await set.readObjectMeta(bucket, key), versionId);
  const info = toObjectInfo(bucket, q.meta);
  return {
    info,
    read(range?: ByteRange, opts: ReadOptions = {}): Readable {
      const start = range?.start ?? 0;
      const end = range?.end ?? info.size - 1;
      if (opts.sink !== undefined) return new RecyclingReadable(readObject(set, bucket, q, start, end, true), opts.sink, BODY_HIGH_WATER_MARK);
      return Readable.from(readObject(set, bucket, q, start, end, false), { objectMode: false, highWaterMark: BODY_HIGH_WATER_MARK });
    },
    bytes(range?: ByteRange): Buffer | undefined {
      return inlineBytes(set, q, range?.start ?? 0, range?.end ?? info.size - 1);
    },
  };
}
