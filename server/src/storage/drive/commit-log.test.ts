import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, open, readdir, readFile, rm, stat, truncate, unlink, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants } from 'node:fs';
import { KEPT_FILE_MAX_BYTES, LogFile, commitLogFor } from './commit-log.js';
import { decodeRecords, encodeRecord, encodeUseHeader, recordsToReplay } from './commit-log-record.js';
import { fillFileSystem } from '../../../test/helpers/fill-disk.js';
import { DiskFullError, FileNotFoundError } from './drive-errors.js';
import { pinMetadataFileLayout } from '../../../test/helpers/drive-records.js';
import { LocalDrive } from './local-drive.js';

// These tests are about the metadata-file layout's commit log and its replay, so their drives get that layout
// on both passes of the suite; the key-index layout has its own tests in key-index/ and indexed-objects.test.ts.
pinMetadataFileLayout(after);

const INLINE = { srcDataPath: null, dataDir: null } as const;

async function fresh(t: { after(fn: () => Promise<void>): void }): Promise<{ root: string; drive: LocalDrive }> {
  const root = await mkdtemp(join(tmpdir(), 'svc-commit-log-'));
  t.after(() => rm(root, { recursive: true, force: true, maxRetries: 5 }));
  const drive = new LocalDrive(root);
  await drive.writeFormat(Buffer.from('{}'));
  await drive.cleanTemp();
  await drive.makeVolume('b', Buffer.alloc(0));
  return { root, drive };
}

/**
 * What the next process finds after a crash: the drive's files as they are now, under a new root (a new root is a
 * new commit log, as in a new process), opened the way openStorage opens a drive (cleanTemp replays the logs).
 */
async function afterCrash(t: { after(fn: () => Promise<void>): void }, root: string, lose: (copy: string) => Promise<void>): Promise<LocalDrive> {
  const copy = await mkdtemp(join(tmpdir(), 'svc-commit-log-crash-'));
  t.after(() => rm(copy, { recursive: true, force: true, maxRetries: 5 }));
  await cp(root, copy, { recursive: true });
  await lose(copy);
  const drive = new LocalDrive(copy);
  await drive.cleanTemp();
  return drive;
}

async function logNames(root: string): Promise<string[]> {
  return (await readdir(join(root, '.svc.sys', 'log'))).filter((n) => n.endsWith('.log'));
}

test('records: decoded as written; a torn or damaged record ends the log there', () => {
  const a = encodeRecord(1, 'b', 'k/ü', Buffer.from('meta-a'));
  const drop = encodeRecord(2, 'b', 'k/ü', null);
  const c = encodeRecord(1, 'b', 'c', Buffer.from('meta-c'));
  const whole = Buffer.concat([a, drop, c]);
  assert.deepEqual(decodeRecords(whole).map((r) => [r.kind, r.volume, r.key, Buffer.from(r.meta).toString()]), [
    [1, 'b', 'k/ü', 'meta-a'], [2, 'b', 'k/ü', ''], [1, 'b', 'c', 'meta-c'],
  ]);
  assert.equal(decodeRecords(whole.subarray(0, whole.length - 1)).length, 2, 'torn last record');
  const damaged = Buffer.from(whole);
  damaged[a.length + 14] ^= 0xff;
  assert.equal(decodeRecords(damaged).length, 1, 'CRC mismatch in the second record');
});

test('records of a reused log file: only its current use, after an intact header; headerless logs from offset 0', () => {
  const first = encodeUseHeader(7, 1);
  const second = encodeUseHeader(7, 2);
  const old = Buffer.concat([first.header, ...['a', 'b', 'c'].map((k) => encodeRecord(1, 'b', k, Buffer.from(`old-${k}`), first.seed))]);
  // The second use overwrote the file from its start with fewer bytes: the first use's last records are still there.
  const now = Buffer.concat([second.header, encodeRecord(1, 'b', 'x', Buffer.from('new-x'), second.seed)]);
  const file = Buffer.concat([now, old.subarray(now.length)]);
  assert.deepEqual(decodeRecords(file).map((r) => r.key), ['x'], 'the earlier use\'s records fail their seeded CRC');
  assert.deepEqual(decodeRecords(old).map((r) => r.key), ['a', 'b', 'c']);
  const voided = Buffer.from(file);
  voided.fill(0, 0, second.header.length);
  assert.deepEqual(decodeRecords(voided), [], 'a voided header: nothing to replay');
  const headerless = Buffer.concat([encodeRecord(1, 'b', 'h', Buffer.from('h'))]);
  assert.deepEqual(decodeRecords(headerless).map((r) => r.key), ['h'], 'a log of an earlier version');
  const damaged = Buffer.from(file);
  damaged[9] ^= 1;
  assert.deepEqual(decodeRecords(damaged), [], 'a damaged header');
});

