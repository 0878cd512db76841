import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DiskNotFoundError, FileNotFoundError, InvalidDrivePathError, UnformattedDiskError, VolumeExistsError, VolumeNotFoundError,
} from './drive-errors.js';
import { ioPoolSaturated, runIoJob, warmIoPool } from './io-pool.js';
import { LocalDrive } from './local-drive.js';
import { encodeSegment } from './object-path.js';
import { pinMetadataFileLayout, removeDriveDir, usesKeyIndex } from '../../../test/helpers/drive-records.js';
import { objectDir } from '../../../test/helpers/drive-files.js';

async function fresh(t: { after(fn: () => Promise<void>): void }): Promise<{ root: string; drive: LocalDrive }> {
  const root = await mkdtemp(join(tmpdir(), 'svc-drive-'));
  t.after(() => rm(root, { recursive: true, force: true, maxRetries: 5 }));
  const drive = new LocalDrive(root);
  await drive.writeFormat(Buffer.from('{}'));
  return { root, drive };
}

/** What the directory of key `key` of bucket `b` holds, sorted; nothing when it is gone. */
async function keyDirHolds(root: string, key: string): Promise<string[]> {
  const names = await readdir(objectDir(root, 'b', key)).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[];
    throw err;
  });
  return names.sort();
}

/**
 * What a key's directory should hold: its data directories, and on the metadata-file layout its metadata file (the key
 * index keeps records elsewhere).
 */
function keyDirWith(root: string, dataDirs: readonly string[]): string[] {
  return [...dataDirs, ...(usesKeyIndex(root) ? [] : ['xl.meta'])].sort();
}

test('a missing root is DiskNotFound, an empty root is Unformatted, for every kind of call', async (t) => {
  const { root, drive } = await fresh(t);
  await drive.makeVolume('b', Buffer.alloc(0));
  await removeDriveDir(join(root, '.svc.sys'));
  await assert.rejects(drive.readFormat(), UnformattedDiskError);
  await assert.rejects(drive.readMeta('b', 'k'), UnformattedDiskError);
  await assert.rejects(drive.createShardWriter('tmp/x/part.1'), UnformattedDiskError);
  await assert.rejects(drive.renameData('b', 'k', Buffer.from('m'), { srcDataPath: null, dataDir: null }), UnformattedDiskError);
  await removeDriveDir(root);
  await assert.rejects(drive.readFormat(), DiskNotFoundError);
  await assert.rejects(drive.listDir('b', ''), DiskNotFoundError);
  await assert.rejects(drive.readMeta('b', 'k'), DiskNotFoundError);
  await assert.rejects(drive.listVolumes(), DiskNotFoundError);
  await assert.rejects(drive.renameData('b', 'k', Buffer.from('m'), { srcDataPath: null, dataDir: null }), DiskNotFoundError);
  assert.deepEqual(await readdir(tmpdir()).then((n) => n.includes(root.split('/').pop()!)), false, 'the root was not recreated');
});

test('volumes, metadata commit, listing and delete with pruning', async (t) => {
  const { root, drive } = await fresh(t);
  await drive.makeVolume('b', Buffer.from('rec'));
  await assert.rejects(drive.makeVolume('b', Buffer.alloc(0)), VolumeExistsError);
  assert.deepEqual(await drive.statVolume('b'), Buffer.from('rec'));
  await assert.rejects(drive.statVolume('nope'), VolumeNotFoundError);
  await assert.rejects(drive.renameData('nope', 'k', Buffer.from('m'), { srcDataPath: null, dataDir: null }), VolumeNotFoundError);
  assert.deepEqual(await readdir(root).then((n) => n.sort()), ['.svc.sys', 'b']);
  const long = 'x'.repeat(400);
  for (const key of ['a/b', 'a', `${long}/c`, '..', '']) {
    if (key === '') continue;
    await drive.renameData('b', key, Buffer.from(`meta:${key}`), { srcDataPath: null, dataDir: null });
    assert.deepEqual(await drive.readMeta('b', key), Buffer.from(`meta:${key}`));
  }
  assert.deepEqual((await drive.listDir('b', '')).sort(), ['..', 'a', long].sort());
  assert.deepEqual(await drive.listDir('b', `${long}/`), ['c']);
  await drive.deleteObject('b', `${long}/c`);
  await assert.rejects(drive.readMeta('b', `${long}/c`), FileNotFoundError);
  assert.equal((await readdir(join(root, 'b'))).includes(encodeSegment(long).name), false, 'empty hashed directory pruned');
  await drive.deleteObject('b', 'a');
  assert.deepEqual(await drive.readMeta('b', 'a/b'), Buffer.from('meta:a/b'));
  await drive.deleteObject('b', 'missing/key');
});

