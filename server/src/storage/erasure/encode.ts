import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { BitrotWriter, type BitrotHasher, type BitrotLayout, type BitrotStream } from '../bitrot/index.js';
import { BufferPool, type ShardWriter } from '../drive/index.js';
import type { ErasureCodec } from './codec.js';
import { chunkLength, shardSize } from './layout.js';
import { OffloadedMd5 } from './md5-offload.js';

/**
 * Streaming erasure encoder. The body is consumed with `for await`, so backpressure is natural:
 * memory is bounded by two block buffers (K+M chunks each, ~1.5 MiB for 4+2) whatever the size.
 * Blocks are pipelined: while block i is Reed-Solomon encoded (thread pool) and written to the
 * drives, block i+1 is filled from the body. Shard files are written in the trailing bitrot layout
 * (bitrot/streaming.ts): each chunk straight from the block buffer, which a drive writes with O_DIRECT
 * without copying it when the chunk is page-aligned (the only copy is body chunk → block buffer), and
 * the hashes at the end.
 * MD5 (the ETag) is the single-stream ceiling (~0.7 GiB/s per core): for bodies larger than the
 * inline limit it runs in a worker thread (md5-offload.ts), which is handed each block once its
 * shards are written (transferred, not copied: the block's first bytes are the body's, in order;
 * a body of one block is copied to it chunk by chunk instead); small bodies are hashed per chunk
 * on the event loop (a thread hop would cost more than the hash).
 */

/**
 * Block and parity buffers reused across PUTs (drive/buffer-pool.ts): a 1 MiB PUT allocated 2 MiB outside V8's heap,
 * and V8 answered with major collections, ~20 % of the CPU of 1 MiB PUTs in its marking threads (docs/performance.md,
 * twelfth session). Page-aligned, so that a drive writes a chunk with O_DIRECT from where it is (drive/direct-shard-writer.ts;
 * a chunk of a 1 MiB block is 256 or 512 KiB on 4+2 or 2+2 sets, whole pages). Not shared memory: V8 copies into a SharedArrayBuffer with a relaxed-atomic loop, which
 * took a fifth of the event loop of 64 MiB PUTs when the MD5 worker read the blocks (fourteenth session).
 */
const blocks = new BufferPool(16 * 1024 * 1024, { pageAligned: true });

/** Inputs of {@link encodeStream}. */
export interface EncodeOptions {
  codec: ErasureCodec;
  hasher: BitrotHasher;
  blockSize: number;
  /** When the whole body is at most this many bytes, shards are returned inline instead of written. */
  inlineLimit: number;
  /** Declared size (-1 when unknown): more bytes than this aborts the write. */
  expectedSize: number;
  /** Opens one writer per shard (index = shard number - 1); null for a drive that is unavailable. */
  openWriters(): Promise<(ShardWriter | null)[]>;
  /** Layout of the shard files (bitrot/streaming.ts); trailing unless given. Inline shards are always interleaved. */
  layout?: BitrotLayout;
  /** Number of shard writers that must survive. */
  writeQuorum: number;
  /** Error to throw when fewer than writeQuorum writers survive. */
  quorumError(errors: readonly unknown[]): Error;
  /** Error to throw when the body exceeds expectedSize. */
  tooLargeError(): Error;
}

/** Outcome of {@link encodeStream}. */
export interface EncodeResult {
  size: number;
  md5: Buffer;
  /** Per shard: framed (hash ‖ chunk) shard for inline objects; null when written to files. */
  inline: Buffer[] | null;
  /** Per shard: false when that drive's writer failed (or was unavailable). */
  written: boolean[];
  /** Layout of the shard files written (PartMeta.bitrot); null for inline shards. */
  layout: BitrotLayout | null;
}