test('replay orders uses by generation, after headerless logs, whatever the files are named', () => {
  const g2 = encodeUseHeader(9, 2);
  const g3 = encodeUseHeader(9, 3);
  const use3 = Buffer.concat([g3.header, encodeRecord(1, 'b', 'k', Buffer.from('third'), g3.seed)]);
  const use2 = Buffer.concat([g2.header, encodeRecord(1, 'b', 'k', Buffer.from('second'), g2.seed), encodeRecord(1, 'b', 'j', Buffer.from('j'), g2.seed)]);
  const legacy = encodeRecord(1, 'b', 'j', Buffer.from('legacy'));
  const replayed = recordsToReplay([use3, use2, legacy]).map((r) => `${r.key}=${Buffer.from(r.meta).toString()}`);
  assert.deepEqual(replayed.sort(), ['j=j', 'k=third']);
});

test('replay: the last record of each key, unless a later record dropped the key or its volume', () => {
  const log1 = Buffer.concat([
    encodeRecord(1, 'b', 'x', Buffer.from('x1')), encodeRecord(1, 'b', 'y', Buffer.from('y1')), encodeRecord(1, 'v', 'z', Buffer.from('z1')),
  ]);
  const log2 = Buffer.concat([
    encodeRecord(1, 'b', 'x', Buffer.from('x2')), encodeRecord(2, 'b', 'y', null), encodeRecord(3, 'v', '', null),
    encodeRecord(1, 'v', 'w', Buffer.from('w1')),
  ]);
  assert.deepEqual(recordsToReplay([log1, log2]).map((r) => `${r.volume}/${r.key}=${Buffer.from(r.meta).toString()}`), ['b/x=x2', 'v/w=w1']);
});

test('a crash that loses unsynced metadata files: the next start writes them again from the log', async (t) => {
  const { root, drive } = await fresh(t);
  await drive.renameData('b', 'new', Buffer.from('meta-new'), INLINE);
  await drive.renameData('b', 'over', Buffer.from('meta-old'), INLINE);
  await drive.renameData('b', 'over', Buffer.from('meta-over'), INLINE);
  assert.ok((await logNames(root)).length > 0, 'records still in a log');
  const next = await afterCrash(t, root, async (copy) => {
    await unlink(join(copy, 'b', '+new', 'xl.meta'));
    await writeFile(join(copy, 'b', '+over', 'xl.meta'), 'meta-old');
  });
  assert.deepEqual(await next.readMeta('b', 'new'), Buffer.from('meta-new'));
  assert.deepEqual(await next.readMeta('b', 'over'), Buffer.from('meta-over'));
});

test('replay never brings back a key deleted, or overwritten another way, after its logged commit', async (t) => {
  const { root, drive } = await fresh(t);
  await drive.renameData('b', 'gone', Buffer.from('meta-gone'), INLINE);
  await drive.deleteObject('b', 'gone');
  await drive.renameData('b', 'big', Buffer.from('meta-small'), INLINE);
  const w = await drive.createShardWriter('tmp/up/d0000000-0000-4000-8000-000000000000/part.1');
  await w.write([Buffer.from('shard')]);
  await w.close();
  await drive.renameData('b', 'big', Buffer.from('meta-big'), {
    srcDataPath: 'tmp/up/d0000000-0000-4000-8000-000000000000', dataDir: 'd0000000-0000-4000-8000-000000000000',
  });
  await drive.makeVolume('v', Buffer.alloc(0));
  await drive.renameData('v', 'k', Buffer.from('meta-v'), INLINE);
  await drive.deleteVolume('v');
  await drive.makeVolume('v', Buffer.alloc(0));
  const next = await afterCrash(t, root, async () => undefined);
  await assert.rejects(next.readMeta('b', 'gone'), FileNotFoundError);
  assert.deepEqual(await next.readMeta('b', 'big'), Buffer.from('meta-big'));
  await assert.rejects(next.readMeta('v', 'k'), FileNotFoundError);
});