test('data directories are moved in, replaced atomically and stale ones removed', async (t) => {
  const { root, drive } = await fresh(t);
  await drive.makeVolume('b', Buffer.alloc(0));
  const d1 = '11111111-1111-4111-8111-111111111111';
  const d2 = '22222222-2222-4222-8222-222222222222';
  const w = await drive.createShardWriter(`tmp/t1/${d1}/part.1`);
  await w.write([Buffer.from('hash'), Buffer.from('data')]);
  await w.close();
  await drive.renameData('b', 'k', Buffer.from('v1'), { srcDataPath: `tmp/t1/${d1}`, dataDir: d1 });
  const r = await drive.openShardReader('b', 'k', d1, 'part.1');
  assert.equal((await r.read(4, 4)).toString(), 'data');
  await r.close();
  const w2 = await drive.createShardWriter(`tmp/t2/${d2}/part.1`);
  await w2.write([Buffer.from('xx')]);
  await w2.close();
  await drive.renameData('b', 'k', Buffer.from('v2'), { srcDataPath: `tmp/t2/${d2}`, dataDir: d2 });
  assert.deepEqual(await keyDirHolds(root, 'k'), keyDirWith(root, [d2]));
  await assert.rejects(drive.openShardReader('b', 'k', d1, 'part.1'), FileNotFoundError);
});

test('returnPrevious: a commit hands back the record it replaced and leaves every data directory to the caller', async (t) => {
  const { root, drive } = await fresh(t);
  await drive.makeVolume('b', Buffer.alloc(0));
  const ask = { srcDataPath: null, dataDir: null, returnPrevious: true };
  // Inline commits (through the commit log and an I/O worker).
  assert.equal(await drive.renameData('b', 'k', Buffer.from('v1'), ask), null, 'a new key had no record');
  assert.deepEqual(await drive.renameData('b', 'k', Buffer.from('v2'), ask), Buffer.from('v1'));
  assert.equal(await drive.renameData('b', 'k', Buffer.from('v3'), { srcDataPath: null, dataDir: null }), null, 'not asked');
  assert.deepEqual(await drive.readMeta('b', 'k'), Buffer.from('v3'));
  // Commits moving a data directory in.
  const dirs = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222'];
  for (const [i, d] of dirs.entries()) {
    const w = await drive.createShardWriter(`tmp/t${i}/${d}/part.1`);
    await w.write([Buffer.from(`data${i}`)]);
    await w.close();
    const previous = await drive.renameData('b', 'big', Buffer.from(`w${i}`), { srcDataPath: `tmp/t${i}/${d}`, dataDir: d, keepDataDirs: [d], returnPrevious: true });
    assert.deepEqual(previous, i === 0 ? null : Buffer.from('w0'));
  }
  assert.deepEqual(await keyDirHolds(root, 'big'), keyDirWith(root, dirs), 'the replaced data stays, whatever keepDataDirs says');
  // An inline record replacing one with data: the data stays too, until the caller's rewrite drops it.
  assert.deepEqual(await drive.renameData('b', 'big', Buffer.from('small'), { ...ask, keepDataDirs: [] }), Buffer.from('w1'));
  assert.deepEqual(await keyDirHolds(root, 'big'), keyDirWith(root, dirs));
  await drive.renameData('b', 'big', Buffer.from('small'), { srcDataPath: null, dataDir: null, keepDataDirs: [] });
  assert.deepEqual(await keyDirHolds(root, 'big'), keyDirWith(root, []));
});