/** Erasure-codes `body` into shard writers (or inline shards); see the module comment. */
export async function encodeStream(body: Readable, opts: EncodeOptions): Promise<EncodeResult> {
  const { codec, hasher, blockSize } = opts;
  const { k, m } = codec;
  const n = k + m;
  // Block buffers no larger than the declared body (a 4 KiB PUT must not allocate 2 × 1.5 MiB: allocation and
  // GC churn were a large share of small-object CPU), the second one only once a second block starts.
  const cap = opts.expectedSize >= 0 ? Math.min(blockSize, opts.expectedSize) : blockSize;
  const stride = shardSize(cap, k);
  const offload = opts.expectedSize > opts.inlineLimit ? new OffloadedMd5(opts.expectedSize) : null;
  const md5 = offload === null ? createHash('md5') : null;
  // Bodies of more than one block hand their written blocks to the MD5 worker (handToMd5 below); a body of one block
  // copies its chunks into an MD5 batch as they come: handing its only block over measured no faster for 1 MiB PUTs,
  // and the blocks taken while others are away doubled the young collections.
  const wholeBlocks = offload !== null && opts.expectedSize > blockSize;
  const block = (): Buffer => blocks.take(k * stride);
  const bufs: Buffer[] = [block()];
  const pars: Buffer[] = [blocks.take(m * stride)];
  // Only once nothing reads them any more: every writer took its bytes (they copy or write them before resolving)
  // and the codec is done. A failed PUT leaves its buffers to the garbage collector.
  const recycle = (): void => {
    for (const b of bufs) blocks.recycle(b);
    for (const p of pars) blocks.recycle(p);
  };
  let cur = 0;
  let pos = 0;
  let total = 0;
  let writers: (ShardWriter | null)[] | null = null;
  const layout = opts.layout ?? 'trailing';
  // Per shard: the writer's chunk framing (null where the writer is).
  let framers: (BitrotWriter | null)[] = [];
  const errors: unknown[] = new Array<unknown>(n).fill(undefined);
  let inflight: Promise<void> = Promise.resolve();
  const digest = (): Promise<Buffer> => (offload === null ? Promise.resolve(md5!.digest()) : offload.digest());

  // A full block's data chunks are hashed as the body is copied into the block, from memory the copy has just written:
  // hashed once the block was complete they came back from farther in the cache, and the bitrot hash was the event
  // loop's largest item in 64 MiB PUTs (HighwayHash ~27 → ~19 ms per object with the parity chunks, which are hashed
  // after the encode as before; docs/performance.md, thirty-seventh session). A body's last, shorter block and bodies
  // declared shorter than a block are hashed whole in prepare.
  const fullChunk = shardSize(blockSize, k);
  // The zeros that pad a full block's last data chunk (chunks are whole 8-byte words: 8 bytes on 3+2).
  const zeros = Buffer.alloc(k * fullChunk - blockSize);
  const incremental = cap === blockSize;
  const freshStreams = (): BitrotStream[] => Array.from({ length: k }, () => hasher.stream());
  let streams = incremental ? freshStreams() : [];
  // Copies `len` bytes of `src` from `from` into the block at `at`, each data chunk's part through its hash stream, which
  // hashes the bytes as it copies them (bitrot/copy-stream.ts; docs/performance.md, thirty-eighth session).
  const copyHashed = (src: Buffer, from: number, len: number, dst: Buffer, at: number): void => {
    const end = at + len;
    while (at < end) {
      const s = Math.floor(at / fullChunk);
      const upto = Math.min(end, (s + 1) * fullChunk);
      streams[s]!.copyIn(src.subarray(from, from + upto - at), dst.subarray(at, upto));
      from += upto - at;
      at = upto;
    }
  };
  const fullBlockHashes = (): Buffer[] => {
    if (zeros.length > 0) streams[k - 1]!.append(zeros);
    const out = streams.map((h) => h.digest());
    streams = freshStreams();
    return out;
  };

  const prepare = async (buf: Buffer, par: Buffer, len: number, dataHashes: Buffer[] | null): Promise<{ shards: Buffer[]; hashes: Buffer[] }> => {
    const chunkLen = chunkLength(len, k);
    buf.fill(0, len, k * chunkLen);
    await codec.encode(buf, par, chunkLen);
    const shards: Buffer[] = [];
    for (let s = 0; s < k; s++) shards.push(buf.subarray(s * chunkLen, (s + 1) * chunkLen));
    for (let s = 0; s < m; s++) shards.push(par.subarray(s * chunkLen, (s + 1) * chunkLen));
    return { shards, hashes: shards.map((s, i) => (dataHashes !== null && i < k ? dataHashes[i]! : hasher.hash(s))) };
  };

  const writeAll = async (shards: Buffer[], hashes: Buffer[]): Promise<void> => {
    const ws = writers!;
    await Promise.all(ws.map(async (w, s) => {
      if (w === null) return;
      try {
        await framers[s]!.writeChunk(shards[s]!, hashes[s]!);
      } catch (err) {
        ws[s] = null;
        errors[s] = err;
        await w.abort();
      }
    }));
    if (ws.filter((w) => w !== null).length < opts.writeQuorum) throw opts.quorumError(errors);
  };

  // Typed by assertion: it is set inside closures, which control-flow narrowing does not see.
  let opening = null as Promise<void> | null;
  const ensureWriters = (): Promise<void> => (opening ??= (async () => {
    const ws = await opts.openWriters();
    writers = ws;
    framers = ws.map((w) => (w === null ? null : new BitrotWriter(w, hasher, layout)));
    ws.forEach((w, s) => { if (w === null && errors[s] === undefined) errors[s] = new Error('drive unavailable'); });
    if (ws.filter((w) => w !== null).length < opts.writeQuorum) throw opts.quorumError(errors);
  })());
  // A body declared larger than the inline limit goes to files: their opening (a temp directory and a file per drive,
  // thread-pool round trips) starts now and overlaps the body's arrival instead of following its first block
  // (docs/performance.md, thirty-fifth session).
  if (opts.expectedSize > opts.inlineLimit) ensureWriters().catch(() => undefined);

  // The writers have taken a written block's bytes, so the block itself goes to the MD5 worker (blocks reach it in
  // order: each job writes after the previous one) and a fresh one takes its slot before the job ends, that is before
  // the body refills the slot. The worker hands it back to the pool. The copy of every body chunk into an MD5 batch
  // this replaces was ~7 ms of the event loop per 64 MiB PUT (docs/performance.md, thirty-sixth session).
  const handToMd5 = async (buf: Buffer, len: number, slot: number): Promise<void> => {
    const owned = blocks.giveAway(buf);
    if (owned === null) {
      await offload!.push(buf.subarray(0, len));
      return;
    }
    bufs[slot] = block();
    await offload!.pushOwned(owned, len, (back) => blocks.takeBack(back));
  };

  const submit = async (len: number): Promise<void> => {
    const dataHashes = incremental && len === blockSize ? fullBlockHashes() : null;
    await ensureWriters();
    const prev = inflight;
    const buf = bufs[cur]!;
    const par = pars[cur]!;
    cur ^= 1;
    if (bufs[cur] === undefined) {
      bufs[cur] = block();
      pars[cur] = blocks.take(m * stride);
    }
    const slot = cur ^ 1;
    const job = (async () => {
      const { shards, hashes } = await prepare(buf, par, len, dataHashes);
      await prev; // keeps writes of one shard file in block order
      await writeAll(shards, hashes);
      if (wholeBlocks) await handToMd5(buf, len, slot);
    })();
    job.catch(() => undefined);
    inflight = job;
    await prev; // the buffer about to be refilled belonged to `prev`
  };

  try {
    for await (const raw of body) {
      const chunk: Buffer = typeof raw === 'string' ? Buffer.from(raw) : (raw as Buffer);
      total += chunk.length;
      if (opts.expectedSize >= 0 && total > opts.expectedSize) throw opts.tooLargeError();
      md5?.update(chunk);
      let off = 0;
      while (off < chunk.length) {
        const take = Math.min(blockSize - pos, chunk.length - off);
        if (incremental) copyHashed(chunk, off, take, bufs[cur]!, pos);
        else chunk.copy(bufs[cur]!, pos, off, off + take);
        pos += take;
        off += take;
        if (pos === blockSize) {
          await submit(pos);
          pos = 0;
        }
      }
      if (offload !== null && !wholeBlocks) await offload.push(chunk);
    }
    if (opening === null && total <= opts.inlineLimit) {
      const { shards, hashes } = await prepare(bufs[cur]!, pars[cur]!, pos, null);
      const inline = shards.map((s, i) => Buffer.concat([hashes[i]!, s]));
      recycle();
      return { size: total, md5: await digest(), inline, written: new Array<boolean>(n).fill(true), layout: null };
    }
    if (pos > 0) await submit(pos);
    else await ensureWriters();
    await inflight;
    const ws = writers as unknown as (ShardWriter | null)[];
    await Promise.all(ws.map(async (w, s) => {
      if (w === null) return;
      try {
        // A failed finish leaves the file open, so it is aborted; a failed close has closed it.
        await framers[s]!.finish().catch(async (err: unknown) => { await w.abort(); throw err; });
        await w.close();
      } catch (err) {
        ws[s] = null;
        errors[s] = err;
      }
    }));
    if (ws.filter((w) => w !== null).length < opts.writeQuorum) throw opts.quorumError(errors);
    recycle();
    return { size: total, md5: await digest(), inline: null, written: ws.map((w) => w !== null), layout };
  } catch (err) {
    await inflight.catch(() => undefined);
    // Writers opened in the background are aborted with the others.
    await opening?.catch(() => undefined);
    offload?.abort();
    const ws = writers as (ShardWriter | null)[] | null;
    if (ws !== null) await Promise.all(ws.map((w) => w?.abort()));
    throw err;
  }
}
