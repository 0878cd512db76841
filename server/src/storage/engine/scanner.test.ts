import { test } from 'node:test';
import assert from 'node:assert/strict';
import { access, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { hasRecord, mustReadRecord, readRecord, removeDriveDir, removeRecord, usesKeyIndex } from '../../../test/helpers/drive-records.js';
import { decodeObjectRecord, isDeleteMarker } from '../format/index.js';
import { openStorage } from './open-storage.js';
import type { Storage } from './open-storage.js';
import { LocalDrive, forgetCachedMeta } from '../drive/index.js';
import type { Drive } from '../drive/index.js';
import { sampledIn } from './scanner.js';
import { InvalidStorageConfigError } from './storage-errors.js';
import { NO_META, collect, get, pattern, put, testCluster } from './testing.js';

/** Keys of several shapes: inline (< 128 KiB), one block, several blocks, nested. */
const OBJECTS: [string, number][] = [
  ['small', 5000], ['mid', 200 * 1024], ['big', 2 * 1024 * 1024 + 5], ['dir/sub/nested', 300 * 1024], ['dir/top', 10], ['empty', 0],
];

async function seed(st: Storage): Promise<Map<string, Buffer>> {
  await st.makeBucket('bkt');
  const objects = new Map<string, Buffer>();
  for (const [i, [key, size]] of OBJECTS.entries()) {
    const data = pattern(size, i + 7);
    await put(st, 'bkt', key, data);
    objects.set(key, data);
  }
  return objects;
}

/**
 * Every file under `root/bkt`, by relative path; on a drive with the key-index layout, whose records are not files,
 * also the record of each of `keys` it holds (by `record:<key>`).
 */
async function snapshot(root: string, keys: Iterable<string>): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const base = join(root, 'bkt');
  for (const e of await readdir(base, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const p = join(e.parentPath, e.name);
    out.set(p.slice(base.length), await readFile(p));
  }
  if (usesKeyIndex(root)) {
    for (const key of keys) {
      const record = await readRecord(root, 'bkt', key);
      if (record !== null) out.set(`record:${key}`, record);
    }
  }
  return out;
}

async function snapshots(roots: string[], keys: Iterable<string>): Promise<Map<string, Buffer>[]> {
  const all = [...keys];
  return Promise.all(roots.map((r) => snapshot(r, all)));
}

function assertSameFiles(actual: Map<string, Buffer>[], expected: Map<string, Buffer>[]): void {
  expected.forEach((files, d) => {
    assert.deepEqual([...actual[d]!.keys()].sort(), [...files.keys()].sort(), `drive ${d} holds the same files`);
    for (const [p, bytes] of files) assert.ok(actual[d]!.get(p)!.equals(bytes), `drive ${d}: ${p} is byte-identical`);
  });
}

/** On-disk directory of an object key on one drive: its data directories, and its record too on the metadata-file layout. */
function objectDir(root: string, key: string): string {
  return join(root, 'bkt', ...key.split('/').map((s) => `+${s}`));
}

/**
 * A drive loses a whole object: its directory (data directories, and the record file on the metadata-file layout) and its
 * record in the drive's key index (that layout's; small objects have no directory there). The next reads go to disk.
 * Nothing is asserted after: with the background loop running, a heal may already be putting it back.
 */
async function loseObject(root: string, key: string): Promise<void> {
  await rm(objectDir(root, key), { recursive: true, force: true, maxRetries: 5 });
  await removeRecord(root, 'bkt', key);
  forgetCachedMeta();
}

async function partFile(root: string, key: string): Promise<string> {
  const dir = objectDir(root, key);
  const dataDir = (await readdir(dir)).find((n) => /^[0-9a-f-]{36}$/.test(n))!;
  return join(dir, dataDir, 'part.1');
}

async function assertIntact(st: Storage, objects: Map<string, Buffer>): Promise<void> {
  for (const [key, data] of objects) assert.ok((await get(st, 'bkt', key)).equals(data), `object ${key} intact`);
}

test('one cycle finds objects missing from a drive and a missing shard file; the heals restore every file byte for byte', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open({ scanner: false });
  const objects = await seed(st);
  const roots = c.sets[0]!;
  const before = await snapshots(roots, objects.keys());
  // Drive 0 loses two whole objects (one of them nested), drive 1 the shard file of a third.
  await loseObject(roots[0]!, 'small');
  await loseObject(roots[0]!, 'dir/sub/nested');
  await rm(await partFile(roots[1]!, 'big'));

  const res = await st.runScanCycle({ sampleEvery: 1 });
  assert.deepEqual(res, { cycle: 1, setsScanned: 1, objectsScanned: OBJECTS.length, healsQueued: 3, errors: 0, completed: true });
  await st.drainHeals();
  assertSameFiles(await snapshots(roots, objects.keys()), before);
  await assertIntact(st, objects);

  const s = st.healStatus();
  assert.equal(s.scanner.enabled, false);
  assert.equal(s.scanner.running, false);
  assert.equal(s.scanner.cycle, 1);
  assert.equal(s.scanner.cyclesCompleted, 1);
  assert.equal(s.scanner.objectsScanned, OBJECTS.length);
  assert.equal(s.scanner.objectsScannedThisCycle, OBJECTS.length);
  assert.equal(s.scanner.healsQueued, 3);
  assert.equal(s.scanner.objectsHealed, 3);
  assert.equal(s.scanner.healFailures, 0);
  assert.ok(Date.parse(s.scanner.lastCycleStarted!) <= Date.parse(s.scanner.lastCycleEnded!));
  assert.equal(s.scanner.currentBucket, undefined);
  assert.equal(s.queue.healedObjects, 3);
  assert.equal(s.queue.failed, 0);
  assert.equal(s.queue.queued, 0);
  // Rebuilt: two records with their shards (one inline), one shard file; all of them non-empty.
  assert.ok(s.queue.bytesHealed > 2 * 1024 * 1024 / 2);
  assert.deepEqual(s.drives, []);
  assert.deepEqual(JSON.parse(JSON.stringify(s)), s, 'the status is plain JSON');

  // Nothing is left to heal: the next cycle queues nothing.
  const again = await st.runScanCycle({ sampleEvery: 1 });
  assert.equal(again.healsQueued, 0);
  assert.equal(again.objectsScanned, OBJECTS.length);
  assert.equal(st.healStatus().scanner.objectsScanned, 2 * OBJECTS.length);
});

