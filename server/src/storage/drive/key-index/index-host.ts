import { Worker } from 'node:worker_threads';
import { isRead, type IndexOp, type IndexReply, type IndexRequest, type OpResult } from './index-protocol.js';

/**
 * The event loop's side of an index worker (index-worker.ts): the operations asked for in one turn go as one message
 * (a message each way wakes a thread, which costs this VM 25-45 µs: docs/performance.md), and each answer settles its
 * caller's promise. One host per device (indexHostFor): drives on one disk share its writes' queue anyway, and one
 * worker taking all their commits makes one synced write per drive per batch with no hand-off in between.
 *
 * A worker that fails (an exception, or killed) rejects what was waiting; the next call starts another, which opens
 * again the indexes this host had opened (their files hold everything that was answered).
 */

/**
 * An operation the worker answered with an error: its errno code when the drive's files gave one (`errno` set, as on
 * a Node.js system error, so that the drive maps it like any other: drive-layout.ts mapError).
 */
export class IndexOpError extends Error {
  readonly code: string;
  readonly errno: number;
  constructor(code: string, message: string, errno = -1) {
    super(message);
    this.name = 'IndexOpError';
    this.code = code;
    this.errno = errno;
  }
}

interface Waiting {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

// Plain JavaScript, evaluated (as the other workers: common/job-worker.ts): loads the worker's module, compiled in the
// build; from the sources (tests under tsx) it registers tsx first.
const BOOT = `
const { workerData } = require('node:worker_threads');
(async () => {
  if (workerData.url.endsWith('.ts')) { const { register } = await import('tsx/esm/api'); register(); }
  await import(workerData.url);
})().catch((err) => process.nextTick(() => { throw err; }));
`;
/**
 * The workers' young generation, kept small: what they allocate (a batch's records, a block read) dies within the
 * message. `npm run bench -- --only small` with the key-index layout: peak RSS of the 64-way small-object load
 * 340-347 MiB with 4 MiB against 444 with V8's default (point 4 asks for 400), 4 KiB PUT c16 2,556-2,774, GET c16
 * 8,727-9,099 (docs/performance.md, twenty-fifth session).
 */
const YOUNG_GENERATION_MB = 4;
const WORKER_URL = new URL(`./index-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url).href;

export class IndexHost {
  #worker: Worker | undefined;
  #queue: { op: IndexOp; waiter: Waiting }[] = [];
  readonly #waiting = new Map<number, Waiting[]>();
  #rid = 0;
  /** Indexes opened through this host, opened again first in a new worker. */
  readonly #opened = new Map<string, Extract<IndexOp, { op: 'open' }>>();

  call(op: IndexOp): Promise<unknown> {
    if (op.op === 'open') this.#opened.set(op.dir, op);
    else if (op.op === 'close') this.#opened.delete(op.dir);
    return new Promise((resolve, reject) => {
      if (this.#queue.length === 0) setImmediate(() => this.#send());
      this.#queue.push({ op, waiter: { resolve, reject } });
    });
  }

  /**
   * Sends the turn's operations: its reads in one message, ahead of the rest in another, so that the worker answers
   * them without waiting for the turn's writes to be synced (index-worker.ts `handle`).
   */
  #send(): void {
    const batch = this.#queue;
    this.#queue = [];
    const worker = this.#worker ?? this.#start(batch);
    const reads = batch.filter((b) => isRead(b.op));
    const writes = reads.length === 0 ? batch : batch.filter((b) => !isRead(b.op));
    for (const part of [reads, writes]) {
      if (part.length === 0) continue;
      const rid = ++this.#rid;
      this.#waiting.set(rid, part.map((b) => b.waiter));
      worker.ref();
      worker.postMessage({ rid, ops: part.map((b) => b.op) } satisfies IndexRequest);
    }
  }

  /** A new worker; the indexes opened before (and not in `batch`) are opened again ahead of it. */
  #start(batch: { op: IndexOp }[]): Worker {
    const worker = new Worker(BOOT, { eval: true, execArgv: [], workerData: { url: WORKER_URL }, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    this.#worker = worker;
    worker.unref();
    worker.on('message', (reply: IndexReply) => {
      const waiters = this.#waiting.get(reply.rid);
      if (waiters === undefined) return;
      this.#waiting.delete(reply.rid);
      if (this.#waiting.size === 0) worker.unref();
      reply.results.forEach((r: OpResult, i) => {
        if ('error' in r) waiters[i]!.reject(new IndexOpError(r.error.code, r.error.message, r.error.errno));
        else waiters[i]!.resolve(r.value);
      });
    });
    const fail = (err: Error): void => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      const cause = new Error(`key index worker stopped: ${err.message}`);
      for (const ws of this.#waiting.values()) for (const w of ws) w.reject(cause);
      this.#waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`exit code ${code}`)));
    const reopen = [...this.#opened.values()].filter((o) => !batch.some((b) => b.op.op === 'open' && b.op.dir === o.dir));
    if (reopen.length > 0) {
      const rid = ++this.#rid;
      this.#waiting.set(rid, reopen.map(() => ({ resolve: () => undefined, reject: () => undefined })));
      worker.ref();
      worker.postMessage({ rid, ops: reopen } satisfies IndexRequest);
    }
    return worker;
  }

  /** Stops the worker (what waits is rejected); a later call starts another. */
  async terminate(): Promise<void> {
    const w = this.#worker;
    if (w === undefined) return;
    this.#worker = undefined;
    const cause = new Error('key index worker stopped: terminated');
    for (const ws of this.#waiting.values()) for (const x of ws) x.reject(cause);
    this.#waiting.clear();
    await w.terminate();
  }
}

const hosts = new Map<string, IndexHost[]>();
/** Each index directory stays with the host it was first given: two workers must never open the same files. */
const hostOfDir = new Map<string, IndexHost>();

/**
 * The host of the index in `dir`, on `device` (its drive's `stat().dev`): `perDevice` workers per device in the
 * process, the device's drives dealt round-robin among them, each drive always to the same one.
 */
export function indexHostFor(device: string, dir: string, perDevice = 1): IndexHost {
  const known = hostOfDir.get(dir);
  if (known !== undefined) return known;
  let hs = hosts.get(device);
  if (hs === undefined) hosts.set(device, (hs = []));
  const slot = [...hostOfDir.values()].filter((h) => hs.includes(h)).length % perDevice;
  hs[slot] ??= new IndexHost();
  hostOfDir.set(dir, hs[slot]);
  return hs[slot];
}
