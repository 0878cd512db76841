import { verifyChunkOffloaded, verifyFramedChunkOffloaded } from './hash-offload.js';
import { BITROT_HASH_SIZE, checkChunk, verifyFramedChunk } from './hasher.js';
import type { BitrotHasher } from './hasher.js';

/**
 * Bitrot framing of one shard file, in one of two layouts (a part's metadata names it: PartMeta.bitrot):
 *  - interleaved, MinIO's streaming bitrot: chunk i sits at offset i * (32 + shardSize) as HH-256(chunk) ‖ chunk;
 *    every part written before the thirty-seventh session (docs/performance.md) and every inline shard.
 *  - trailing: the chunks back to back (chunk i at offset i * shardSize), then the HH-256 of every chunk in order.
 *    A chunk of a 2+2 or 4+2 set (256 or 512 KiB of a 1 MiB block) then starts on a 4 KiB file offset, so a drive
 *    writes it with O_DIRECT straight from the encoder's block instead of copying it into a staging buffer
 *    (drive/direct-shard-writer.ts; issue 9 point 1, 64 MiB PUT); the hashes follow the data at close.
 * Only the last chunk may be shorter. Either way the file is ceil(n / shardSize) * 32 + n bytes.
 */
export type BitrotLayout = 'interleaved' | 'trailing';

/**
 * Hashes a reader of a trailing-layout file fetches at once (8 KiB: a part of 256 MiB with 1 MiB blocks); a GET
 * streams chunks in order, so one read of the table serves the next chunks too.
 */
const HASH_WINDOW = 256;

/** Where bytes go (a drive's ShardWriter satisfies this). */
export interface ChunkSink {
  write(buffers: readonly Uint8Array[]): Promise<void>;
}

/** Where bytes come from (a drive's ShardReader satisfies this). */
export interface ChunkSource {
  read(offset: number, length: number, pooled?: boolean): Promise<Buffer>;
}

/**
 * Writes one shard file's chunks in `layout`: interleaved, each chunk after its hash in one vectored write (no copy);
 * trailing, each chunk alone and the hashes at `finish`.
 */
export class BitrotWriter {
  readonly #sink: ChunkSink;
  readonly #hasher: BitrotHasher;
  /** Hashes of the chunks written so far (trailing layout); null for interleaved. */
  readonly #hashes: Buffer[] | null;

  constructor(sink: ChunkSink, hasher: BitrotHasher, layout: BitrotLayout = 'interleaved') {
    this.#sink = sink;
    this.#hasher = hasher;
    this.#hashes = layout === 'trailing' ? [] : null;
  }

  /** Appends `chunk`; resolves once the sink took its bytes (the caller may then reuse them). */
  writeChunk(chunk: Uint8Array, hash: Uint8Array = this.#hasher.hash(chunk)): Promise<void> {
    if (this.#hashes === null) return this.#sink.write([hash, chunk]);
    this.#hashes.push(Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength));
    return this.#sink.write([chunk]);
  }

  /** Appends what follows the last chunk (the trailing layout's hashes); once, before the sink is closed. */
  async finish(): Promise<void> {
    if (this.#hashes !== null && this.#hashes.length > 0) await this.#sink.write([Buffer.concat(this.#hashes)]);
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
  /**
   * The file is in the trailing layout: `dataSize` bytes of chunks (the part's chunk lengths summed), then the hashes
   * of its `chunks` chunks. Absent: interleaved.
   */
  trailing?: { dataSize: number; chunks: number };
}

/** Reads chunk `i` of a shard file (either layout) and verifies it (BitrotMismatchError on mismatch). */
export class BitrotReader {
  readonly #source: ChunkSource;
  readonly #hasher: BitrotHasher;
  readonly #shardSize: number;
  readonly #where: string;
  readonly #pooled: boolean;
  readonly #offload: boolean;
  readonly #trailing: { dataSize: number; chunks: number } | null;
  /** Trailing layout: the last window of hashes read (or being read), from chunk `first` on. */
  #table: { first: number; count: number; bytes: Promise<Buffer> } | null = null;

  constructor(source: ChunkSource, hasher: BitrotHasher, shardSize: number, where: string, opts: BitrotReaderOptions = {}) {
    this.#source = source;
    this.#hasher = hasher;
    this.#shardSize = shardSize;
    this.#where = where;
    this.#pooled = opts.pooled === true;
    this.#offload = opts.offload === true;
    this.#trailing = opts.trailing ?? null;
  }

  async readChunk(index: number, chunkLength: number): Promise<Buffer> {
    const where = `${this.#where} chunk ${index}`;
    if (this.#trailing === null) {
      const framed = await this.#source.read(index * (BITROT_HASH_SIZE + this.#shardSize), BITROT_HASH_SIZE + chunkLength, this.#pooled);
      return this.#offload ? verifyFramedChunkOffloaded(this.#hasher, framed, where) : verifyFramedChunk(this.#hasher, framed, where);
    }
    const { dataSize, chunks } = this.#trailing;
    const at = index * this.#shardSize;
    if (index >= chunks || at + chunkLength > dataSize) throw new RangeError(`${where} is past the shard's ${chunks} chunks`);
    let data: Buffer;
    let stored: Buffer;
    if (this.#covers(index) || index < chunks - 1) {
      [data, stored] = await Promise.all([this.#source.read(at, chunkLength, this.#pooled), this.#storedHash(index)]);
    } else {
      // The last chunk: its bytes and the hash table after them in one read (a part of one block costs one read, as
      // in the interleaved layout). The table is copied out: the read may be a lent buffer the consumer recycles.
      const both = await this.#source.read(at, dataSize - at + chunks * BITROT_HASH_SIZE, this.#pooled);
      const table = Buffer.from(both.subarray(dataSize - at));
      this.#table = { first: 0, count: chunks, bytes: Promise.resolve(table) };
      data = both.subarray(0, chunkLength);
      stored = table.subarray(index * BITROT_HASH_SIZE, (index + 1) * BITROT_HASH_SIZE);
    }
    if (this.#offload) return verifyChunkOffloaded(this.#hasher, data, stored, where);
    return checkChunk(data, stored, this.#hasher.hash(data), where);
  }

  #covers(index: number): boolean {
    const t = this.#table;
    return t !== null && index >= t.first && index < t.first + t.count;
  }

  /** The stored hash of chunk `index`, from the table window that holds it (read now when none does). */
  async #storedHash(index: number): Promise<Buffer> {
    if (!this.#covers(index)) {
      const { dataSize, chunks } = this.#trailing!;
      const count = Math.min(HASH_WINDOW, chunks - index);
      const bytes = this.#source.read(dataSize + index * BITROT_HASH_SIZE, count * BITROT_HASH_SIZE);
      // A failed read fails every chunk that waits on it; none is left unobserved.
      bytes.catch(() => undefined);
      this.#table = { first: index, count, bytes };
    }
    const t = this.#table!;
    const off = (index - t.first) * BITROT_HASH_SIZE;
    return (await t.bytes).subarray(off, off + BITROT_HASH_SIZE);
  }
}

/** Size of a framed shard file holding `n` shard bytes. */
export function framedSize(n: number, shardSize: number): number {
  return Math.ceil(n / shardSize) * BITROT_HASH_SIZE + n;
}
