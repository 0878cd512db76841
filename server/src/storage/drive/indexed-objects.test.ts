import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskNotFoundError, FileNotFoundError, InvalidDrivePathError, UnformattedDiskError, VolumeNotFoundError } from './drive-errors.js';
import { LocalDrive } from './local-drive.js';
import { keyIndexWanted, setKeyIndexForNewDrives } from './indexed-objects.js';
import { VOLUME_META_FILE, encodeSegment } from './object-path.js';

/** A drive formatted with the key-index layout (indexed-objects.ts). */
async function indexed(t: { after(fn: () => Promise<void>): void }): Promise<{ root: string; drive: LocalDrive }> {
  const root = await mkdtemp(join(tmpdir(), 'svc-indexed-'));
  t.after(() => rm(root, { recursive: true, force: true, maxRetries: 5 }));
  const drive = new LocalDrive(root);
  await formatIndexed(drive);
  return { root, drive };
}

async function formatIndexed(drive: LocalDrive): Promise<void> {
  const before = keyIndexWanted();
  setKeyIndexForNewDrives(true);
  try {
    await drive.writeFormat(Buffer.from('{}'));
  } finally {
    setKeyIndexForNewDrives(before);
  }
}

const noData = { srcDataPath: null, dataDir: null };

test('a key-index drive keeps records in its index: no file per key, reads, listings and deletes as the Drive contract says', async (t) => {
  const { root, drive } = await indexed(t);
  assert.ok((await readdir(join(root, '.svc.sys'))).includes('index'));
  await assert.rejects(drive.renameData('b', 'k', Buffer.from('m'), noData), VolumeNotFoundError);
  await drive.makeVolume('b', Buffer.from('rec'));
  const long = 'x'.repeat(400);
  for (const key of ['a/b', 'a', `${long}/c`, 'é/ü']) await drive.renameData('b', key, Buffer.from(`meta:${key}`), noData);
  assert.deepEqual(await readdir(join(root, 'b')), [VOLUME_META_FILE], 'no directory or file per inline key');
  for (const key of ['a/b', 'a', `${long}/c`, 'é/ü']) assert.deepEqual(await drive.readMeta('b', key), Buffer.from(`meta:${key}`));
  await assert.rejects(drive.readMeta('b', 'absent'), FileNotFoundError);
  assert.deepEqual(await drive.listDir('b', ''), ['a', long, 'é']);
  assert.deepEqual((await drive.scanDir('b', 'a/', null)).names, ['b']);
  const states = await drive.readChildren('b', '', ['a', long, 'zz'], true);
  assert.deepEqual(states.map((s) => [s.meta?.toString() ?? null, s.children]), [['meta:a', true], [null, true], [null, false]]);
  // returnPrevious answers the replaced record.
  assert.deepEqual(await drive.renameData('b', 'a', Buffer.from('meta:a2'), { ...noData, returnPrevious: true }), Buffer.from('meta:a'));
  await drive.deleteObject('b', 'a');
  await assert.rejects(drive.readMeta('b', 'a'), FileNotFoundError);
  assert.deepEqual(await drive.readMeta('b', 'a/b'), Buffer.from('meta:a/b'));
  await assert.rejects(drive.listDir('nope', ''), VolumeNotFoundError);
});

test('a key-index drive moves large objects\' data in, drops what an overwrite no longer references, and survives a reopen', async (t) => {
  const { root, drive } = await indexed(t);
  await drive.makeVolume('b', Buffer.alloc(0));
  const dataDir = 'aaaaaaaa-0000-4000-8000-000000000001';
  const src = 'tmp/upload-1';
  await mkdir(join(root, '.svc.sys', src), { recursive: true });
  await writeFile(join(root, '.svc.sys', src, 'part.1'), 'shard');
  await drive.renameData('b', 'big', Buffer.from('meta:big'), { srcDataPath: src, dataDir });
  assert.deepEqual(await readdir(join(root, 'b', encodeSegment('big').name)), [dataDir], 'the data directory, no metadata file');
  const reader = await drive.openShardReader('b', 'big', dataDir, 'part.1');
  assert.equal((await reader.read(0, 5)).toString(), 'shard');
  await reader.close();
  // An inline overwrite: the old data directory goes once the new record is in.
  await drive.renameData('b', 'big', Buffer.from('meta:small'), noData);
  assert.deepEqual(await readdir(join(root, 'b', encodeSegment('big').name)), []);
  await drive.deleteObject('b', 'big');
  await assert.rejects(drive.readMeta('b', 'big'), FileNotFoundError);
  await drive.renameData('b', 'kept', Buffer.from('meta:kept'), noData);
  // Another LocalDrive on the same root (a restart of the process's view): the index answers the same.
  const again = new LocalDrive(root);
  assert.deepEqual(await again.readMeta('b', 'kept'), Buffer.from('meta:kept'));
  await drive.deleteVolume('b');
  await drive.makeVolume('b', Buffer.alloc(0));
  await assert.rejects(drive.readMeta('b', 'kept'), FileNotFoundError, 'a deleted bucket\'s records are gone');
});

