import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileNotFoundError } from './drive-errors.js';
import { LocalDrive } from './local-drive.js';
import { changeLogFor } from './change-log.js';
import { MAX_ENTRY_BYTES, MetaCache, forgetCachedMeta, metaCache, nextTurn } from './meta-cache.js';
import { removeRecord } from '../../../test/helpers/drive-records.js';

const CACHED = { cached: true };
const noData = { srcDataPath: null, dataDir: null };
/** A commit on a drive the GET fast path reads (RenameDataOptions.cache). */
const kept = { ...noData, cache: true };

async function fresh(t: { after(fn: () => Promise<void>): void }): Promise<{ root: string; drive: LocalDrive }> {
  const root = await mkdtemp(join(tmpdir(), 'svc-metacache-'));
  t.after(() => rm(root, { recursive: true, force: true, maxRetries: 5 }));
  const drive = new LocalDrive(root);
  await drive.writeFormat(Buffer.from('{}'));
  await drive.makeVolume('b', Buffer.alloc(0));
  return { root, drive };
}

/** Removes a key's record behind the server's back (a change its change log cannot see), whatever the drive's layout. */
async function removeByHand(root: string, key: string): Promise<void> {
  await removeRecord(root, 'b', key);
}

test('MetaCache: the oldest records go first once the ring is full; oversized records are not kept', () => {
  const entry = 1000;
  const cache = new MetaCache(3 * entry);
  for (const [i, id] of ['a', 'b', 'c'].entries()) cache.set(id, Buffer.alloc(entry, i), 's');
  assert.equal(cache.size.entries, 3);
  cache.set('d', Buffer.alloc(entry, 3), 's');
  assert.equal(cache.get('a'), undefined, 'the oldest went');
  assert.ok(cache.get('b')?.bytes.equals(Buffer.alloc(entry, 1)) && cache.get('d')?.bytes.equals(Buffer.alloc(entry, 3)));
  // Keeping an id again replaces its entry and accounts for it once.
  cache.set('b', Buffer.alloc(entry, 4), 't');
  assert.deepEqual(cache.size, { bytes: 3 * entry, entries: 3 });
  assert.equal(cache.get('b')?.stamp, 't');
  assert.ok(cache.get('b')?.bytes.equals(Buffer.alloc(entry, 4)));
  cache.set('big', Buffer.alloc(MAX_ENTRY_BYTES + 1), 's');
  assert.equal(cache.get('big'), undefined);
  assert.equal(cache.size.entries, 3);
  cache.set('c', Buffer.alloc(MAX_ENTRY_BYTES + 1), 's');
  assert.equal(cache.get('c'), undefined, 'a record grown too large drops its old entry');
  const off = new MetaCache(0);
  off.set('x', Buffer.alloc(1), 's');
  assert.equal(off.get('x'), undefined, 'a budget of 0 keeps nothing');
});

test('MetaCache: over many turns of the ring every entry still holds the bytes it was given', () => {
  const max = 20_000;
  const cache = new MetaCache(max);
  const model = new Map<string, Buffer>();
  let x = 7;
  const next = (n: number): number => { x = (x * 1103515245 + 12345) >>> 0; return x % n; };
  for (let i = 0; i < 20_000; i++) {
    const id = `k${next(300)}`;
    if (next(10) === 0) {
      cache.delete(id);
      model.delete(id);
      continue;
    }
    const bytes = Buffer.alloc(4 + next(3000), i & 0xff);
    bytes.writeUInt32LE(i, 0);
    cache.set(id, bytes, String(i));
    model.set(id, bytes);
    let live = 0;
    if (i % 97 === 0) {
      for (const [k, want] of model) {
        const got = cache.get(k);
        if (got === undefined) continue;
        live += got.bytes.length;
        assert.ok(got.bytes.equals(want), `entry ${k} after ${i} sets`);
      }
      assert.equal(cache.size.bytes, live);
      assert.ok(live <= max);
    }
  }
  assert.ok(cache.size.entries >= 5, 'the ring keeps recent records');
});

test('nextTurn: answers of one turn resolve together, after the I/O callbacks of that turn', async () => {
  const order: string[] = [];
  const a = nextTurn().then(() => order.push('a'));
  const b = nextTurn().then(() => order.push('b'));
  process.nextTick(() => order.push('tick'));
  await Promise.resolve().then(() => order.push('microtask'));
  assert.deepEqual(order, ['microtask'], 'not in the same turn');
  await Promise.all([a, b]);
  assert.deepEqual(order, ['microtask', 'tick', 'a', 'b']);
});

