import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { journalLessDisk, powerCut, settle, type Disk } from '../../../test/helpers/power-cut.js';
import { commitLogFor } from './commit-log.js';
import { FileNotFoundError, VolumeNotFoundError } from './drive-errors.js';
import { LocalDrive } from './local-drive.js';

/**
 * Issue 9, point 2: an object is durable once its commit returns. Each test cuts the power for real
 * (server/test/helpers/power-cut.ts) right after the drive answered, and opens the drive again from what reached the
 * device.
 */

type Cleanup = { after(fn: () => Promise<void>): void };

/** A fresh drive on its own journal-less ext4 image (power-cut.ts). */
async function freshDisk(t: Cleanup): Promise<{ disk: Disk; drive: LocalDrive }> {
  const disk = await journalLessDisk(t);
  const drive = new LocalDrive(rootOf(disk));
  await mkdir(rootOf(disk));
  await drive.writeFormat(Buffer.from('{}'));
  await drive.cleanTemp();
  await drive.makeVolume('b', Buffer.alloc(0));
  // What the tests commit must be the only thing not yet on the device.
  await settle(disk);
  return { disk, drive };
}

function rootOf(disk: Disk): string {
  return join(disk.mount, 'd');
}

/** The power cut, and the drive opened again as a new process opens it: cleanTemp replays the commit log. */
async function crash(t: Cleanup, disk: Disk): Promise<{ disk: Disk; drive: LocalDrive }> {
  const copy = await powerCut(t, disk);
  const drive = new LocalDrive(rootOf(copy));
  await drive.cleanTemp();
  return { disk: copy, drive };
}

async function writeShards(drive: LocalDrive, upload: string, dataDir: string, body: Buffer): Promise<string> {
  const w = await drive.createShardWriter(`tmp/${upload}/${dataDir}/part.1`);
  await w.write([body]);
  await w.close();
  return `tmp/${upload}/${dataDir}`;
}

async function readShard(drive: LocalDrive, key: string, dataDir: string, length: number): Promise<Buffer> {
  const r = await drive.openShardReader('b', key, dataDir, 'part.1');
  try {
    return await r.read(0, length);
  } finally {
    await r.close();
  }
}

const LONG = 'x'.repeat(300);

test('crash: a large object (data directory moved in) is there after a power cut right after its commit', async (t) => {
  const { disk, drive } = await freshDisk(t);
  const body = Buffer.alloc(256 * 1024, 7);
  const keys = ['top', 'deep/er/key', `${LONG}/leaf`];
  const dataDirs = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222', '33333333-3333-4333-8333-333333333333'];
  for (const [i, key] of keys.entries()) {
    const src = await writeShards(drive, `u${i}`, dataDirs[i]!, body);
    await drive.renameData('b', key, Buffer.from(`meta:${key}`), { srcDataPath: src, dataDir: dataDirs[i]! });
  }
  const after = await crash(t, disk);
  for (const [i, key] of keys.entries()) {
    assert.deepEqual(await after.drive.readMeta('b', key), Buffer.from(`meta:${key}`), key);
    assert.deepEqual(await readShard(after.drive, key, dataDirs[i]!, body.length), body, key);
  }
});

test('crash: a large object overwriting another is the new one after a power cut', async (t) => {
  const { disk, drive } = await freshDisk(t);
  const d1 = '44444444-4444-4444-8444-444444444444';
  const d2 = '55555555-5555-4555-8555-555555555555';
  await drive.renameData('b', 'k', Buffer.from('v1'), { srcDataPath: await writeShards(drive, 'u1', d1, Buffer.from('one')), dataDir: d1 });
  await settle(disk);
  await drive.renameData('b', 'k', Buffer.from('v2'), { srcDataPath: await writeShards(drive, 'u2', d2, Buffer.from('two')), dataDir: d2 });
  const after = await crash(t, disk);
  assert.deepEqual(await after.drive.readMeta('b', 'k'), Buffer.from('v2'));
  assert.equal((await readShard(after.drive, 'k', d2, 3)).toString(), 'two');
});

test('crash: small (inline) objects are there after a power cut, and after a second one once their log was replayed', async (t) => {
  const { disk, drive } = await freshDisk(t);
  const keys = ['s1', 'a/b/s2', `${LONG}/s3`];
  for (const key of keys) await drive.renameData('b', key, Buffer.from(`small:${key}`), { srcDataPath: null, dataDir: null });
  const first = await crash(t, disk);
  for (const key of keys) assert.deepEqual(await first.drive.readMeta('b', key), Buffer.from(`small:${key}`), key);
  // The replay deleted the old logs; a new commit starts a new log (its directory synced). A second cut now must
  // not lose what the replay wrote.
  await first.drive.renameData('b', 'later', Buffer.from('small:later'), { srcDataPath: null, dataDir: null });
  const second = await crash(t, first.disk);
  for (const key of [...keys, 'later']) assert.deepEqual(await second.drive.readMeta('b', key), Buffer.from(`small:${key}`), key);
});

