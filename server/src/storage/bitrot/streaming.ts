import { verifyFramedChunkOffloaded } from './hash-offload.js';
import { BITROT_HASH_SIZE, verifyFramedChunk } from './hasher.js';
import type { BitrotHasher } from './hasher.js';

/**
 * Streaming bitrot framing of one shard file: chunk i sits at offset i * (32 + shardSize) as
 * HH-256(chunk) ‖ chunk; only the last chunk may be shorter. File size is therefore
 * ceil(n / shardSize) * 32 + n, as in MinIO.
 */

/** Where bytes go (a drive's ShardWriter satisfies this). */
export interface ChunkSink {
  write(buffers: readonly Uint8Array[]): Promise<void>;
}

/** Where bytes come from (a drive's ShardReader satisfies this). */
export interface ChunkSource {
  read(offset: number, length: number, pooled?: boolean): Promise<Buffer>;
}

/** Prepends the hash to every chunk; writes hash and chunk in one vectored write, without copying. */
export class BitrotWriter {
  readonly #sink: ChunkSink;
  readonly #hasher: BitrotHasher;

  constructor(sink: ChunkSink, hasher: BitrotHasher) {
    this.#sink = sink;
    this.#hasher = hasher;
  }

  /** Hash of `chunk`, for callers that write several framed chunks themselves. */
  hash(chunk: Uint8Array): Buffer {
    return this.#hasher.hash(chunk);
  }

  writeChunk(chunk: Uint8Array, hash: Uint8Array = this.#hasher.hash(chunk)): Promise<void> {
    return this.#sink.write([hash, chunk]);
  }
}

/** Options of a {@link BitrotReader}. */
export interface BitrotReaderOptions {
  /** Chunks may be views of lent buffers (ShardReader.read); for readers whose consumer recycles them. */
  pooled?: boolean;
  /**
   * Large chunks in shared memory are checked by the hash worker (hash-offload.ts). For a large object's GET, which
   * streams many blocks and is bound by the event loop; a small one's is bound by its latency, and the hand-off adds
   * a thread wake-up per chunk (1 MiB GET at 1 in flight: ~15 % slower with it; docs/performance.md, thirty-third
   * session).
   */
  offload?: boolean;
}

/** Reads chunk `i` of a framed shard file and verifies it (BitrotMismatchError on mismatch). */
export class BitrotReader {
  readonly #source: ChunkSource;
  readonly #hasher: BitrotHasher;
  readonly #shardSize: number;
  readonly #where: string;
  readonly #pooled: boolean;
  readonly #offload: boolean;

  constructor(source: ChunkSource, hasher: BitrotHasher, shardSize: number, where: string, opts: BitrotReaderOptions = {}) {
    this.#source = source;
    this.#hasher = hasher;
    this.#shardSize = shardSize;
    this.#where = where;
    this.#pooled = opts.pooled === true;
    this.#offload = opts.offload === true;
  }

  async readChunk(index: number, chunkLength: number): Promise<Buffer> {
    const framed = await this.#source.read(index * (BITROT_HASH_SIZE + this.#shardSize), BITROT_HASH_SIZE + chunkLength, this.#pooled);
    const where = `${this.#where} chunk ${index}`;
    return this.#offload ? verifyFramedChunkOffloaded(this.#hasher, framed, where) : verifyFramedChunk(this.#hasher, framed, where);
  }
}

/** Size of a framed shard file holding `n` shard bytes. */
export function framedSize(n: number, shardSize: number): number {
  return Math.ceil(n / shardSize) * BITROT_HASH_SIZE + n;
}
