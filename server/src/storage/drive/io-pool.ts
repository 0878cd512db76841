/**
 * A small pool of worker threads running the local drives' short synchronous I/O jobs (io-worker-source.ts).
 * Why: an fs/promises call is one libuv thread-pool round trip (a worker thread woken, then the event loop woken)
 * plus a promise settlement; a 4 KiB GET read its metadata with 3 of them per drive (open, read, close) and a LIST
 * page with thousands. On this project's 2-core machine those hand-offs cost more CPU than the reads: the same
 * metadata read as one message to a worker doing open/read/close synchronously took a 4 KiB GET at 16 in flight
 * from ~1,250 to ~2,200 ops/s (docs/performance.md). Sync I/O is fine there: it blocks only that worker.
 *
 * The pool stays small (memory), so its workers give the disks few reads at a time: when every worker's oldest job
 * has waited more than BACKLOG_MS (cold reads from slow disks, many drives), ioPoolSaturated() tells callers that have
 * another way (LocalDrive.readMeta: fs/promises on libuv's 64 threads) to take it, so I/O stays parallel.
 *
 * A worker stuck on a hung drive must not take the other drives' jobs with it: a worker whose oldest job has been
 * running for more than STUCK_MS gets no new jobs, and when every worker is stuck another is started (up to
 * MAX_POOL), so the drives that still answer keep answering.
 *
 * Metadata reads asked for in one turn of the event loop share one message (READS_PER_MESSAGE), and a message
 * still unanswered after STUCK_MS has its reads done again through libuv (rescueStuck), both below.
 */
import { JobWorker, type JobReply } from '../../common/index.js';
import { rootState } from './drive-layout.js';
import { readSmallFile } from './local-shard-io.js';
import { DRIVE_MISSING, DRIVE_UNFORMATTED, WORKER_SOURCE, type ChildrenAnswer, type ChildrenJob, type CommitsAnswer, type CommitsJob, type IoJob, type ReadJob, type ReadsAnswer, type ReadsJob, type ScanAnswer, type ScanJob } from './io-worker-source.js';

/** Workers started up front and kept: two keep both cores busy without a queue building up behind one. */
const POOL_SIZE = 2;
/** Upper bound with stuck workers replaced (each worker holds ~5 MiB). */
const MAX_POOL = 6;
/** A job running this long is on a hung (or very slow) drive; metadata reads take well under 10 ms. */
export const STUCK_MS = 2_000;

/**
 * A worker whose oldest waiting job was posted longer ago than this is backed up. Measured by age, not by the number
 * of jobs: a cached metadata read takes ~20 µs, so 64 GETs in flight queue ~1.3 ms of them, and a count limit (16
 * per worker, before) sent those GETs down the slower libuv path for no gain (4 KiB GET at 64 in flight: ~0.42 ms
 * of server CPU per GET with the count, ~0.35 without; docs/performance.md). Reads from a cold, slow disk exceed it
 * within a few reads.
 */
const BACKLOG_MS = 10;

const pool: JobWorker[] = [];

