import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ServerError } from '../../common/index.js';

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
    if (m.op === 'update') { h.update(m.data); parentPort.postMessage({ seq: m.seq }); return; }
    states.delete(m.id);
    parentPort.postMessage({ seq: m.seq, digest: h.digest() });
  } catch (err) {
    parentPort.postMessage({ seq: m.seq, error: String(err) });
  }
});
`;

/** The MD5 worker failed or exited. */
export class Md5WorkerError extends ServerError {
  constructor(message: string) { super('ERR_MD5_WORKER', message); }
}

interface Waiter {
  resolve(digest: Buffer | undefined): void;
  reject(err: Error): void;
}

interface Reply {
  seq: number;
  digest?: Uint8Array;
  error?: string;
}

class Md5Worker {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiter>();
  #dead: Error | null = null;
  /** Uploads bound to this worker. */
  jobs = 0;

  constructor(onExit: () => void) {
    // No inherited flags: the source is a CommonJS script whatever the parent ran with (--input-type, loaders).
    this.#worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [] });
    this.#worker.unref();
    this.#worker.on('message', (r: Reply) => {
      const w = this.#waiting.get(r.seq);
      if (w === undefined) return;
      this.#waiting.delete(r.seq);
      if (this.#waiting.size === 0) this.#worker.unref();
      if (r.error !== undefined) w.reject(new Md5WorkerError(r.error));
      else w.resolve(r.digest === undefined ? undefined : Buffer.from(r.digest.buffer, r.digest.byteOffset, r.digest.byteLength));
    });
    const fail = (err: Error): void => {
      if (this.#dead !== null) return;
      this.#dead = new Md5WorkerError(`MD5 worker stopped: ${err.message}`);
      for (const w of this.#waiting.values()) w.reject(this.#dead);
      this.#waiting.clear();
      onExit();
    };
    this.#worker.on('error', fail);
    this.#worker.on('exit', (code) => fail(new Error(`exit code ${code}`)));
  }

  request(msg: { op: 'update' | 'digest'; id: number; data?: Uint8Array }): Promise<Buffer | undefined> {
    if (this.#dead !== null) return Promise.reject(this.#dead);
    const seq = nextSeq++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(seq, { resolve, reject });
      if (this.#waiting.size === 1) this.#worker.ref();
      this.#worker.postMessage({ ...msg, seq });
    });
  }

  drop(id: number): void {
    if (this.#dead !== null) return;
    this.#worker.postMessage({ op: 'drop', id });
    // A message posted while nothing is awaited must not hold the process open (it ref'd the port: a test file
    // whose upload was cut before its first block never exited).
    if (this.#waiting.size === 0) this.#worker.unref();
  }
}

let nextSeq = 0;
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