test('a flipped byte in a shard file is invisible to the normal check and found by a deep cycle', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open({ scanner: false });
  const objects = await seed(st);
  const roots = c.sets[0]!;
  const before = await snapshots(roots, objects.keys());
  const file = await partFile(roots[2]!, 'big');
  const bad = Buffer.from(await readFile(file));
  bad[bad.length - 3] = bad[bad.length - 3]! ^ 0x5a;
  await writeFile(file, bad);

  assert.equal((await st.runScanCycle({ sampleEvery: 1 })).healsQueued, 0);
  await st.drainHeals();
  assert.ok((await readFile(file)).equals(bad), 'a normal cycle leaves the file alone');

  const deep = await st.runScanCycle({ sampleEvery: 1, deep: true });
  assert.equal(deep.healsQueued, OBJECTS.length, 'deep mode verifies every sampled object');
  await st.drainHeals();
  assertSameFiles(await snapshots(roots, objects.keys()), before);
  const s = st.healStatus();
  assert.equal(s.scanner.objectsHealed, 1);
  assert.equal(s.queue.healedObjects, 1);
  assert.equal(s.queue.completed, OBJECTS.length);
  await assertIntact(st, objects);
});

test('with sampleEvery 4, four consecutive cycles check each object exactly once and heal them all', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open({ scanner: { sampleEvery: 4, pauseMs: 0, intervalMs: 3_600_000 } });
  await st.makeBucket('bkt');
  const objects = new Map<string, Buffer>();
  for (let i = 0; i < 24; i++) {
    const data = pattern(1000 + i, i);
    await put(st, 'bkt', `k${i}`, data);
    objects.set(`k${i}`, data);
  }
  const roots = c.sets[0]!;
  const before = await snapshots(roots, objects.keys());
  for (const key of objects.keys()) await loseObject(roots[3]!, key);
  let scanned = 0;
  for (let cycle = 1; cycle <= 4; cycle++) {
    const res = await st.runScanCycle();
    assert.equal(res.healsQueued, res.objectsScanned, 'every checked object needed a heal');
    scanned += res.objectsScanned;
    await st.drainHeals();
  }
  assert.equal(scanned, objects.size);
  assert.equal(st.healStatus().scanner.objectsHealed, objects.size);
  assertSameFiles(await snapshots(roots, objects.keys()), before);
});

