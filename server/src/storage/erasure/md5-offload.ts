import { availableParallelism } from 'node:os';
import { JobWorker, ServerError } from '../../common/index.js';

/**
 * MD5 (the S3 ETag of a PUT, https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html)
 * computed in worker threads. MD5 cannot be split within one stream and runs ~0.7 GiB/s per core
 * (issue 9): on the event loop it halves the ingest rate of large PUTs. Each upload is bound to
 * one worker (its hash state lives there, updates arrive in order) and feeds it views of block
 * buffers allocated in SharedArrayBuffer, so no byte is copied; the caller keeps a block
 * unchanged until its update resolved. Workers are started on first use, held while they have
 * work and never keep the process alive when idle.
 */

/** The worker: one MD5 state per upload id. */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const states = new Map();
parentPort.on('message', (m) => {
  try {
    if (m.op === 'drop') { states.delete(m.id); return; }
    let h = states.get(m.id);
    if (h === undefined) { h = createHash('md5'); states.set(m.id, h); }
    if (m.op === 'update') { h.update(m.data); parentPort.postMessage({ rid: m.rid }); return; }
    states.delete(m.id);
    parentPort.postMessage({ rid: m.rid, digest: h.digest() });
  } catch (err) {
    parentPort.postMessage({ rid: m.rid, error: String(err) });
  }
});
`;

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
    this.#worker = new JobWorker(WORKER_SOURCE, { onExit, failure: (err) => new Md5WorkerError(`MD5 worker stopped: ${err.message}`) });
  }

  async request(msg: { op: 'update' | 'digest'; id: number; data?: Uint8Array }): Promise<Buffer | undefined> {
    const r = await this.#worker.request(msg);
    if (r.error !== undefined) throw new Md5WorkerError(String(r.error));
    const digest = r.digest as Uint8Array | undefined;
    return digest === undefined ? undefined : Buffer.from(digest.buffer, digest.byteOffset, digest.byteLength);
  }

  drop(id: number): void {
    this.#worker.post({ op: 'drop', id });
  }
}

let nextId = 0;
const workers: (Md5Worker | undefined)[] = new Array<Md5Worker | undefined>(Math.max(1, Math.min(4, availableParallelism()))).fill(undefined);

function pick(): Md5Worker {
  let best = 0;
  for (let i = 0; i < workers.length; i++) {
    const w = workers[i];
    if (w === undefined) {
      const created = new Md5Worker(() => { if (workers[i] === created) workers[i] = undefined; });
      workers[i] = created;
      return created;
    }
    if (w.jobs < workers[best]!.jobs) best = i;
  }
  return workers[best]!;
}

/** The running MD5 of one upload, computed off the event loop. */
export class OffloadedMd5 {
  readonly #id = nextId++;
  readonly #worker: Md5Worker;
  #done = false;

  constructor() {
    this.#worker = pick();
    this.#worker.jobs++;
  }

  /**
   * Hashes `data` next. The bytes are read by the worker after this call returns: `data` must
   * live in a SharedArrayBuffer (otherwise it is copied) and stay unchanged until this resolves.
   */
  update(data: Uint8Array): Promise<void> {
    return this.#worker.request({ op: 'update', id: this.#id, data }).then(() => undefined);
  }

  /** The digest of everything updated so far (in call order); ends the upload's state. */
  async digest(): Promise<Buffer> {
    this.#finish();
    return (await this.#worker.request({ op: 'digest', id: this.#id }))!;
  }

  /** Drops the state without a digest (aborted upload). */
  abort(): void {
    if (this.#done) return;
    this.#finish();
    this.#worker.drop(this.#id);
  }

  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    this.#worker.jobs--;
  }
}
