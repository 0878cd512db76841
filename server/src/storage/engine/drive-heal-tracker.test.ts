import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Storage } from './open-storage.js';
import { get, pattern, put, testCluster } from './testing.js';

const SIZES = [0, 10, 5000, 200 * 1024, 2 * 1024 * 1024 + 5];

/** Objects in two buckets, some nested, of inline and multi-block sizes. */
async function seed(st: Storage): Promise<Map<string, Buffer>> {
  const objects = new Map<string, Buffer>();
  for (const bucket of ['alpha', 'beta']) {
    await st.makeBucket(bucket);
    for (const [i, size] of SIZES.entries()) {
      for (const key of [`k${i}`, `dir/k${i}`]) {
        const data = pattern(size, i + key.length + bucket.length);
        await put(st, bucket, key, data);
        objects.set(`${bucket}/${key}`, data);
      }
    }
  }
  return objects;
}

/** Every file under `root` except the system area, by relative path. */
async function snapshot(root: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const e of await readdir(root, { recursive: true, withFileTypes: true })) {
    const p = join(e.parentPath, e.name);
    if (!e.isFile() || p.slice(root.length).startsWith('/.svc.sys')) continue;
    out.set(p.slice(root.length), await readFile(p));
  }
  return out;
}

async function wipeContents(root: string): Promise<void> {
  for (const n of await readdir(root)) await rm(join(root, n), { recursive: true, force: true, maxRetries: 5 });
}

async function assertIntact(st: Storage, objects: Map<string, Buffer>): Promise<void> {
  for (const [path, data] of objects) {
    const at = path.indexOf('/');
    assert.ok((await get(st, path.slice(0, at), path.slice(at + 1))).equals(data), `object ${path} intact`);
  }
}

test('a drive replaced while the storage was down is healed in full on reopen, with counters matching the objects', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const first = await c.open({ scanner: false });
  const objects = await seed(first);
  await first.close();
  const root = c.sets[0]![1]!;
  const before = await snapshot(root);
  await wipeContents(root);

  const st = await c.open({ scanner: false });
  const during = st.healStatus().drives;
  assert.equal(during.length, 1);
  assert.equal(during[0]!.endpoint, root);
  assert.notEqual(during[0]!.state, 'done', 'the heal runs in the background, after open');
  await st.drainHeals();

  const [d] = st.healStatus().drives;
  assert.ok(d !== undefined);
  assert.equal(d.state, 'done');
  assert.equal(d.set, 0);
  assert.equal(d.index, 1);
  assert.equal(d.objectsTotal, objects.size);
  assert.equal(d.objectsScanned, objects.size);
  assert.equal(d.objectsHealed, objects.size);
  assert.equal(d.objectsFailed, 0);
  assert.ok(d.bytesHealed > (2 * 1024 * 1024) / 2, 'at least the big objects\' shards were rebuilt');
  assert.ok(Date.parse(d.started!) <= Date.parse(d.finished!));
  assert.equal(d.currentBucket, undefined);
  assert.equal(d.error, undefined);
  assert.deepEqual(JSON.parse(JSON.stringify(d)), d);

  const after = await snapshot(root);
  assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort(), 'the drive holds the same files again');
  for (const [p, bytes] of before) assert.ok(after.get(p)!.equals(bytes), `${p} is byte-identical`);
  await assertIntact(st, objects);
  // The drive heal is not counted as object heals of the queue, and the scanner finds nothing left.
  assert.equal(st.healStatus().queue.healedObjects, 0);
  assert.equal((await st.runScanCycle({ sampleEvery: 1 })).healsQueued, 0);
});

test('a drive wiped while running is reformatted by the monitor and its full heal is reported', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open({ scanner: false });
  const objects = await seed(st);
  const root = c.sets[0]![3]!;
  await wipeContents(root);
  assert.deepEqual(st.healStatus().drives, []);
  // health() re-detects the drives at once: the empty drive is formatted and queued for a full heal.
  const h = await st.health();
  assert.equal(h.healingDrives, 1);
  const queued = st.healStatus().drives;
  assert.equal(queued.length, 1);
  assert.ok(queued[0]!.state === 'queued' || queued[0]!.state === 'healing');
  await st.drainHeals();
  const [d] = st.healStatus().drives;
  assert.equal(d!.state, 'done');
  assert.equal(d!.endpoint, root);
  assert.equal(d!.objectsTotal, objects.size);
  assert.equal(d!.objectsHealed, objects.size);
  assert.equal(d!.objectsFailed, 0);
  assert.equal((await st.health()).healingDrives, 0);
  await assertIntact(st, objects);
});