test('a noncurrent version\'s shard directory missing on one drive is found and rebuilt (every version is checked)', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open({ scanner: false });
  await st.makeBucket('bkt');
  const versions: [string, Buffer][] = [];
  for (const [i, size] of [300 * 1024, 400 * 1024].entries()) {
    const data = pattern(size, i + 50);
    const info = await st.putObject('bkt', 'v', Readable.from([data]), { size, metadata: NO_META, versioning: 'enabled' });
    versions.push([info.versionId!, data]);
  }
  await st.deleteObject('bkt', 'v', { versioning: 'enabled' });
  const roots = c.sets[0]!;
  const before = await snapshots(roots, ['v']);
  const dir = objectDir(roots[0]!, 'v');
  const record = decodeObjectRecord(await mustReadRecord(roots[0]!, 'bkt', 'v'));
  assert.equal(record.versions.length, 3, 'a delete marker over two versions');
  const oldest = record.versions[2]!;
  assert.ok(!isDeleteMarker(oldest) && oldest.dataDir !== null);
  await rm(join(dir, oldest.dataDir), { recursive: true });
  const res = await st.runScanCycle({ sampleEvery: 1 });
  assert.equal(res.healsQueued, 1);
  await st.drainHeals();
  assertSameFiles(await snapshots(roots, ['v']), before);
  for (const [versionId, data] of versions) {
    assert.ok((await collect((await st.openObject('bkt', 'v', { versionId })).read())).equals(data), `version ${versionId} intact`);
  }
  assert.equal(st.healStatus().scanner.objectsHealed, 1);
});

test('sampling spreads keys over the cycles: each key once in any sampleEvery consecutive cycles', () => {
  for (const every of [1, 3, 16]) {
    for (let i = 0; i < 200; i++) {
      const hits = Array.from({ length: every }, (_, c) => c + 1000).filter((c) => sampledIn('b', `key-${i}`, c, every));
      assert.equal(hits.length, 1);
    }
  }
});

test('a record left on too few drives by a failed write is removed by the heal the scanner queues', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open({ scanner: false });
  await st.makeBucket('bkt');
  await put(st, 'bkt', 'keep', pattern(100));
  await put(st, 'bkt', 'ghost', pattern(300 * 1024));
  const roots = c.sets[0]!;
  for (const r of roots.slice(1)) await loseObject(r, 'ghost');
  const res = await st.runScanCycle({ sampleEvery: 1 });
  assert.equal(res.objectsScanned, 2);
  assert.equal(res.healsQueued, 1);
  await st.drainHeals();
  await assert.rejects(access(objectDir(roots[0]!, 'ghost')), { code: 'ENOENT' });
  assert.equal(await hasRecord(roots[0]!, 'bkt', 'ghost'), false);
  assert.ok(await hasRecord(roots[0]!, 'bkt', 'keep'));
  assert.equal(st.healStatus().scanner.healFailures, 0);
});

