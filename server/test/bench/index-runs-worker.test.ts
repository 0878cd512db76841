/**
 * The lean key index of `npm run bench:index -- --store runs` (server/bench/index-runs-worker.ts) finds what was put
 * after its table was flushed into runs and the runs merged, finds nothing it was not given, and keeps its runs few:
 * its CPU per record is only worth comparing if it does a store's work.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { RUNS_WORKER } from '../../bench/index-runs-worker.js';

function drive(path: string): { call(op: 'put' | 'get', items: unknown[]): Promise<number[]>; stop(): Promise<number> } {
  // A flush after every message: many runs, so that merges happen within a few hundred puts.
  const w = new Worker(RUNS_WORKER, { eval: true, workerData: { path, crc: createRequire(import.meta.url).resolve('@node-rs/crc32'), record: 64, indexed: true, flushMs: 0 } });
  let id = 0;
  const waiting = new Map<number, { resolve(f: number[]): void; reject(e: Error): void }>();
  w.on('message', (m: { id: number; found?: number[]; error?: string }) => {
    const p = waiting.get(m.id)!;
    waiting.delete(m.id);
    if (m.error !== undefined) p.reject(new Error(m.error));
    else p.resolve(m.found ?? []);
  });
  return {
    call: (op, items) => new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      w.postMessage({ id: id++, op, items });
    }),
    stop: () => w.terminate(),
  };
}

test('bench:index --store runs: every key put is found after flushes and merges, an absent key is not, runs stay few', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-runs-'));
  const d = drive(dir);
  try {
    const key = (i: number): Buffer => Buffer.from(`bench\0k/${String(i * 7919 % 1000).padStart(4, '0')}/${i}`);
    const value = Buffer.alloc(64, 0x61);
    // 40 batches of 25 keys, each batch flushed into its own run; keys arrive out of order, and 100 are put twice.
    for (let b = 0; b < 40; b++) {
      const items = Array.from({ length: 25 }, (_, j) => ({ k: key(b * 25 + j), v: value }));
      if (b % 10 === 9) items.push(...Array.from({ length: 25 }, (_, j) => ({ k: key((b - 5) * 25 + j), v: value })));
      assert.equal((await d.call('put', items)).length, items.length);
    }
    const found = await d.call('get', Array.from({ length: 1000 }, (_, i) => key(i)));
    assert.deepEqual(found, Array.from({ length: 1000 }, () => 1));
    const absent = await d.call('get', [Buffer.from('bench\0k/none'), Buffer.from('bench\0k/0000/1000'), Buffer.from('zzz'), Buffer.from('')]);
    assert.deepEqual(absent, [0, 0, 0, 0]);
    const runs = readdirSync(dir).filter((n) => n.startsWith('run-'));
    // Forty flushes, merged four at a time: a handful of runs, not forty.
    assert.ok(runs.length > 0 && runs.length < 12, `runs on disk: ${runs.length}`);
  } finally {
    await d.stop();
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
});