test('committed: the clean-up after an overwrite drops the data directories keepDataDirs does not name and writes no record', async (t) => {
  const { root, drive } = await fresh(t);
  await drive.makeVolume('b', Buffer.alloc(0));
  const dirs = ['33333333-3333-4333-8333-333333333333', '44444444-4444-4444-8444-444444444444', '55555555-5555-4555-8555-555555555555'];
  for (const [i, d] of dirs.entries()) {
    const w = await drive.createShardWriter(`tmp/c${i}/${d}/part.1`);
    await w.write([Buffer.from(`data${i}`)]);
    await w.close();
    await drive.renameData('b', 'big', Buffer.from(`w${i}`), { srcDataPath: `tmp/c${i}/${d}`, dataDir: d, keepDataDirs: [d], returnPrevious: true });
  }
  assert.deepEqual(await keyDirHolds(root, 'big'), keyDirWith(root, dirs));
  // The record given is not written (other bytes here show it): the drive keeps the one it committed.
  assert.equal(await drive.renameData('b', 'big', Buffer.from('not written'), { srcDataPath: null, dataDir: null, keepDataDirs: [dirs[0]!, dirs[2]!], committed: true }), null);
  assert.deepEqual(await drive.readMeta('b', 'big'), Buffer.from('w2'));
  assert.deepEqual(await keyDirHolds(root, 'big'), keyDirWith(root, [dirs[0]!, dirs[2]!]));
  await drive.renameData('b', 'big', Buffer.from('not written'), { srcDataPath: null, dataDir: dirs[2]!, keepDataDirs: [], committed: true });
  assert.deepEqual(await keyDirHolds(root, 'big'), keyDirWith(root, [dirs[2]!]), 'dataDir is kept too');
  assert.deepEqual(await drive.readMeta('b', 'big'), Buffer.from('w2'));
  // A key gone meanwhile (deleted by hand): nothing to drop, no error.
  await drive.renameData('b', 'gone', Buffer.from('x'), { srcDataPath: null, dataDir: null, keepDataDirs: [], committed: true });
  await assert.rejects(drive.readMeta('b', 'gone'), FileNotFoundError);
});

test('names that would escape the drive are refused', async (t) => {
  const { drive } = await fresh(t);
  await assert.rejects(drive.makeVolume('..', Buffer.alloc(0)), InvalidDrivePathError);
  await assert.rejects(drive.makeVolume('.svc.sys', Buffer.alloc(0)), InvalidDrivePathError);
  await assert.rejects(drive.readSysFile('../format.json'), InvalidDrivePathError);
  await assert.rejects(drive.openShardReader('b', 'k', '../../x', 'part.1'), InvalidDrivePathError);
  await assert.rejects(drive.listSysDir('tmp/../..'), InvalidDrivePathError);
});

test('cleanTemp(olderThanMs) keeps temp entries written within the grace period (peers write there) and removes older ones', async (t) => {
  const { root, drive } = await fresh(t);
  await drive.writeFormat(Buffer.from('{}'));
  const tmp = join(root, '.svc.sys', 'tmp');
  const { mkdir, utimes, writeFile } = await import('node:fs/promises');
  await mkdir(join(tmp, 'old-upload'));
  await writeFile(join(tmp, 'old-upload', 'part.1'), 'x');
  await writeFile(join(tmp, 'fresh.part'), 'y');
  const hourAgo = new Date(Date.now() - 3_600_000);
  await utimes(join(tmp, 'old-upload'), hourAgo, hourAgo);
  await drive.cleanTemp(600_000);
  assert.deepEqual((await readdir(tmp)).sort(), ['fresh.part']);
  await drive.cleanTemp();
  assert.deepEqual(await readdir(tmp), []);
});

test('readChildren: metadata and "has deeper keys" of many children in one call; bad names are refused', async (t) => {
  const { root, drive } = await fresh(t);
  await drive.makeVolume('b', Buffer.alloc(0));
  const long = 'y'.repeat(300);
  for (const key of ['d/a', 'd/b/c', 'd/e', 'd/e/f', `d/${long}`]) {
    await drive.renameData('b', key, Buffer.from(`meta:${key}`), { srcDataPath: null, dataDir: null });
  }
  const got = await drive.readChildren('b', 'd/', ['a', 'b', 'e', 'nope', long], true);
  assert.deepEqual(got.map((c) => [c.meta?.toString() ?? null, c.children, c.error]), [
    ['meta:d/a', false, undefined], [null, true, undefined], ['meta:d/e', true, undefined], [null, false, undefined],
    [`meta:d/${long}`, false, undefined],
  ]);
  const bare = await drive.readChildren('b', 'd/', ['a', 'b'], false);
  assert.deepEqual(bare.map((c) => [c.meta, c.children]), [[null, false], [null, true]]);
  assert.deepEqual((await drive.readChildren('b', 'missing/', ['a'], true)).map((c) => c.meta), [null]);
  await assert.rejects(drive.readChildren('b', 'd/', ['x/y'], true), InvalidDrivePathError);
  await assert.rejects(drive.readChildren('b', 'd', ['a'], true), InvalidDrivePathError);
  await removeDriveDir(root);
  await assert.rejects(drive.readChildren('b', 'd/', ['a'], true), DiskNotFoundError);
});