test('crash: after a checkpoint the objects are in their files; a reused log replays none of its earlier records', async (t) => {
  const { disk, drive } = await freshDisk(t);
  const log = commitLogFor(rootOf(disk), join(rootOf(disk), '.svc.sys'), async () => { throw new Error('not the first instance'); });
  // One size for all: the new record ends exactly where an earlier one starts, intact.
  const meta = (k: string): Buffer => Buffer.from(`small:${k}:${'x'.repeat(300)}`);
  const keys = ['k1', 'k2', 'k3', 'k4'];
  for (const k of keys) await drive.renameData('b', k, meta(k), { srcDataPath: null, dataDir: null });
  await log.checkpoint();
  const voided = await crash(t, disk);
  for (const k of keys) assert.deepEqual(await voided.drive.readMeta('b', k), meta(k), `${k}, synced by the checkpoint`);
  for (const k of keys) await drive.deleteObject('b', k);
  await drive.renameData('b', 'k5', meta('k5'), { srcDataPath: null, dataDir: null });
  const reused = await crash(t, disk);
  assert.deepEqual(await reused.drive.readMeta('b', 'k5'), meta('k5'));
  for (const k of keys) await assert.rejects(reused.drive.readMeta('b', k), FileNotFoundError, `${k} stays deleted`);
});

test('crash: buckets made just before a power cut are there, an empty one and one with an object', async (t) => {
  const { disk, drive } = await freshDisk(t);
  await drive.makeVolume('empty', Buffer.from('empty-meta'));
  await drive.makeVolume('fresh', Buffer.from('bucket-meta'));
  const d = '66666666-6666-4666-8666-666666666666';
  const w = await drive.createShardWriter(`tmp/u/${d}/part.1`);
  await w.write([Buffer.from('in-fresh')]);
  await w.close();
  await drive.renameData('fresh', 'k', Buffer.from('m'), { srcDataPath: `tmp/u/${d}`, dataDir: d });
  const after = await crash(t, disk);
  assert.deepEqual(await after.drive.statVolume('empty'), Buffer.from('empty-meta'));
  assert.deepEqual(await after.drive.statVolume('fresh'), Buffer.from('bucket-meta'));
  assert.deepEqual(await after.drive.readMeta('fresh', 'k'), Buffer.from('m'));
});

test('crash: deleted objects and buckets stay deleted after a power cut', async (t) => {
  const { disk, drive } = await freshDisk(t);
  const d = '77777777-7777-4777-8777-777777777777';
  await drive.renameData('b', 'large', Buffer.from('m'), { srcDataPath: await writeShards(drive, 'u', d, Buffer.from('x')), dataDir: d });
  for (const key of ['small', 'a/b/small', 'kept']) await drive.renameData('b', key, Buffer.from(key), { srcDataPath: null, dataDir: null });
  await drive.makeVolume('gone', Buffer.alloc(0));
  // On the device, as after a checkpoint: only the deletes are not.
  await settle(disk);
  for (const key of ['large', 'small', 'a/b/small']) await drive.deleteObject('b', key);
  await drive.deleteVolume('gone');
  const after = await crash(t, disk);
  for (const key of ['large', 'small', 'a/b/small']) await assert.rejects(after.drive.readMeta('b', key), FileNotFoundError, key);
  assert.deepEqual(await after.drive.readMeta('b', 'kept'), Buffer.from('kept'));
  await assert.rejects(after.drive.statVolume('gone'), VolumeNotFoundError);
});

test('crash: a multipart upload and its parts are there after a power cut, and so is a freshly formatted drive', async (t) => {
  const { disk, drive } = await freshDisk(t);
  const blank = join(disk.mount, 'blank');
  await mkdir(blank);
  await settle(disk);
  await drive.writeSysFile('multipart/up1/upload.meta', Buffer.from('upload'));
  const w = await drive.createShardWriter('tmp/p1/part.1');
  await w.write([Buffer.from('part-bytes')]);
  await w.close();
  await drive.renameSys('tmp/p1/part.1', 'multipart/up1/parts/part.1');
  await drive.writeSysFile('multipart/up1/part.1.meta', Buffer.from('part-meta'));
  await new LocalDrive(blank).writeFormat(Buffer.from('{"f":1}'));
  const after = await crash(t, disk);
  assert.deepEqual(await after.drive.readSysFile('multipart/up1/upload.meta'), Buffer.from('upload'));
  assert.deepEqual(await after.drive.readSysFile('multipart/up1/part.1.meta'), Buffer.from('part-meta'));
  assert.deepEqual(await after.drive.readSysFile('multipart/up1/parts/part.1'), Buffer.from('part-bytes'));
  const reformatted = new LocalDrive(join(after.disk.mount, 'blank'));
  assert.deepEqual(await reformatted.readFormat(), Buffer.from('{"f":1}'));
  await reformatted.cleanTemp();
});
