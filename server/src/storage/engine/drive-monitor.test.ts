import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InsufficientReadQuorumError, InsufficientWriteQuorumError } from './storage-errors.js';
import { get, pattern, put, testCluster, type TestCluster } from './testing.js';
import type { Storage } from './open-storage.js';
import { ErasureSets } from './erasure-sets.js';
import { FileNotFoundError } from '../drive/index.js';
import { hasRecord, readRecordOnDisk, removeDriveDir } from '../../../test/helpers/drive-records.js';

const SIZES = [10, 4096, 200 * 1024, 2 * 1024 * 1024 + 5];

async function seed(st: Storage, prefix: string): Promise<Map<string, Buffer>> {
  const objects = new Map<string, Buffer>();
  for (const [i, size] of SIZES.entries()) {
    const data = pattern(size, i + prefix.length);
    await put(st, 'bkt', `${prefix}${i}`, data);
    objects.set(`${prefix}${i}`, data);
  }
  return objects;
}

/** One set of 4 drives (EC:2), opened, with bucket `bkt` holding the seeded objects. */
async function seededCluster(t: TestContext, prefix: string): Promise<{ c: TestCluster; st: Storage; objects: Map<string, Buffer> }> {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  return { c, st, objects: await seed(st, prefix) };
}

async function assertIntact(st: Storage, objects: Map<string, Buffer>): Promise<void> {
  for (const [key, data] of objects) assert.ok((await get(st, 'bkt', key)).equals(data), `object ${key} intact`);
}

/** The drive's format file, as JSON. */
async function formatOf(root: string): Promise<{ healing?: string }> {
  return JSON.parse(await readFile(join(root, '.svc.sys', 'format.json'), 'utf8')) as { healing?: string };
}

async function wipeContents(root: string): Promise<void> {
  for (const n of await readdir(root)) await rm(join(root, n), { recursive: true, force: true, maxRetries: 5 });
}

test('two drives wiped in place: reads and writes go on, the drives are reformatted and healed', async (t) => {
  const { c, st, objects } = await seededCluster(t, 'before-');
  const [d0, d1] = c.sets[0]!;
  await wipeContents(d0!);
  await wipeContents(d1!);
  await assertIntact(st, objects);
  for (const [k, v] of await seed(st, 'during-')) objects.set(k, v);
  const h = await st.health();
  assert.equal(h.writable, true);
  assert.equal(h.onlineDrives, 4);
  for (let round = 0; round < 5; round++) {
    const list = await st.listObjects('bkt', { prefix: '', delimiter: '', startAfter: '', maxKeys: 1000 });
    assert.deepEqual(list.objects.map((o) => o.key).sort(), [...objects.keys()].sort(), 'reformatted drives hide nothing');
  }
  await st.drainHeals();
  for (const key of objects.keys()) {
    for (const root of [d0!, d1!]) assert.ok(await hasRecord(root, 'bkt', key), `${key} healed onto ${root}`);
  }
  // Healed completely: their formats no longer say they lack objects.
  for (const root of [d0!, d1!]) assert.equal((await formatOf(root)).healing, undefined);
  // With the healed drives, the other two can now go.
  await rename(c.sets[0]![2]!, `${c.sets[0]![2]!}.away`);
  await rename(c.sets[0]![3]!, `${c.sets[0]![3]!}.away`);
  await assertIntact(st, objects);
});

test('three drives gone: not readable nor writable; back with their data: healthy and intact', async (t) => {
  const { c, st, objects } = await seededCluster(t, 'obj-');
  const gone = c.sets[0]!.slice(1);
  for (const root of gone) await rename(root, `${root}.away`);
  const h = await st.health();
  assert.deepEqual([h.readable, h.writable, h.onlineDrives, h.offlineDrives], [false, false, 1, 3]);
  await assert.rejects(put(st, 'bkt', 'new', Buffer.from('x')), InsufficientWriteQuorumError);
  await assert.rejects(put(st, 'bkt', 'new-big', pattern(3 << 20)), InsufficientWriteQuorumError);
  await assert.rejects(get(st, 'bkt', 'obj-3'), InsufficientReadQuorumError);
  for (const root of gone) await rename(`${root}.away`, root);
  const back = await st.health();
  assert.deepEqual([back.readable, back.writable, back.onlineDrives], [true, true, 4]);
  await st.drainHeals();
  await assertIntact(st, objects);
});