test('the background loop runs cycles on its own, heals, and stops on close', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open({ scanner: { intervalMs: 1, sampleEvery: 1, pauseMs: 0 } });
  const objects = await seed(st);
  const roots = c.sets[0]!;
  const before = await snapshots(roots, objects.keys());
  await loseObject(roots[1]!, 'mid');
  // Two more completed cycles guarantee that one cycle started after the damage.
  const target = st.healStatus().scanner.cyclesCompleted + 2;
  while (st.healStatus().scanner.cyclesCompleted < target) await sleep(5);
  await st.drainHeals();
  assertSameFiles(await snapshots(roots, objects.keys()), before);
  await assertIntact(st, objects);
  const s = st.healStatus().scanner;
  assert.equal(s.enabled, true);
  assert.ok(s.objectsHealed >= 1);
  await st.close();
  const closed = st.healStatus().scanner;
  assert.equal(closed.enabled, false);
  assert.equal(closed.running, false);
  const res = await st.runScanCycle();
  assert.equal(res.completed, false, 'a closed storage runs no cycle');
});

/** A local drive that says it is remote (as a RemoteDrive of another node would). */
function asRemote(d: LocalDrive): Drive {
  return new Proxy(d, {
    get(target, prop) {
      if (prop === 'isLocal') return false;
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

test('a node scans only the sets whose first online drive it holds, unless asked for all sets', async (t) => {
  const c = await testCluster(2, 4, 2);
  t.after(() => c.cleanup());
  await Promise.all(c.sets.flat().map((p) => mkdir(p, { recursive: true })));
  // Set 0 starts with a drive of "another node", set 1 with a drive of this one.
  const drives = c.sets.map((s, si) => s.map((p, i) => (si === 0 && i === 0 ? asRemote(new LocalDrive(p)) : new LocalDrive(p))));
  const st = await c.open({ drives, scanner: false });
  await st.makeBucket('bkt');
  for (let i = 0; i < 20; i++) await put(st, 'bkt', `k${i}`, pattern(100, i));
  const own = await st.runScanCycle({ sampleEvery: 1 });
  assert.equal(own.setsScanned, 1);
  let inSet1 = 0;
  for (let i = 0; i < 20; i++) if (await hasRecord(c.sets[1]![1]!, 'bkt', `k${i}`)) inSet1++;
  assert.equal(own.objectsScanned, inSet1, 'only the keys of set 1');
  const all = await st.runScanCycle({ sampleEvery: 1, allSets: true });
  assert.equal(all.setsScanned, 2);
  assert.equal(all.objectsScanned, 20);
});

test('a set below read quorum is counted as an error and logged, not thrown', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const warnings: string[] = [];
  const st = await c.open({ scanner: false, logger: { info() {}, warn: (m) => warnings.push(m), error() {} } });
  await seed(st);
  for (const root of c.sets[0]!.slice(1)) await removeDriveDir(root);
  const res = await st.runScanCycle({ sampleEvery: 1 });
  assert.deepEqual(res, { cycle: 1, setsScanned: 1, objectsScanned: 0, healsQueued: 0, errors: 1, completed: true });
  assert.equal(st.healStatus().scanner.errors, 1);
  assert.ok(warnings.some((w) => w.startsWith('scanner cycle 1: 1 object(s) or bucket(s) not checked')), warnings.join('\n'));
});

test('bad scanner options are refused with a typed error', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  for (const bad of [{ sampleEvery: 0 }, { pauseMs: -1 }, { intervalMs: 1.5 }, { deep: 'yes' as unknown as boolean }]) {
    await assert.rejects(openStorage({ sets: c.sets, parity: 2, scanner: bad }), InvalidStorageConfigError);
  }
  const st = await c.open({ scanner: false });
  assert.throws(() => st.runScanCycle({ sampleEvery: 0 }), InvalidStorageConfigError);
  assert.throws(() => st.runScanCycle({ deep: 1 as unknown as boolean }), InvalidStorageConfigError);
});
