/**
 * A small pool of worker threads running the local drives' short synchronous I/O jobs (io-worker-source.ts).
 * Why: an fs/promises call is one libuv thread-pool round trip (a worker thread woken, then the event loop woken)
 * plus a promise settlement; a 4 KiB GET read its metadata with 3 of them per drive (open, read, close) and a LIST
 * page with thousands. On this project's 2-core machine those hand-offs cost more CPU than the reads: the same
 * metadata read as one message to a worker doing open/read/close synchronously took a 4 KiB GET at 16 in flight
 * from ~1,250 to ~2,200 ops/s (docs/performance.md). Sync I/O is fine there: it blocks only that worker.
 *
 * The pool stays small (memory), so its workers give the disks few reads at a time: when every worker already has
 * QUEUE_LIMIT jobs waiting (cold reads from slow disks, many drives), ioPoolSaturated() tells callers that have
 * another way (LocalDrive.readMeta: fs/promises on libuv's 64 threads) to take it, so I/O stays parallel.
 *
 * A worker stuck on a hung drive must not take the other drives' jobs with it: a worker whose oldest job has been
 * running for more than STUCK_MS gets no new jobs, and when every worker is stuck another is started (up to
 * MAX_POOL), so the drives that still answer keep answering.
 */
import { Worker } from 'node:worker_threads';
import { WORKER_SOURCE, type ChildrenAnswer, type ChildrenJob, type IoJob, type ReadJob, type ScanAnswer, type ScanJob } from './io-worker-source.js';

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  /** performance.now() when posted: jobs run in order, so the first pending one is the running one. */
  posted: number;
}

class PoolWorker {
  readonly worker: Worker;
  readonly pending = new Map<number, Pending>();
  dead = false;

  constructor(onExit: (w: PoolWorker) => void, onIdle: (w: PoolWorker) => void) {
    // No inherited execArgv: the parent may run with loaders or --input-type flags meant for its own entry point.
    this.worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [] });
    this.worker.unref();
    // An unref before the thread is up does not hold: repeated once it is online (unless a job is waiting).
    this.worker.once('online', () => {
      if (this.pending.size === 0) this.worker.unref();
    });
    this.worker.on('message', (m: { id: number; value?: unknown; error?: string; errno?: number }) => {
      const p = this.pending.get(m.id);
      if (p === undefined) return;
      this.pending.delete(m.id);
      if (this.pending.size === 0) { this.worker.unref(); onIdle(this); }
      // Shaped like a failed fs call (code and errno), so the drive maps it the same way.
      if (m.error !== undefined) p.reject(Object.assign(new Error(m.error), { code: m.error, errno: m.errno }));
      else p.resolve(m.value);
    });
    const fail = (err: unknown): void => {
      if (this.dead) return;
      this.dead = true;
      for (const p of this.pending.values()) p.reject(err instanceof Error ? err : new Error(String(err)));
      this.pending.clear();
      onExit(this);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`drive I/O worker exited (${code})`)));
  }

  /** True while its running job has been running for longer than `ms`. */
  stuck(now: number, ms: number): boolean {
    for (const p of this.pending.values()) return now - p.posted > ms;
    return false;
  }
}

/** Workers started up front and kept: two keep both cores busy without a queue building up behind one. */
const POOL_SIZE = 2;
/** Upper bound with stuck workers replaced (each worker holds ~5 MiB). */
const MAX_POOL = 6;
/** A job running this long is on a hung (or very slow) drive; metadata reads take well under 10 ms. */
export const STUCK_MS = 2_000;

/** Waiting jobs per worker beyond which the pool counts as saturated (a cached metadata read takes ~20 µs). */
const QUEUE_LIMIT = 16;

const pool: PoolWorker[] = [];
let nextId = 1;

function spawn(): PoolWorker {
  const w = new PoolWorker((dead) => {
    const at = pool.indexOf(dead);
    if (at >= 0) pool.splice(at, 1);
  }, (idle) => {
    // A worker started while others were stuck goes once things are back to normal.
    if (pool.length <= POOL_SIZE) return;
    pool.splice(pool.indexOf(idle), 1);
    void idle.worker.terminate();
  });
  pool.push(w);
  return w;
}

/**
 * Starts the workers ahead of their first job: one takes 50-200 ms to boot, which the first request would
 * otherwise wait for. Idempotent; idle workers do not keep the process alive.
 */
export function warmIoPool(): void {
  while (pool.length < POOL_SIZE) spawn();
}

/** The worker for the next job: the least busy one that is not stuck (see the module comment). */
function pick(): PoolWorker {
  if (pool.length < POOL_SIZE) return spawn();
  const now = performance.now();
  let best: PoolWorker | undefined;
  let fallback: PoolWorker | undefined;
  for (const w of pool) {
    if (fallback === undefined || w.pending.size < fallback.pending.size) fallback = w;
    if (w.stuck(now, STUCK_MS)) continue;
    if (best === undefined || w.pending.size < best.pending.size) best = w;
  }
  if (best !== undefined) return best;
  return pool.length < MAX_POOL ? spawn() : fallback!;
}

/** Runs one job on a worker (workers start on first use and do not keep the process alive when idle). */
export function runIoJob(job: ScanJob): Promise<ScanAnswer>;
export function runIoJob(job: ChildrenJob): Promise<ChildrenAnswer>;
export function runIoJob(job: ReadJob): Promise<Uint8Array>;
export function runIoJob(job: IoJob): Promise<unknown> {
  const worker = pick();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    worker.pending.set(id, { resolve, reject, posted: performance.now() });
    if (worker.pending.size === 1) worker.worker.ref();
    worker.worker.postMessage({ id, job });
  });
}

/** True when every worker is stuck or has QUEUE_LIMIT jobs waiting: work that can go another way should. */
export function ioPoolSaturated(): boolean {
  if (pool.length < POOL_SIZE) return false;
  const now = performance.now();
  return pool.every((w) => w.pending.size >= QUEUE_LIMIT || w.stuck(now, STUCK_MS));
}

/** Number of workers (tests). */
export function ioPoolSize(): number {
  return pool.length;
}