test('a key-index drive stamps its listings: unchanged children and directories are vouched for until a key under them changes', async (t) => {
  const { drive } = await indexed(t);
  await drive.makeVolume('b', Buffer.alloc(0));
  for (const key of ['d/1', 'd/2', 'd/sub/3']) await drive.renameData('b', key, Buffer.from(`meta:${key}`), noData);
  const scan = await drive.scanDir('b', 'd/', null);
  assert.deepEqual(scan.names, ['1', '2', 'sub']);
  assert.ok(scan.stamp !== null);
  assert.deepEqual(await drive.scanDir('b', 'd/', scan.stamp), { names: null, stamp: scan.stamp }, 'unchanged: vouched');
  assert.equal((await drive.scanDir('b', '', null)).stamp, null, 'the top level is never vouched for');
  const first = await drive.readChildren('b', 'd/', ['1', '2'], true);
  const again = await drive.readChildren('b', 'd/', ['1', '2'], true, first.map((c) => c.stamp ?? null));
  assert.deepEqual(again.map((c) => c.same === true), [true, true]);
  await drive.renameData('b', 'd/2', Buffer.from('meta:d/2 v2'), noData);
  const after = await drive.readChildren('b', 'd/', ['1', '2'], true, first.map((c) => c.stamp ?? null));
  assert.deepEqual(after.map((c) => c.same === true), [true, false]);
  assert.deepEqual(after[1]!.meta, Buffer.from('meta:d/2 v2'));
  assert.deepEqual((await drive.scanDir('b', 'd/', scan.stamp)).names, ['1', '2', 'sub'], 'a change under d/ voids its stamp');
});

test('a key-index drive wiped under a running server answers the drive\'s error, and starts empty once formatted again', async (t) => {
  const { root, drive } = await indexed(t);
  await drive.makeVolume('b', Buffer.alloc(0));
  await drive.renameData('b', 'k', Buffer.from('meta:k'), noData);
  for (const n of await readdir(root)) await rm(join(root, n), { recursive: true, force: true, maxRetries: 5 });
  await assert.rejects(drive.renameData('b', 'k2', Buffer.from('m'), noData), UnformattedDiskError, 'no write lands in removed files');
  await assert.rejects(drive.readMeta('b', 'k'), UnformattedDiskError);
  await assert.rejects(drive.listDir('b', ''), UnformattedDiskError);
  await formatIndexed(drive);
  await drive.makeVolume('b', Buffer.alloc(0));
  await assert.rejects(drive.readMeta('b', 'k'), FileNotFoundError, 'the old index is not read again');
  await drive.renameData('b', 'k', Buffer.from('meta:new'), noData);
  assert.deepEqual(await drive.readMeta('b', 'k'), Buffer.from('meta:new'));
  await assert.rejects(drive.readChildren('b', 'd', ['a'], true), InvalidDrivePathError);
});

test('a key-index drive whose root was moved away answers that the drive is gone: no read or commit reaches the moved files', async (t) => {
  const { root, drive } = await indexed(t);
  t.after(() => rm(`${root}.away`, { recursive: true, force: true, maxRetries: 5 }));
  await drive.makeVolume('b', Buffer.alloc(0));
  await drive.renameData('b', 'k', Buffer.from('meta:k'), noData);
  assert.deepEqual(await drive.readMeta('b', 'k'), Buffer.from('meta:k'));
  // The index's files stay linked (a rename, as a lazy unmount or a disk swapped in would leave them): only their path
  // tells that the drive is not there any more.
  await rename(root, `${root}.away`);
  await assert.rejects(drive.readMeta('b', 'k'), DiskNotFoundError);
  await assert.rejects(drive.renameData('b', 'k2', Buffer.from('m'), noData), DiskNotFoundError, 'no commit lands in the moved index');
  await assert.rejects(drive.listDir('b', ''), DiskNotFoundError);
});

test('a key-index drive\'s listing calls of one moment all answer, and a bucket deleted or made here is seen by the next call', async (t) => {
  const { root, drive } = await indexed(t);
  await drive.makeVolume('b', Buffer.alloc(0));
  await drive.renameData('b', 'k', Buffer.from('m'), noData);
  const all = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0
    ? drive.readChildren('b', '', ['k'], true).then((s) => s[0]!.meta?.toString())
    : drive.scanDir('b', '', null).then((s) => s.names?.join()))));
  assert.deepEqual(all, Array.from({ length: 20 }, () => ['m', 'k']).flat().slice(0, 20));
  // A listing call in flight as the bucket goes: its answer may go either way.
  const inFlight = drive.scanDir('b', '', null).catch(() => undefined);
  await drive.deleteVolume('b');
  await inFlight;
  await assert.rejects(drive.scanDir('b', '', null), VolumeNotFoundError);
  await assert.rejects(drive.readChildren('b', '', ['k'], true), VolumeNotFoundError);
  await drive.makeVolume('b', Buffer.alloc(0));
  assert.deepEqual((await drive.scanDir('b', '', null)).names, []);
  // Removed behind the drive's back: seen by the calls of a later moment.
  await rm(join(root, 'b'), { recursive: true });
  await assert.rejects(drive.listDir('b', ''), VolumeNotFoundError);
});
