import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readdir, readFile, rm, truncate, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitLogFor } from './commit-log.js';
import { decodeRecords, encodeRecord, recordsToReplay } from './commit-log-record.js';
import { FileNotFoundError } from './drive-errors.js';
import { LocalDrive } from './local-drive.js';

const INLINE = { srcDataPath: null, dataDir: null } as const;

async function fresh(t: { after(fn: () => Promise<void>): void }): Promise<{ root: string; drive: LocalDrive }> {
  const root = await mkdtemp(join(tmpdir(), 'svc-commit-log-'));
  t.after(() => rm(root, { recursive: true, force: true }));
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
  t.after(() => rm(copy, { recursive: true, force: true }));
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

test('a checkpoint makes the files durable and deletes the logs; replay then has nothing to redo', async (t) => {
  const { root, drive } = await fresh(t);
  await drive.renameData('b', 'k', Buffer.from('meta-k'), INLINE);
  const log = commitLogFor(root, join(root, '.svc.sys'), async () => { throw new Error('not the first instance'); });
  assert.equal(log.pendingCount, 1);
  await log.checkpoint();
  assert.deepEqual(await logNames(root), []);
  assert.equal(log.pendingCount, 0);
  // Deleted after the checkpoint: no drop record is needed, and none is written (no log file appears).
  await drive.deleteObject('b', 'k');
  assert.deepEqual(await logNames(root), []);
  await drive.renameData('b', 'k2', Buffer.from('meta-k2'), INLINE);
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

test('a change that reaches a drive before it was opened waits for the replay, which cannot undo it later', async (t) => {
  const { root, drive } = await fresh(t);
  await drive.renameData('b', 'k', Buffer.from('meta-k'), INLINE);
  const copy = await mkdtemp(join(tmpdir(), 'svc-commit-log-early-'));
  t.after(() => rm(copy, { recursive: true, force: true }));
  await cp(root, copy, { recursive: true });
  // A peer's delete arrives first, before this node's startup ran cleanTemp on the drive.
  const early = new LocalDrive(copy);
  await early.deleteObject('b', 'k');
  const next = await afterCrash(t, copy, async () => undefined);
  await assert.rejects(next.readMeta('b', 'k'), FileNotFoundError);
});
