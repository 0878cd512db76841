import { parentPort } from 'node:worker_threads';
import { MergedEntries, runSource } from './record-cursor.js';
import { RunReader, writeRun, type RunEntry, type RunInfo } from './record-run.js';
import type { RunJob } from './record-jobs.js';

/**
 * The record stores' background writes, on a thread of their own (record-jobs.ts says why): a flush's run written
 * from the entries it is sent, and merges read and written here, with the same code as in the main thread.
 */

async function merge(job: Extract<RunJob, { op: 'merge' }>): Promise<RunInfo> {
  const readers = await Promise.all(job.inputs.map((i) => RunReader.open(i.path)));
  try {
    const drops = new Map(job.drops);
    const merged = new MergedEntries(readers.map((r, i) => runSource(r.cursor(''), job.inputs[i]!.gen)));
    async function* live(): AsyncGenerator<RunEntry> {
      for (let e = await merged.next(); e !== undefined; e = await merged.next()) {
        if (e.value === null && !job.keepTombstones) continue;
        // Records of a volume dropped at or after their run's generation go (record-store.ts dropVolume).
        if (drops.size > 0 && e.gen <= (drops.get(e.id.slice(0, e.id.indexOf('\0'))) ?? 0)) continue;
        yield { id: e.id, value: e.value };
      }
    }
    return await writeRun(job.out, live());
  } finally {
    await Promise.all(readers.map((r) => r.close().catch(() => undefined)));
  }
}

async function run(job: RunJob): Promise<RunInfo> {
  if (job.op === 'write') {
    const data = Buffer.from(job.data.buffer, job.data.byteOffset, job.data.byteLength);
    let at = 0;
    return writeRun(job.path, job.ids.map((id, i) => {
      const end = job.ends[i]!;
      if (end < 0) return { id, value: null };
      const value = data.subarray(at, end);
      at = end;
      return { id, value };
    }));
  }
  return merge(job);
}

parentPort!.on('message', (m: { seq: number; job: RunJob }) => {
  run(m.job).then(
    (info) => parentPort!.postMessage({ seq: m.seq, info }),
    (err: NodeJS.ErrnoException) => parentPort!.postMessage({ seq: m.seq, error: { message: err.message, code: err.code } }),
  );
});