test('cached reads: every change made through a drive of the same root is seen at once', async (t) => {
  const { root, drive } = await fresh(t);
  await drive.renameData('b', 'k', Buffer.from('v1'), noData);
  assert.deepEqual(await drive.readMeta('b', 'k', CACHED), Buffer.from('v1'));
  await drive.renameData('b', 'k', Buffer.from('v2'), noData);
  assert.deepEqual(await drive.readMeta('b', 'k', CACHED), Buffer.from('v2'), 'an overwrite');
  // Another LocalDrive on the same root: how a peer's change arrives through the storage RPC.
  const peer = new LocalDrive(root);
  await peer.renameData('b', 'k', Buffer.from('v3'), noData);
  assert.deepEqual(await drive.readMeta('b', 'k', CACHED), Buffer.from('v3'), 'a change through another instance');
  await peer.deleteObject('b', 'k');
  const entries = metaCache.size.entries;
  await assert.rejects(drive.readMeta('b', 'k', CACHED), FileNotFoundError, 'a delete');
  assert.equal(metaCache.size.entries, entries - 1, "a deleted key's entry goes");
  await drive.renameData('b', 'k', Buffer.from('v4'), noData);
  assert.deepEqual(await drive.readMeta('b', 'k', CACHED), Buffer.from('v4'), 'absent answers are never kept');
});

test('write-through: a committed record answers the next cached read with no I/O, the bytes a disk read returns', async (t) => {
  const { root, drive } = await fresh(t);
  const record = Buffer.from('the record as committed');
  await drive.renameData('b', 'k', record, kept);
  assert.deepEqual(await drive.readMeta('b', 'k'), record, 'the disk holds what was committed');
  forgetCachedMeta();
  await drive.renameData('b', 'k', record, kept);
  await removeByHand(root, 'k');
  assert.deepEqual(await drive.readMeta('b', 'k', CACHED), record, 'answered from memory: the write left it');
  await assert.rejects(drive.readMeta('b', 'k'), FileNotFoundError);

  // A drive whose record the GET fast path does not read (no `cache`) keeps nothing.
  await drive.renameData('b', 'parity', record, noData);
  await removeByHand(root, 'parity');
  await assert.rejects(drive.readMeta('b', 'parity', CACHED), FileNotFoundError);
});

test('write-through: a write that another change of the key overlapped leaves nothing; a failed one neither', async (t) => {
  const { root, drive } = await fresh(t);
  forgetCachedMeta();
  const writing = drive.renameData('b', 'k', Buffer.from('v1'), kept);
  // Another change of the key recorded while the write runs (as a peer's, through the storage RPC, would be): which
  // of the two the disk holds last is not known to the write.
  changeLogFor(root).touch('b', 'k');
  await writing;
  await removeByHand(root, 'k');
  await assert.rejects(drive.readMeta('b', 'k', CACHED), FileNotFoundError, 'the overlapped write was not cached');

  // A change of another key of the volume does not hold a write back.
  const other = drive.renameData('b', 'k2', Buffer.from('v2'), kept);
  changeLogFor(root).touch('b', 'elsewhere');
  await other;
  await removeByHand(root, 'k2');
  assert.deepEqual(await drive.readMeta('b', 'k2', CACHED), Buffer.from('v2'));

  // A commit that fails (no such volume) caches nothing.
  await assert.rejects(drive.renameData('nobucket', 'k', Buffer.from('v3'), kept));
  await assert.rejects(drive.readMeta('nobucket', 'k', CACHED));
});

test('cached reads: a repeat read does no I/O, is a copy, and a new format or forgetCachedMeta sends reads to the disk', async (t) => {
  const { root, drive } = await fresh(t);
  await drive.renameData('b', 'k', Buffer.from('v1'), noData);
  (await drive.readMeta('b', 'k', CACHED)).fill(0x21);
  await removeByHand(root, 'k');
  (await drive.readMeta('b', 'k', CACHED)).fill(0x22);
  assert.deepEqual(await drive.readMeta('b', 'k', CACHED), Buffer.from('v1'), 'answered from memory, unchanged by its reader');
  await assert.rejects(drive.readMeta('b', 'k'), FileNotFoundError, 'a read without `cached` goes to the disk');
  forgetCachedMeta();
  await assert.rejects(drive.readMeta('b', 'k', CACHED), FileNotFoundError);

  await drive.renameData('b', 'k', Buffer.from('v2'), noData);
  assert.deepEqual(await drive.readMeta('b', 'k', CACHED), Buffer.from('v2'));
  await removeByHand(root, 'k');
  // A replacement drive is formatted: nothing read before vouches for anything (change-log.ts touchAll).
  await drive.writeFormat(Buffer.from('{}'));
  await assert.rejects(drive.readMeta('b', 'k', CACHED), FileNotFoundError);
});
