import { Worker } from 'node:worker_threads';

/** A worker's answer to one request: `rid` echoes the request's, the rest is the worker's own. */
export interface JobReply {
  rid: number;
  [field: string]: unknown;
}

/** Options of a {@link JobWorker}. */
export interface JobWorkerOptions {
  /** Runs once when the worker failed or exited (after every waiting request was rejected). */
  onExit(): void;
  /** Runs each time the last waiting request was answered. */
  onIdle?(): void;
  /** The error the waiting requests are rejected with when the worker fails or exits. */
  failure(cause: Error): Error;
  /** Cloned to the worker as `workerData` (e.g. a compiled WebAssembly.Module). */
  workerData?: unknown;
}

/**
 * A worker thread running plain JavaScript `source` (evaluated, so the same from sources under tsx and from the
 * build; no inherited execArgv, which may carry loaders meant for the parent's entry point) that answers each
 * request with one message carrying the request's `rid`. What the drive I/O pool and the MD5 workers share:
 * the worker holds the process open only while a request waits, and when it fails or exits every waiting request
 * is rejected instead of left hanging.
 */
export class JobWorker {
  readonly #worker: Worker;
  readonly #opts: JobWorkerOptions;
  readonly #waiting = new Map<number, { resolve(r: JobReply): void; reject(e: Error): void; posted: number }>();
  #nextRid = 0;
  #dead: Error | null = null;

  constructor(source: string, opts: JobWorkerOptions) {
    this.#opts = opts;
    this.#worker = new Worker(source, { eval: true, execArgv: [], workerData: opts.workerData });
    this.#worker.unref();
    // An unref before the thread is up does not hold: repeated once it is online (unless a request waits).
    this.#worker.once('online', () => {
      if (this.#waiting.size === 0) this.#worker.unref();
    });
    this.#worker.on('message', (r: JobReply) => {
      const w = this.#waiting.get(r.rid);
      if (w === undefined) return;
      this.#waiting.delete(r.rid);
      if (this.#waiting.size === 0) {
        this.#worker.unref();
        this.#opts.onIdle?.();
      }
      w.resolve(r);
    });
    const fail = (err: Error): void => {
      if (this.#dead !== null) return;
      this.#dead = opts.failure(err);
      for (const w of this.#waiting.values()) w.reject(this.#dead);
      this.#waiting.clear();
      opts.onExit();
    };
    this.#worker.on('error', fail);
    this.#worker.on('exit', (code) => fail(new Error(`worker exited (${code})`)));
  }

  /** Requests waiting for their answer. */
  get pending(): number {
    return this.#waiting.size;
  }

  /**
   * True while the request being worked on (the oldest: a worker answers in order) has waited longer than `ms`
   * at `now` (performance.now()).
   */
  stuck(now: number, ms: number): boolean {
    for (const w of this.#waiting.values()) return now - w.posted > ms;
    return false;
  }

  /** Posts `message` (with a fresh `rid`), moving `transfer` to the worker; resolves with the worker's reply. */
  request(message: object, transfer: readonly ArrayBuffer[] = []): Promise<JobReply> {
    if (this.#dead !== null) return Promise.reject(this.#dead);
    const rid = this.#nextRid++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(rid, { resolve, reject, posted: performance.now() });
      if (this.#waiting.size === 1) this.#worker.ref();
      this.#worker.postMessage({ ...message, rid }, transfer as ArrayBuffer[]);
    });
  }

  /** Posts `message` expecting no reply. */
  post(message: object): void {
    if (this.#dead !== null) return;
    this.#worker.postMessage(message);
    // Posting refs the port: with nothing awaited it must not hold the process open.
    if (this.#waiting.size === 0) this.#worker.unref();
  }

  terminate(): void {
    void this.#worker.terminate();
  }
}