test('readChildren: a stamp passed back answers unchanged children without reading them, until they change', async (t) => {
  const { drive } = await fresh(t);
  await drive.makeVolume('b', Buffer.alloc(0));
  for (const key of ['d/a', 'd/b', 'd/c']) await drive.renameData('b', key, Buffer.from(`meta:${key}`), { srcDataPath: null, dataDir: null });
  const names = ['a', 'b', 'c', 'nope'];
  const first = await drive.readChildren('b', 'd/', names, true);
  assert.ok(first.every((c) => typeof c.stamp === 'string' && c.same === undefined));
  const stamps = first.map((c) => c.stamp!);
  const again = await drive.readChildren('b', 'd/', names, true, stamps);
  assert.deepEqual(again.map((c) => [c.same, c.meta]), names.map(() => [true, null]));
  // Overwritten, deleted, created, and given a deeper key: each is read again; the untouched one is not.
  await drive.renameData('b', 'd/a', Buffer.from('meta:d/a v2'), { srcDataPath: null, dataDir: null });
  await drive.deleteObject('b', 'd/b');
  await drive.renameData('b', 'd/nope', Buffer.from('meta:d/nope'), { srcDataPath: null, dataDir: null });
  const after = await drive.readChildren('b', 'd/', names, true, stamps);
  assert.deepEqual(after.map((c) => [c.same ?? false, c.meta?.toString() ?? null]), [
    [false, 'meta:d/a v2'], [false, null], [true, null], [false, 'meta:d/nope'],
  ]);
  const now = after.map((c, i) => c.stamp ?? stamps[i]!);
  await drive.renameData('b', 'd/c/deeper', Buffer.from('m'), { srcDataPath: null, dataDir: null });
  const deeper = await drive.readChildren('b', 'd/', ['c'], true, [now[2]!]);
  assert.deepEqual(deeper.map((c) => [c.same ?? false, c.meta?.toString(), c.children]), [[false, 'meta:d/c', true]]);
  // Without metadata there are no stamps; malformed stamps are refused.
  assert.ok((await drive.readChildren('b', 'd/', names, false, stamps)).every((c) => c.stamp === undefined && c.same === undefined));
  await assert.rejects(drive.readChildren('b', 'd/', names, true, ['x']), InvalidDrivePathError);
  await assert.rejects(drive.readChildren('b', 'd/', ['a'], true, [7 as unknown as string]), InvalidDrivePathError);
});

test('readChildren: a key directory removed by hand voids the stamps of what it held', async (t) => {
  // About the metadata-file layout's key directories (the walk notices one gone): pinned to it on both passes of the suite;
  // the key index keeps no directory per record (its own tests: key-index/, indexed-objects.test.ts).
  pinMetadataFileLayout(t);
  const { root, drive } = await fresh(t);
  await drive.makeVolume('b', Buffer.alloc(0));
  await drive.renameData('b', 'd/c', Buffer.from('meta:d/c'), { srcDataPath: null, dataDir: null });
  const kept = (await drive.readChildren('b', 'd/', ['c'], true)).map((c) => c.stamp!);
  const vouched = await drive.readChildren('b', 'd/', ['c'], true, kept);
  assert.deepEqual(vouched.map((c) => [c.same ?? false, c.meta]), [[true, null]], 'vouched for while the directory is there');
  await rm(join(root, 'b', '+d'), { recursive: true });
  assert.deepEqual((await drive.readChildren('b', 'd/', ['c'], true, kept)).map((c) => [c.same ?? false, c.meta]), [[false, null]]);
});