test('a checkpoint makes the files durable and voids the log; replay then has nothing to redo', async (t) => {
  const { root, drive } = await fresh(t);
  await drive.renameData('b', 'k', Buffer.from('meta-k'), INLINE);
  const log = commitLogFor(root, join(root, '.svc.sys'), async () => { throw new Error('not the first instance'); });
  assert.equal(log.pendingCount, 1);
  const [used] = await logNames(root);
  await log.checkpoint();
  assert.equal(log.pendingCount, 0);
  const voided = await readFile(join(root, '.svc.sys', 'log', used!));
  assert.ok(voided.length > 0 && decodeRecords(voided).length === 0, 'the log is kept, voided');
  // Deleted after the checkpoint: no drop record is needed, and none is written.
  await drive.deleteObject('b', 'k');
  assert.deepEqual(await readFile(join(root, '.svc.sys', 'log', used!)), voided);
  await drive.renameData('b', 'k2', Buffer.from('meta-k2'), INLINE);
  assert.deepEqual(await logNames(root), [used], 'the next commit reuses the voided log');
  const next = await afterCrash(t, root, async (copy) => {
    const [name] = await logNames(copy);
    // A write the crash cut short: a half record after the synced ones.
    const path = join(copy, '.svc.sys', 'log', name!);
    const whole = await readFile(path);
    await writeFile(path, Buffer.concat([whole, encodeRecord(1, 'b', 'torn', Buffer.from('never answered')).subarray(0, 20)]));
    await truncate(join(copy, 'b', '+k2', 'xl.meta'), 0);
  });
  assert.deepEqual(await next.readMeta('b', 'k2'), Buffer.from('meta-k2'));
  await assert.rejects(next.readMeta('b', 'k'), FileNotFoundError);
  await assert.rejects(next.readMeta('b', 'torn'), FileNotFoundError);
  assert.deepEqual(await logNames(next.endpoint), [], 'replayed logs are deleted');
});

test('a log that grew past the size kept is deleted at its checkpoint; the next commit starts a new one', async (t) => {
  const { root, drive } = await fresh(t);
  const log = commitLogFor(root, join(root, '.svc.sys'), async () => { throw new Error('not the first instance'); });
  await drive.renameData('b', 'big', Buffer.alloc(KEPT_FILE_MAX_BYTES + 1, 5), INLINE);
  const [grown] = await logNames(root);
  await log.checkpoint();
  assert.deepEqual(await logNames(root), [], 'not kept');
  await drive.renameData('b', 'small', Buffer.from('meta-small'), INLINE);
  const [next] = await logNames(root);
  assert.ok(next !== undefined && next !== grown, 'a new file');
  await log.checkpoint();
  assert.deepEqual(await logNames(root), [next], 'a small one is kept');
});

test('a kept log whose name is gone (its drive wiped) is not reused: the next commit writes where a replay finds it', async (t) => {
  const { root, drive } = await fresh(t);
  const log = commitLogFor(root, join(root, '.svc.sys'), async () => { throw new Error('not the first instance'); });
  await drive.renameData('b', 'k1', Buffer.from('meta-k1'), INLINE);
  const [kept] = await logNames(root);
  await log.checkpoint();
  await unlink(join(root, '.svc.sys', 'log', kept!));
  await drive.renameData('b', 'k2', Buffer.from('meta-k2'), INLINE);
  const names = await logNames(root);
  assert.equal(names.length, 1, 'a new log file');
  assert.notEqual(names[0], kept);
  const next = await afterCrash(t, root, async (copy) => {
    await unlink(join(copy, 'b', '+k2', 'xl.meta'));
  });
  assert.deepEqual(await next.readMeta('b', 'k2'), Buffer.from('meta-k2'));
});

test('a reused log never replays its earlier use: keys deleted after the checkpoint stay deleted', async (t) => {
  const { root, drive } = await fresh(t);
  // Records of one size: the new use's record ends where the earlier use's second one starts, intact.
  const keys = ['k1', 'k2', 'k3', 'k4'];
  for (const k of keys) await drive.renameData('b', k, Buffer.from(`meta-${k}-${'x'.repeat(200)}`), INLINE);
  const log = commitLogFor(root, join(root, '.svc.sys'), async () => { throw new Error('not the first instance'); });
  const [used] = await logNames(root);
  const before = (await stat(join(root, '.svc.sys', 'log', used!))).size;
  await log.checkpoint();
  for (const k of keys) await drive.deleteObject('b', k);
  await drive.renameData('b', 'k5', Buffer.from(`meta-k5-${'x'.repeat(200)}`), INLINE);
  assert.deepEqual(await logNames(root), [used]);
  assert.equal((await stat(join(root, '.svc.sys', 'log', used!))).size, before, 'the earlier use\'s records are still in the file');
  const next = await afterCrash(t, root, async (copy) => {
    await unlink(join(copy, 'b', '+k5', 'xl.meta'));
  });
  assert.deepEqual(await next.readMeta('b', 'k5'), Buffer.from(`meta-k5-${'x'.repeat(200)}`));
  for (const k of keys) await assert.rejects(next.readMeta('b', k), FileNotFoundError, k);
});

