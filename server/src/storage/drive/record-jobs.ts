import { Worker } from 'node:worker_threads';
import type { RunInfo } from './record-run.js';

/**
 * Where the record stores' runs are written: a flush's run and every merge (record-store.ts) on one worker thread
 * per process (record-worker.ts), not on the event loop. On two cores the event loop is what bounds small PUTs, and
 * the runs' writes and merges done there cost every PUT its share: with them on the event loop, 4 KiB PUTs at 16 in
 * flight were no faster than with a metadata file per key (docs/performance.md, twenty-third session).
 */

/**
 * A run to write from sorted entries, their values one after the other in `data` (entry i's ends at `ends[i]`; -1: a
 * tombstone), or runs to merge into `out`. One buffer, moved to the worker, not copied: Buffers of a few KiB are
 * views of 8 KiB pool slabs, and a structured clone of each copied its whole slab.
 */
export type RunJob =
  | { op: 'write'; path: string; ids: string[]; ends: Int32Array; data: Uint8Array }
  | { op: 'merge'; inputs: { path: string; gen: number }[]; out: string; drops: [string, number][]; keepTombstones: boolean };

interface Pending {
  resolve(info: RunInfo): void;
  reject(err: Error): void;
}

let worker: Worker | undefined;
let seq = 0;
const pending = new Map<number, Pending>();

/**
 * The worker's module beside this one: `.js` when built; from source (tests, benchmarks under tsx) a `.ts` that the
 * worker can load only once tsx's loader is registered in it (a worker does not inherit the parent's `--import`).
 */
function newWorker(): Worker {
  const url = new URL(import.meta.url.endsWith('.ts') ? './record-worker.ts' : './record-worker.js', import.meta.url);
  // A small young generation: the worker's garbage is the flushes' buffers and merges' reads, a few MiB at a time, and
  // the default semi-spaces grow to what the main thread's would (RSS, issue 9 point 4).
  const resourceLimits = { maxYoungGenerationSizeMb: 4 };
  if (url.pathname.endsWith('.js')) return new Worker(url, { resourceLimits });
  return new Worker(`import('tsx/esm/api').then((t) => t.register()).then(() => import(${JSON.stringify(url.href)}))`, { eval: true, resourceLimits });
}

function started(): Worker {
  if (worker !== undefined) return worker;
  const w = newWorker();
  w.on('message', (m: { seq: number; info?: RunInfo; error?: { message: string; code?: string } }) => {
    const p = pending.get(m.seq);
    if (p === undefined) return;
    pending.delete(m.seq);
    if (m.error === undefined) p.resolve(m.info!);
    else p.reject(Object.assign(new Error(m.error.message), { code: m.error.code }));
    // Nothing to wait for: the worker does not keep the process alive.
    if (pending.size === 0) w.unref();
  });
  const fail = (err: Error): void => {
    if (worker === w) worker = undefined;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  w.on('error', fail);
  w.on('exit', (code) => fail(new Error(`record store worker exited (${code})`)));
  worker = w;
  return w;
}

/** Runs `job` on the worker; resolves with the run it wrote, rejects with its error (its `code` kept: ENOSPC). */
export function runJob(job: RunJob): Promise<RunInfo> {
  const w = started();
  return new Promise((resolve, reject) => {
    const id = ++seq;
    pending.set(id, { resolve, reject });
    w.ref();
    w.postMessage({ seq: id, job }, job.op === 'write' ? [job.data.buffer as ArrayBuffer, job.ends.buffer as ArrayBuffer] : []);
  });
}