test('scanDir: the names of listDir plus a stamp that vouches for them until the directory changes', async (t) => {
  const { root, drive } = await fresh(t);
  await drive.makeVolume('b', Buffer.alloc(0));
  const long = 'z'.repeat(300);
  for (const key of ['d/a', 'd/b/c', `d/${long}`]) await drive.renameData('b', key, Buffer.from('m'), { srcDataPath: null, dataDir: null });
  let scan = await drive.scanDir('b', 'd/', null);
  assert.deepEqual(scan.names?.sort(), ['a', 'b', long].sort());
  assert.deepEqual(scan.names?.sort(), (await drive.listDir('b', 'd/')).sort());
  // The stamp is given once the directory has settled (no change within the last clock ticks).
  for (let i = 0; i < 100 && scan.stamp === null; i++) {
    await new Promise((r) => setTimeout(r, 25));
    scan = await drive.scanDir('b', 'd/', null);
  }
  assert.notEqual(scan.stamp, null);
  assert.deepEqual(await drive.scanDir('b', 'd/', scan.stamp), { names: null, stamp: scan.stamp });
  await drive.renameData('b', 'd/new', Buffer.from('m'), { srcDataPath: null, dataDir: null });
  assert.deepEqual((await drive.scanDir('b', 'd/', scan.stamp)).names?.sort(), ['a', 'b', long, 'new'].sort());
  await drive.deleteObject('b', 'd/a');
  assert.deepEqual((await drive.scanDir('b', 'd/', scan.stamp)).names?.sort(), ['b', long, 'new'].sort());
  // An absent directory has no names. A directory walk has nothing to stamp; the key index's stamp is its change log's
  // position (indexed-listing.ts), which vouches for the absence until a key is made under it.
  const absent = await drive.scanDir('b', 'nothing/', null);
  if (!usesKeyIndex(root)) {
    assert.deepEqual(absent, { names: [], stamp: null });
  } else {
    assert.deepEqual(absent.names, []);
    assert.notEqual(absent.stamp, null);
    assert.deepEqual(await drive.scanDir('b', 'nothing/', absent.stamp), { names: null, stamp: absent.stamp });
    await drive.renameData('b', 'nothing/k', Buffer.from('m'), { srcDataPath: null, dataDir: null });
    assert.deepEqual((await drive.scanDir('b', 'nothing/', absent.stamp)).names, ['k']);
  }
  await assert.rejects(drive.scanDir('nope', '', null), VolumeNotFoundError);
  await assert.rejects(drive.scanDir('b', 'd', null), InvalidDrivePathError);
});

test('with the I/O workers backed up, metadata reads go through libuv and map errors the same way', async (t) => {
  const { root, drive } = await fresh(t);
  await drive.makeVolume('b', Buffer.alloc(0));
  await drive.renameData('b', 'k', Buffer.from('meta'), { srcDataPath: null, dataDir: null });
  // Reads of a FIFO without a writer block: enough of them on every worker saturate the pool.
  const fifo = join(root, 'hung');
  execFileSync('mkfifo', [fifo]);
  warmIoPool();
  const hung: Promise<unknown>[] = [];
  for (let i = 0; i < 4; i++) {
    hung.push(runIoJob({ op: 'read', path: fifo }));
    // Reads asked for in one turn share a message (io-pool.ts): one turn each spreads them over the workers.
    await new Promise((r) => setImmediate(r));
  }
  // Backed up is a matter of time (io-pool.ts BACKLOG_MS): the oldest job of each worker waits long enough.
  for (let i = 0; i < 200 && !ioPoolSaturated(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(ioPoolSaturated(), true);
  const t0 = performance.now();
  assert.deepEqual(await drive.readMeta('b', 'k'), Buffer.from('meta'));
  await assert.rejects(drive.readMeta('b', 'absent'), FileNotFoundError);
  assert.ok(performance.now() - t0 < 5_000, 'answered without waiting for the workers (they never answer)');
  await rm(join(root, '.svc.sys', 'format.json'));
  await assert.rejects(drive.readMeta('b', 'absent'), UnformattedDiskError, 'the root is still checked on this path');
  // Release the workers: each writer that comes and goes ends the read blocked at that moment.
  let settled = false;
  void Promise.allSettled(hung).then(() => { settled = true; });
  while (!settled) {
    try { closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK)); } catch { /* no reader yet */ }
    await new Promise((r) => setTimeout(r, 2));
  }
  assert.equal(ioPoolSaturated(), false);
});
