import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { mergeHealStatus } from './heal-status.js';
import type { HealStatus } from './heal-status.js';
import { openPools } from './open-storage.js';
import { get, pattern, put, testCluster } from './testing.js';
import { hasRecord, removeRecord } from '../../../test/helpers/drive-records.js';
import { objectDir } from '../../../test/helpers/drive-files.js';

test('over two pools: one scan cycle covers both, the status sums them and names the pool of a healing drive', async (t) => {
  const a = await testCluster(1, 4, 2);
  const b = await testCluster(1, 2, 1);
  const pools = [{ sets: a.sets, parity: 2 }, { sets: b.sets, parity: 1 }];
  const st = await openPools({ pools, driveCheckIntervalMs: 3_600_000, scanner: false });
  t.after(async () => {
    await st.close();
    await a.cleanup();
    await b.cleanup();
  });
  await st.makeBucket('bkt');
  const objects = new Map<string, Buffer>();
  for (let i = 0; i < 30; i++) {
    const data = pattern(2000 + i, i);
    await put(st, 'bkt', `k${i}`, data);
    objects.set(`k${i}`, data);
  }
  // Drop every object from one drive of each pool: each pool holds some of them.
  const dropped = async (root: string): Promise<number> => {
    let n = 0;
    for (const key of objects.keys()) {
      if (!(await hasRecord(root, 'bkt', key))) continue;
      await removeRecord(root, 'bkt', key);
      await rm(objectDir(root, 'bkt', key), { recursive: true, force: true, maxRetries: 5 });
      n++;
    }
    return n;
  };
  const inA = await dropped(a.sets[0]![0]!);
  const inB = await dropped(b.sets[0]![1]!);
  assert.equal(inA + inB, objects.size);
  assert.ok(inA > 0 && inB > 0, 'both pools hold objects');

  const res = await st.runScanCycle({ sampleEvery: 1 });
  assert.deepEqual(res, { cycle: 1, setsScanned: 2, objectsScanned: objects.size, healsQueued: objects.size, errors: 0, completed: true });
  await st.drainHeals();
  const s = st.healStatus();
  assert.equal(s.scanner.objectsHealed, objects.size);
  assert.equal(s.scanner.cyclesCompleted, 1);
  assert.equal(s.queue.healedObjects, objects.size);
  assert.deepEqual(s.drives, []);
  for (const [key, data] of objects) assert.ok((await get(st, 'bkt', key)).equals(data));
  assert.equal((await st.runScanCycle({ sampleEvery: 1 })).healsQueued, 0);

  // A wiped drive of pool 2 is healed in full and reported with its pool.
  const root = b.sets[0]![0]!;
  for (const n of await readdir(root)) await rm(join(root, n), { recursive: true, force: true, maxRetries: 5 });
  await st.health();
  await st.drainHeals();
  const [d] = st.healStatus().drives;
  assert.equal(d?.pool, 1);
  assert.equal(d.endpoint, root);
  assert.equal(d.state, 'done');
  assert.equal(d.objectsHealed, inB);
});

test('merging pool statuses: sums counters, a cycle is complete once every pool completed it', () => {
  const one = (n: number, ended?: string): HealStatus => ({
    scanner: {
      enabled: true, running: false, cycle: n, cyclesCompleted: n, objectsScannedThisCycle: n, objectsScanned: 10 * n, healsQueued: n,
      objectsHealed: n, healFailures: 0, errors: 0, sampleEvery: 16, intervalMs: 60_000, pauseMs: 10, deep: false,
      lastCycleStarted: `2026-01-0${n}T00:00:00.000Z`, ...(ended === undefined ? {} : { lastCycleEnded: ended }),
    },
    queue: { queued: n, running: 0, completed: n, healedObjects: n, failed: 0, dropped: 0, bytesHealed: 100 * n },
    drives: [],
  });
  const m = mergeHealStatus([one(1, '2026-01-01T00:01:00.000Z'), one(3, '2026-01-03T00:01:00.000Z')]);
  assert.equal(m.scanner.cycle, 3);
  assert.equal(m.scanner.cyclesCompleted, 1);
  assert.equal(m.scanner.objectsScanned, 40);
  assert.equal(m.scanner.lastCycleStarted, '2026-01-03T00:00:00.000Z');
  assert.equal(m.scanner.lastCycleEnded, '2026-01-01T00:01:00.000Z');
  assert.equal(m.queue.bytesHealed, 400);
  assert.equal(m.queue.queued, 4);
  assert.equal(mergeHealStatus([one(1), one(2, '2026-01-02T00:01:00.000Z')]).scanner.lastCycleEnded, undefined);
});