function spawn(): JobWorker {
  const w: JobWorker = new JobWorker(WORKER_SOURCE, {
    onExit() {
      const at = pool.indexOf(w);
      if (at >= 0) pool.splice(at, 1);
    },
    onIdle() {
      // A worker started while others were stuck goes once things are back to normal.
      const at = pool.indexOf(w);
      if (at < 0 || pool.length <= POOL_SIZE) return;
      pool.splice(at, 1);
      w.terminate();
    },
    failure: (cause) => new Error(`drive I/O worker stopped: ${cause.message}`),
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
function pick(): JobWorker {
  if (pool.length < POOL_SIZE) return spawn();
  const now = performance.now();
  let best: JobWorker | undefined;
  let fallback: JobWorker | undefined;
  for (const w of pool) {
    if (fallback === undefined || w.pending < fallback.pending) fallback = w;
    if (w.stuck(now, STUCK_MS)) continue;
    if (best === undefined || w.pending < best.pending) best = w;
  }
  if (best !== undefined) return best;
  return pool.length < MAX_POOL ? spawn() : fallback!;
}

/** Shaped like a failed fs call (code and errno), so the drive maps it the same way. */
export function ioError(code: unknown, errno: unknown): Error {
  // Without a stack: it would only point here, and a PUT of a new key makes one per drive (ENOENT of its metadata).
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return Object.assign(new Error(String(code)), { code, errno });
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Runs one job on a worker (workers start on first use and do not keep the process alive when idle). */
export function runIoJob(job: ScanJob): Promise<ScanAnswer>;
export function runIoJob(job: ChildrenJob): Promise<ChildrenAnswer>;
export function runIoJob(job: ReadJob): Promise<Uint8Array>;
export function runIoJob(job: CommitsJob): Promise<CommitsAnswer>;
export async function runIoJob(job: IoJob): Promise<unknown> {
  if (job.op === 'read') return queueRead(job);
  return send(job);
}

/** Messages posted to the workers per kind of job (tests: what shares a message). */
const postedByOp = new Map<string, number>();

/** How many messages of `op` jobs have been posted to the workers so far (tests). */
export function ioMessagesPosted(op: IoJob['op']): number {
  return postedByOp.get(op) ?? 0;
}

async function send(job: IoJob): Promise<unknown> {
  postedByOp.set(job.op, (postedByOp.get(job.op) ?? 0) + 1);
  const r: JobReply = await pick().request({ job });
  if (r.error !== undefined) throw ioError(r.error, r.errno);
  return r.value;
}

/**
 * Reads asked for in one turn of the event loop go to the workers together, up to READS_PER_MESSAGE per message:
 * a message each way costs the event loop more than the read itself on this VM (a 4 KiB GET reads two metadata files;
 * posting to a worker was ~14 % of the event loop's time at 16 GETs in flight; docs/performance.md, seventh session).
 * A turn's reads are posted from setImmediate, after the poll phase has parsed every request that arrived with them.
 * 32, not 8: at 16 GETs in flight a turn asks for ~10 reads, and splitting them into two messages cost ~5 % more
 * server CPU per GET (0.146-0.155 ms with 8, 0.135-0.142 with 32; bench:get, three interleaved pairs). A message
 * of 32 cached reads keeps a worker ~0.3 ms.
 */
const READS_PER_MESSAGE = 32;

interface QueuedRead {
  job: ReadJob;
  resolve(bytes: Uint8Array): void;
  reject(err: Error): void;
}

let queued: QueuedRead[] = [];

function queueRead(job: ReadJob): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    if (queued.length === 0) setImmediate(flushReads);
    queued.push({ job, resolve, reject });
  });
}

function flushReads(): void {
  const all = queued;
  queued = [];
  for (let at = 0; at < all.length; at += READS_PER_MESSAGE) {
    const batch = all.slice(at, at + READS_PER_MESSAGE);
    if (batch.length === 1) {
      // Alone in its message: nothing else for a hung read to hold up, so no rescue either.
      const [one] = batch;
      (send(one!.job) as Promise<Uint8Array>).then(one!.resolve, one!.reject);
      continue;
    }
    const job: ReadsJob = { op: 'reads', reads: batch.map((q) => q.job) };
    const entry: PostedBatch = { posted: performance.now(), batch };
    watch(entry);
    (send(job) as Promise<ReadsAnswer>).then((a) => {
      batch.forEach((q, i) => {
        const bytes = a.data[i];
        if (bytes === null || bytes === undefined) q.reject(ioError(a.errors[i], a.errnos[i]));
        else q.resolve(bytes);
      });
    }, (err: Error) => { for (const q of batch) q.reject(err); }).finally(() => posted.delete(entry));
  }
}

/**
 * A message mixes the reads of every drive, so one read on a hung drive would hold the others of its message
 * forever. Messages unanswered after STUCK_MS have their reads done again through libuv's threads (readAround):
 * the healthy drives' reads answer, the hung one waits there instead of in the worker (a promise settles once, so
 * whichever answer comes first is the one used).
 */
interface PostedBatch {
  posted: number;
  batch: QueuedRead[];
}

/** Messages not yet answered nor rescued. */
const posted = new Set<PostedBatch>();
let sweeper: NodeJS.Timeout | undefined;

function watch(entry: PostedBatch): void {
  posted.add(entry);
  if (sweeper !== undefined) return;
  // Never holds the process open; a sweep costs nothing while no message is that old.
  sweeper = setInterval(rescueStuck, STUCK_MS / 4);
  sweeper.unref();
}

function rescueStuck(): void {
  const now = performance.now();
  for (const entry of posted) {
    // In posting order: the first one too young to rescue is followed by younger ones only.
    if (now - entry.posted < STUCK_MS) break;
    posted.delete(entry);
    for (const q of entry.batch) readAround(q.job).then(q.resolve, q.reject);
  }
}

/** A ReadJob done through fs/promises, with the same error codes as the worker's (io-worker-source.ts ReadJob.guard). */
async function readAround(job: ReadJob): Promise<Uint8Array> {
  try {
    return await readSmallFile(job.path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (job.guard === undefined || (code !== 'ENOENT' && code !== 'ENOTDIR')) throw err;
    const state = await rootState(job.guard);
    throw state === 'ok' ? err : ioError(state === 'unformatted' ? DRIVE_UNFORMATTED : DRIVE_MISSING, undefined);
  }
}

/** True when every worker is backed up (or stuck): work that can go another way should. */
export function ioPoolSaturated(): boolean {
  if (pool.length < POOL_SIZE) return false;
  const now = performance.now();
  return pool.every((w) => w.stuck(now, BACKLOG_MS));
}

/** Number of workers (tests). */
export function ioPoolSize(): number {
  return pool.length;
}
