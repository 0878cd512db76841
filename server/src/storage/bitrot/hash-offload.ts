import { JobWorker, ServerError } from '../../common/index.js';
import { BITROT_HASH_SIZE, BITROT_KEY, checkChunk, verifyFramedChunk, type BitrotHasher } from './hasher.js';
import { HASH_WORKER_SOURCE } from './hash-worker-source.js';

/**
 * The bitrot check of large chunks read for a GET, hashed by a worker thread in place (issue 9 point 1: 64 MiB GET
 * at 4 in flight ≥ 1.2 GiB/s). On the event loop, HighwayHash of chunks that come cold from O_DIRECT reads took
 * ~15 ms of a 64 MiB GET's ~57 and the loop was the bound: a scratch build without the check read 1,310–1,456 MiB/s
 * against 1,089–1,275. With the hash here, alternated with the build before, 1,252–1,498 against 1,063–1,358 MiB/s
 * at the same server CPU per GET (docs/performance.md, thirty-third session). The chunk's bytes are not copied: shard
 * reads go into SharedArrayBuffers (drive/buffer-pool.ts readBuffers), which the worker reads where they are. Chunks
 * in other memory, and small ones, are hashed on the caller's thread as before, and so are the chunks of objects
 * under engine/object-read.ts OFFLOAD_MIN_OBJECT_BYTES (BitrotReaderOptions.offload: their GETs are latency-bound).
 *
 * One worker: it hashes ~4 GiB/s of such chunks, several times what the disk delivers here. Started on first use,
 * it never holds the process open while idle. If it fails, the hash is computed on the caller's thread: a failed
 * worker costs speed, never a check.
 */

/**
 * Smaller chunks are hashed on the caller's thread: the hash of 64 KiB takes ~15 µs there, a hand-off ~0.15 ms of server
 * CPU (1 MiB GETs, two chunks each, took ~0.3 ms more with it).
 */
export const OFFLOAD_MIN_BYTES = 64 * 1024;

let worker: JobWorker | undefined;
/** Chunks hashed by the worker (tests). */
let offloaded = 0;

function hashWorker(): JobWorker {
  if (worker !== undefined) return worker;
  const started: JobWorker = new JobWorker(HASH_WORKER_SOURCE, {
    // A worker stopped before (stopHashWorker) reports its exit late: it must not drop its successor.
    onExit: () => { if (worker === started) worker = undefined; },
    failure: (err) => new ServerError('ERR_BITROT_WORKER', `bitrot hash worker stopped: ${err.message}`),
    workerData: { url: import.meta.resolve('highwayhasher'), key: Uint8Array.from(BITROT_KEY).buffer },
  });
  worker = started;
  return started;
}

/**
 * verifyFramedChunk (hasher.ts), with the hash of a large chunk in shared memory computed by the worker: the data part
 * of `framed` (hash ‖ data) once its hash matches, else BitrotMismatchError naming `where`.
 */
export async function verifyFramedChunkOffloaded(hasher: BitrotHasher, framed: Buffer, where: string): Promise<Buffer> {
  if (framed.length < BITROT_HASH_SIZE) return verifyFramedChunk(hasher, framed, where);
  return verifyChunkOffloaded(hasher, framed.subarray(BITROT_HASH_SIZE), framed.subarray(0, BITROT_HASH_SIZE), where);
}

/**
 * The chunk `data` checked against its hash `stored` apart from it (a shard file with trailing hashes, streaming.ts),
 * hashed by the worker when large and in shared memory; BitrotMismatchError naming `where` on mismatch.
 */
export async function verifyChunkOffloaded(hasher: BitrotHasher, data: Buffer, stored: Uint8Array, where: string): Promise<Buffer> {
  const hash = data.buffer instanceof SharedArrayBuffer && data.length >= OFFLOAD_MIN_BYTES ? await workerHash(hasher, data) : hasher.hash(data);
  return checkChunk(data, stored, hash, where);
}

/** The worker's hash of `data` (in a SharedArrayBuffer), or `hasher`'s on this thread if the worker failed. */
async function workerHash(hasher: BitrotHasher, data: Uint8Array): Promise<Buffer> {
  let r;
  try {
    r = await hashWorker().request({ sab: data.buffer, off: data.byteOffset, len: data.byteLength });
  } catch {
    return hasher.hash(data);
  }
  const h = r.hash as Uint8Array | undefined;
  if (r.error !== undefined || h === undefined) return hasher.hash(data);
  offloaded++;
  return Buffer.from(h.buffer, h.byteOffset, h.byteLength);
}

/** How many chunks the worker has hashed in this process (tests). */
export function offloadedHashes(): number {
  return offloaded;
}

/** Stops the worker (tests: the next hash starts a new one). */
export function stopHashWorker(): void {
  worker?.terminate();
  worker = undefined;
}
