import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileNotFoundError } from './drive-errors.js';
import { LocalDrive } from './local-drive.js';
import { STAMP_MAX_AGE_MS, changeLogFor } from './change-log.js';
import { DOORKEEPER_IDS, MAX_ENTRY_BYTES, MetaCache, forgetCachedMeta, metaCache, nextTurn } from './meta-cache.js';
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

/** Reads `ids` in order through `cache` as a GET does (a miss offers the record read): the number of hits. */
function readAll(cache: MetaCache, ids: readonly string[], entry: number): number {
  let hits = 0;
  for (const id of ids) {
    if (cache.get(id) !== undefined) hits++;
    else cache.offerRead(id, Buffer.alloc(entry, id.length), 's');
  }
  return hits;
}

test('MetaCache: a reader going over a few more keys than the ring holds, in the order written, still hits most', () => {
  const entry = 1000;
  const cache = new MetaCache(100 * entry);
  const ids = Array.from({ length: 110 }, (_, i) => `k${i}`);
  for (const id of ids) cache.set(id, Buffer.alloc(entry), 's'); // the PUTs' write-through: the last 100 kept
  // Every read kept on a miss would push out the next key to be read (the oldest): no read would ever hit.
  const hits = [readAll(cache, ids, entry), readAll(cache, ids, entry), readAll(cache, ids, entry)];
  assert.equal(hits[0], 100, 'first pass: the 100 records written last');
  for (const h of hits.slice(1)) assert.ok(h >= 80, `later passes hit ${hits.join(', ')} of 110`);
  assert.ok(cache.size.bytes <= 100 * entry);
});

test('MetaCache: a refused read is kept at its second miss; records older than a minute make room at once', (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
  const entry = 1000;
  const cache = new MetaCache(4 * entry);
  for (const id of ['a', 'b', 'c', 'd']) cache.set(id, Buffer.alloc(entry), 's');
  cache.offerRead('hot', Buffer.alloc(entry, 1), 's');
  assert.equal(cache.get('hot'), undefined, 'the ring is full of records kept just now');
  assert.ok(cache.get('a') !== undefined);
  cache.offerRead('hot', Buffer.alloc(entry, 2), 't');
  assert.equal(cache.get('hot')?.stamp, 't', 'kept at its second miss');
  assert.equal(cache.get('a'), undefined, 'the oldest went for it');
  t.mock.timers.tick(STAMP_MAX_AGE_MS + 1);
  cache.offerRead('cold', Buffer.alloc(entry, 3), 's');
  assert.ok(cache.get('cold')?.bytes.equals(Buffer.alloc(entry, 3)), 'records a minute old cannot answer any more: no refusal');
  // Room still free, or a replaced id's own bytes: kept at once.
  const roomy = new MetaCache(10 * entry);
  roomy.set('x', Buffer.alloc(entry), 's');
  roomy.offerRead('x', Buffer.alloc(entry, 5), 'u');
  roomy.offerRead('y', Buffer.alloc(entry, 6), 'u');
  assert.equal(roomy.get('x')?.stamp, 'u');
  assert.equal(roomy.get('y')?.stamp, 'u');
  // The doorkeeper's memory is bounded: it forgets every refused id together once DOORKEEPER_IDS gathered.
  const full = new MetaCache(2 * entry);
  full.set('a', Buffer.alloc(entry), 's');
  full.set('b', Buffer.alloc(entry), 's');
  for (let i = 0; i <= DOORKEEPER_IDS; i++) full.offerRead(`z${i}`, Buffer.alloc(entry), 's');
  full.offerRead('z0', Buffer.alloc(entry), 's');
  assert.equal(full.get('z0'), undefined, 'forgotten with the others');
  assert.deepEqual(full.size, { bytes: 2 * entry, entries: 2 });
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