/** A mounted tmpfs of `size` (needs root, as the power-cut tests): it fills up for real. */
async function smallTmpfs(t: { after(fn: () => Promise<void>): void }, size: string): Promise<string> {
  const mnt = await mkdtemp(join(tmpdir(), 'svc-commit-log-full-'));
  await promisify(execFile)('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mnt]);
  t.after(async () => {
    await promisify(execFile)('umount', ['-l', mnt]).catch(() => undefined);
    await rm(mnt, { recursive: true, force: true, maxRetries: 5 });
  });
  return mnt;
}

/** Fills the file system of `dir` up (fill-disk.ts), and checks that it is full: one more byte meets ENOSPC. */
async function fill(dir: string): Promise<string> {
  const path = fillFileSystem(dir, 'ballast');
  const ballast = await open(path, 'a');
  try {
    await assert.rejects(ballast.write(Buffer.alloc(1)), (err: NodeJS.ErrnoException) => err.code === 'ENOSPC');
  } finally {
    await ballast.close();
  }
  return path;
}

test('a write the full disk took only part of fails its appends and breaks the file', async (t) => {
  const mnt = await smallTmpfs(t, '1m');
  const path = join(mnt, 'x.log');
  const fh = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_DSYNC);
  t.after(() => fh.close());
  const file = new LogFile(1, path, fh);
  const use = encodeUseHeader(1, 1);
  file.begin(1, use.header, use.seed);
  await file.append(Buffer.from('first'));
  await fill(mnt);
  // The log's first page has room for the start of this write, not for the rest.
  await assert.rejects(file.append(Buffer.alloc(64 * 1024, 1)), /ENOSPC/);
  assert.equal(file.broken, true);
  await assert.rejects(file.append(Buffer.from('next')), /ENOSPC/, 'a broken file takes no more');
});

test('a log write a full disk refused breaks that file only: the next commit opens another, and replay loses nothing', async (t) => {
  const mnt = await smallTmpfs(t, '2m');
  const root = join(mnt, 'd');
  await mkdir(root);
  const drive = new LocalDrive(root);
  await drive.writeFormat(Buffer.from('{}'));
  await drive.cleanTemp();
  await drive.makeVolume('b', Buffer.alloc(0));
  await drive.renameData('b', 'before', Buffer.from('meta-before'), INLINE);
  const [first] = await logNames(root);
  const ballast = await fill(mnt);
  // Larger than what is left of the log's last page: the write needs space the file system no longer has.
  await assert.rejects(drive.renameData('b', 'full', Buffer.alloc(256 * 1024, 2), INLINE), DiskFullError);
  await unlink(ballast);
  await drive.renameData('b', 'after', Buffer.from('meta-after'), INLINE);
  const names = await logNames(root);
  assert.equal(names.length, 2, 'a new log after the failed write');
  assert.ok(names.includes(first!));
  const next = await afterCrash(t, root, async (copy) => {
    for (const k of ['before', 'after']) await unlink(join(copy, 'b', `+${k}`, 'xl.meta'));
  });
  assert.deepEqual(await next.readMeta('b', 'before'), Buffer.from('meta-before'));
  assert.deepEqual(await next.readMeta('b', 'after'), Buffer.from('meta-after'));
});

test('a change that reaches a drive before it was opened waits for the replay, which cannot undo it later', async (t) => {
  const { root, drive } = await fresh(t);
  await drive.renameData('b', 'k', Buffer.from('meta-k'), INLINE);
  const copy = await mkdtemp(join(tmpdir(), 'svc-commit-log-early-'));
  t.after(() => rm(copy, { recursive: true, force: true, maxRetries: 5 }));
  await cp(root, copy, { recursive: true });
  // A peer's delete arrives first, before this node's startup ran cleanTemp on the drive.
  const early = new LocalDrive(copy);
  await early.deleteObject('b', 'k');
  const next = await afterCrash(t, copy, async () => undefined);
  await assert.rejects(next.readMeta('b', 'k'), FileNotFoundError);
});
