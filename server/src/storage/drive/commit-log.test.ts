import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeRecords, encodeRecord, recordsToReplay } from './commit-log-record.js';
import { FileNotFoundError } from './drive-errors.js';
import { LocalDrive } from './local-drive.js';

/**
 * A formatted drive with bucket `b` and, in `.svc.sys/log`, the logs an earlier version left at a crash; `files`
 * writes metadata files the earlier version had written (its layout: a directory per key).
 */
async function leftByEarlierVersion(
  t: { after(fn: () => Promise<void>): void }, logs: Buffer[][], files: Record<string, string> = {},
): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'svc-commit-log-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const setup = new LocalDrive(root);
  await setup.writeFormat(Buffer.from('{}'));
  await setup.makeVolume('b', Buffer.alloc(0));
  await mkdir(join(root, '.svc.sys', 'log'));
  for (const [i, records] of logs.entries()) await writeFile(join(root, '.svc.sys', 'log', `00000000${i + 1}-1.log`), Buffer.concat(records));
  for (const [key, meta] of Object.entries(files)) {
    await mkdir(join(root, 'b', `+${key}`), { recursive: true });
    await writeFile(join(root, 'b', `+${key}`, 'xl.meta'), meta);
  }
  return root;
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

test('logs an earlier version left are replayed into the index at start and deleted; a torn last record is not', async (t) => {
  const root = await leftByEarlierVersion(t, [
    [encodeRecord(1, 'b', 'new', Buffer.from('meta-new')), encodeRecord(1, 'b', 'over', Buffer.from('meta-over'))],
    [encodeRecord(1, 'b', 'dropped', Buffer.from('meta-dropped')), encodeRecord(2, 'b', 'dropped', null),
      encodeRecord(1, 'gone', 'k', Buffer.from('bucket deleted since')), encodeRecord(1, 'b', 'torn', Buffer.from('never answered')).subarray(0, 20)],
  ], { over: 'meta-old', dropped: 'meta-before' });
  const drive = new LocalDrive(root);
  await drive.cleanTemp();
  assert.deepEqual(await drive.readMeta('b', 'new'), Buffer.from('meta-new'));
  assert.deepEqual(await drive.readMeta('b', 'over'), Buffer.from('meta-over'), "the log's record wins over the file it had not synced");
  assert.deepEqual(await drive.readMeta('b', 'dropped'), Buffer.from('meta-before'), 'a dropped record is not replayed');
  await assert.rejects(drive.readMeta('b', 'torn'), FileNotFoundError);
  await assert.rejects(drive.statVolume('gone'));
  assert.deepEqual(await logNames(root), [], 'replayed logs are deleted');
  assert.deepEqual((await drive.listDir('b', '')).sort(), ['dropped', 'new', 'over']);
});

test('a change that reaches a drive before it was opened waits for the replay, which cannot undo it later', async (t) => {
  const root = await leftByEarlierVersion(t, [[encodeRecord(1, 'b', 'k', Buffer.from('meta-k'))]]);
  // A peer's delete arrives first, before this node's startup ran cleanTemp on the drive.
  const early = new LocalDrive(root);
  await early.deleteObject('b', 'k');
  await early.cleanTemp();
  await assert.rejects(early.readMeta('b', 'k'), FileNotFoundError);
  assert.deepEqual(await logNames(root), []);
});
