import { availableParallelism } from 'node:os';
import { JobWorker, ServerError } from '../../common/index.js';
import { compileMd5Module } from './md5-wasm.js';
import { nativeMd5Path } from './md5-native.js';
import { MD5_WORKER_SOURCE } from './md5-worker-source.js';

/**
 * MD5 (the S3 ETag of a PUT, https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html)
 * computed in worker threads. MD5 cannot be split within one stream and runs ~0.7 GiB/s per core
 * (issue 9): on the event loop it halves the ingest rate of large PUTs. Each upload is bound to
 * one worker (its hash state lives there, updates arrive in order) and hands it the body's bytes
 * in batches (see OffloadedMd5). A worker hashes up to four large uploads at once in the SIMD lanes
 * of md5-native.ts's addon, or of md5-wasm.ts where the addon does not run (md5-worker-source.ts),
 * so uploads fill one worker's four lanes before the next
 * worker gets any: 64 MiB PUTs at 4 in flight went from 410–447 to 475–514 MiB/s, 14 % less server
 * CPU per object (docs/performance.md, fourteenth session). Workers are started on first use, held
 * while they have work and never keep the process alive when idle.
 */

/** The WebAssembly module, compiled once and cloned to each worker. */
let compiled: object | undefined;

/** The MD5 worker failed or exited. */
export class Md5WorkerError extends ServerError {
  constructor(message: string) { super('ERR_MD5_WORKER', message); }
}

/** One MD5 worker and the uploads bound to it. */
class Md5Worker {
  readonly #worker: JobWorker;
  /** Uploads bound to this worker. */
  jobs = 0;

  constructor(onExit: () => void) {
    compiled ??= compileMd5Module();
    this.#worker = new JobWorker(MD5_WORKER_SOURCE, {
      onExit,
      failure: (err) => new Md5WorkerError(`MD5 worker stopped: ${err.message}`),
      // The addon where it runs (md5-native.ts), else the WebAssembly lanes: the same digests.
      workerData: { module: compiled, native: nativeMd5Path() },
    });
  }

  /** An update answers with its batch (transferred back), a digest with the digest. */
  async request(msg: { op: 'update' | 'digest'; id: number; small: boolean; batch?: ArrayBufferLike; length?: number }, transfer: ArrayBuffer[] = []): Promise<{ batch?: ArrayBuffer; digest?: Buffer }> {
    const r = await this.#worker.request(msg, transfer);
    if (r.error !== undefined) throw new Md5WorkerError(String(r.error));
    const digest = r.digest as Uint8Array | undefined;
    return {
      ...(r.batch instanceof ArrayBuffer ? { batch: r.batch } : {}),
      ...(digest === undefined ? {} : { digest: Buffer.from(digest.buffer, digest.byteOffset, digest.byteLength) }),
    };
  }

  drop(id: number, small: boolean): void {
    this.#worker.post({ op: 'drop', id, small });
  }
}

let nextId = 0;
const workers: (Md5Worker | undefined)[] = new Array<Md5Worker | undefined>(Math.max(1, Math.min(4, availableParallelism()))).fill(undefined);

/** Uploads bound to one worker before the next one is used: the lanes of `md5x4`. */
const LANES = 4;

/** The first worker with a free lane (started if need be); when all lanes are taken, the least loaded. */
function pick(): Md5Worker {
  let best = 0;
  for (let i = 0; i < workers.length; i++) {
    const w = workers[i];
    if (w === undefined) {
      const created = new Md5Worker(() => { if (workers[i] === created) workers[i] = undefined; });
      workers[i] = created;
      return created;
    }
    if (w.jobs < LANES) return w;
    if (w.jobs < workers[best]!.jobs) best = i;
  }
  return workers[best]!;
}

/** Bytes of one batch: chunks are copied into a batch, which goes to the worker once full. */
const BATCH = 1024 * 1024;

/** Batches of one upload in flight at most: three, so that a batch waiting for lanes does not stall its upload. */
const IN_FLIGHT = 3;

/**
 * Batches back from the worker, reused (at most this many kept: 4 uploads × IN_FLIGHT, and some). A batch travels
 * to the worker and back by transfer, so it is never copied nor reallocated.
 */
const FREE_MAX = 16;
const freeBatches: ArrayBuffer[] = [];

/**
 * Declared sizes below this are hashed by node:crypto as their batches arrive: a round waits up to LANE_WAIT_MS for
 * other uploads' bytes to fill its lanes, which a PUT of a few blocks would pay on its latency for little gain.
 */
export const LANE_MIN_BYTES = 8 * 1024 * 1024;

/** Buffers handed over whole by pushOwned in this process (tests). */
let handedOver = 0;

/** How many buffers callers handed over whole, uncopied, in this process (tests). */
export function handedOverBuffers(): number {
  return handedOver;
}

function takeBatch(): Uint8Array {
  return new Uint8Array(freeBatches.pop() ?? new ArrayBuffer(BATCH));
}