test('a drive taken offline by one failed call is checked again soon, not at the next interval', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  // The interval is an hour (testing.ts): only the re-check after the fault can bring the drive back.
  for (const [recheckMs, back] of [[200, true], [3_600_000, false]] as const) {
    const st = await c.open({ driveFaultRecheckMs: recheckMs });
    if (recheckMs === 200) await st.makeBucket('bkt');
    assert.ok(st instanceof ErasureSets);
    const slot = st.sets[0]!.drives[3]!;
    const root = c.sets[0]![3]!;
    await rename(root, `${root}.away`);
    await put(st, 'bkt', `k-${recheckMs}`, pattern(4096));
    assert.equal(slot.online, false, 'the write that failed on the drive took it offline');
    await rename(`${root}.away`, root);
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(slot.online, back, back ? 'back online after the re-check' : 'still offline without one');
    await st.drainHeals();
    await st.close();
  }
});

test('two drive roots removed then recreated empty: writes lack quorum meanwhile, then heal completes', async (t) => {
  const { c, st, objects } = await seededCluster(t, 'obj-');
  const [d0, d1] = c.sets[0]!;
  await removeDriveDir(d0!);
  await removeDriveDir(d1!);
  await assertIntact(st, objects);
  const h = await st.health();
  assert.deepEqual([h.readable, h.writable, h.onlineDrives], [true, false, 2]);
  await assert.rejects(put(st, 'bkt', 'x', Buffer.from('x')), InsufficientWriteQuorumError);
  await mkdir(d0!);
  await mkdir(d1!);
  const back = await st.health();
  assert.deepEqual([back.readable, back.writable, back.onlineDrives], [true, true, 4]);
  await st.drainHeals();
  assert.deepEqual((await st.listBuckets()).map((b) => b.name), ['bkt']);
  for (const key of objects.keys()) assert.ok(await hasRecord(d0!, 'bkt', key), `${key} healed onto ${d0!}`);
  await rename(c.sets[0]![2]!, `${c.sets[0]![2]!}.away`);
  await rename(c.sets[0]![3]!, `${c.sets[0]![3]!}.away`);
  await assertIntact(st, objects);
});

test('three drives wiped in place are not reformatted from a single survivor', async (t) => {
  const { c, st } = await seededCluster(t, 'obj-');
  for (const root of c.sets[0]!.slice(1)) await wipeContents(root);
  const h = await st.health();
  assert.deepEqual([h.readable, h.writable, h.onlineDrives], [false, false, 1]);
  await assert.rejects(put(st, 'bkt', 'x', Buffer.from('x')), InsufficientWriteQuorumError);
});

test('a format marked "healing" makes every view count the drive as lacking objects; its owner resumes the heal and clears the mark', async (t) => {
  const { c, st, objects } = await seededCluster(t, 'obj-');
  const d0 = c.sets[0]![0]!;
  // As another node leaves it after formatting the drive as a replacement (drive-monitor.ts #format).
  const file = join(d0, '.svc.sys', 'format.json');
  await writeFile(file, JSON.stringify({ ...(await formatOf(d0)), healing: new Date().toISOString() }));
  await st.health();
  assert.ok(st instanceof ErasureSets);
  const set = st.sets[0]!;
  assert.equal(set.drives[0]!.lacksObjects, true);
  assert.equal(set.votesAbsent(0, new FileNotFoundError(d0, 'k')), false, 'its "not found" is no vote for absence');
  assert.equal(set.votesAbsent(1, new FileNotFoundError(c.sets[0]![1]!, 'k')), true);
  await st.close();
  // A restart of the drive's owner finds the mark and heals the drive again; a heal that misses nothing clears it.
  const again = await c.open();
  await again.drainHeals();
  assert.equal((await formatOf(d0)).healing, undefined);
  assert.ok(again instanceof ErasureSets);
  assert.equal(again.sets[0]!.drives[0]!.lacksObjects, false);
  await assertIntact(again, objects);
});

test('an old copy of a drive moved into its place between two checks is healed with what it lacks', async (t) => {
  const { c, st, objects } = await seededCluster(t, 'old-');
  const root = c.sets[0]![3]!;
  await st.health(); // the monitor has seen the drive's directory
  await cp(root, `${root}.copy`, { recursive: true });
  const after = pattern(4096, 99);
  await put(st, 'bkt', 'written-after-the-copy', after);
  // Same format, same drive id, another directory, never seen offline by the monitor.
  await rename(root, `${root}.live`);
  await rename(`${root}.copy`, root);
  // What the directory now in the drive's place holds on disk (not what a key index still open on the moved-away
  // drive's files would answer).
  assert.equal(readRecordOnDisk(root, 'bkt', 'written-after-the-copy'), null, 'the copy lacks the new object');
  await st.health();
  await st.drainHeals();
  assert.notEqual(readRecordOnDisk(root, 'bkt', 'written-after-the-copy'), null, 'the heal gave the copy the new object');
  objects.set('written-after-the-copy', after);
  await assertIntact(st, objects);
});