/**
 * The running MD5 of one upload, computed off the event loop. {@link push} copies each chunk into a batch buffer
 * (ordinary memory: the encoder's blocks used to live in a SharedArrayBuffer, which V8 copies into with a
 * relaxed-atomic loop several times slower than memcpy; docs/performance.md, fourteenth session); a full batch is
 * transferred to the worker, which hashes it and transfers it back. The caller's chunk is never kept.
 */
export class OffloadedMd5 {
  readonly #id = nextId++;
  readonly #worker: Md5Worker;
  #batch: Uint8Array | null = null;
  #fill = 0;
  /** Batches posted and not yet answered, oldest first (backpressure: IN_FLIGHT at most per upload). */
  #posted: Promise<unknown>[] = [];
  /** Hashed by node:crypto in the worker as its batches arrive, not in the SIMD lanes (see the constructor). */
  readonly #small: boolean;
  #done = false;
  /** The first update the worker failed. */
  #failed: unknown;

  /**
   * `size`: the declared body size (-1 unknown). Bodies under LANE_MIN_BYTES are hashed by node:crypto at once, and so
   * is an upload that starts with no other bound to its worker: alone, it would go through one lane of the SIMD
   * function (WebAssembly's scalar MD5, ~556 MiB/s on a core against node:crypto's ~716), and a hash cannot move
   * from one to the other midway. A single 64 MiB PUT was bound by that worker thread: 78–80 % of a core at ~370
   * MiB/s (docs/performance.md, nineteenth session). Uploads that start while others run share the lanes.
   */
  constructor(size: number) {
    this.#worker = pick();
    this.#small = (size >= 0 && size < LANE_MIN_BYTES) || this.#worker.jobs === 0;
    this.#worker.jobs++;
  }

  /** Whether this upload is hashed in the SIMD lanes (false: node:crypto in the worker; see the constructor). */
  get inLanes(): boolean {
    return !this.#small;
  }

  /**
   * Hashes `chunk` next (its bytes are copied before this returns). Resolves at once, or, when a batch was posted
   * with IN_FLIGHT batches in flight, once the oldest of them was hashed.
   */
  push(chunk: Uint8Array): Promise<void> {
    let wait: Promise<unknown> | null = null;
    let off = 0;
    while (off < chunk.byteLength) {
      this.#batch ??= takeBatch();
      const take = Math.min(BATCH - this.#fill, chunk.byteLength - off);
      this.#batch.set(chunk.subarray(off, off + take), this.#fill);
      this.#fill += take;
      off += take;
      if (this.#fill === BATCH) wait = this.#post();
    }
    return wait === null ? Promise.resolve() : wait.then(() => undefined);
  }

  /**
   * Hashes the first `length` bytes of `buffer` next, without copying them: the buffer is transferred to the worker
   * (detached here) and handed to `back` when the worker is done with it. For a caller that owns a whole buffer it has
   * no further use for (the encoder's written blocks, erasure/encode.ts). Waits as {@link push} does.
   */
  pushOwned(buffer: ArrayBuffer, length: number, back: (buffer: ArrayBuffer) => void): Promise<void> {
    this.#post(); // bytes pushed before keep their order
    handedOver++;
    return this.#send(buffer, length, back).then(() => undefined);
  }

  /** The digest of everything pushed so far (in call order); ends the upload's state. */
  async digest(): Promise<Buffer> {
    this.#post();
    this.#finish();
    const digest = (await this.#worker.request({ op: 'digest', id: this.#id, small: this.#small }))!.digest!;
    // The worker answers an upload's requests in order, so a failed update was seen before this answer.
    if (this.#failed !== undefined) throw this.#failed;
    return digest;
  }

  /** Drops the state without a digest (aborted upload). */
  abort(): void {
    if (this.#done) return;
    this.#finish();
    this.#batch = null;
    this.#worker.drop(this.#id, this.#small);
  }

  /** Posts the batch being filled (if any); returns what to wait for: the oldest batch, when IN_FLIGHT are in flight. */
  #post(): Promise<unknown> {
    if (this.#fill === 0) return Promise.resolve();
    const batch = this.#batch!;
    const length = this.#fill;
    this.#batch = null;
    this.#fill = 0;
    return this.#send(batch.buffer as ArrayBuffer, length, (b) => { if (freeBatches.length < FREE_MAX) freeBatches.push(b); });
  }

  /** Transfers `buffer` (its first `length` bytes are the upload's next) to the worker; `back` gets it once hashed. */
  #send(buffer: ArrayBuffer, length: number, back: (buffer: ArrayBuffer) => void): Promise<unknown> {
    const p = this.#worker.request({ op: 'update', id: this.#id, small: this.#small, batch: buffer, length }, [buffer]).then((r) => {
      if (r.batch !== undefined) back(r.batch);
    });
    p.catch((err: unknown) => { this.#failed ??= err; }); // reported by the next push that waits, or by digest()
    this.#posted.push(p);
    return this.#posted.length >= IN_FLIGHT ? this.#posted.shift()! : Promise.resolve();
  }

  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    this.#worker.jobs--;
  }
}
