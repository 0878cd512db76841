import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, rm, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { hasRecord, removeRecord } from '../../../test/helpers/drive-records.js';
import { forgetCachedMeta } from '../drive/index.js';
import { ErasureSets } from './erasure-sets.js';
import type { ErasureSet } from './erasure-set.js';
import type { Storage } from './open-storage.js';
import { compareUtf8 } from './object-name.js';
import { candidateKeys, setBuckets, shardsMissing } from './scan-checks.js';
import { InsufficientReadQuorumError } from './storage-errors.js';
import { pattern, put, testCluster } from './testing.js';

function firstSet(st: Storage): ErasureSet {
  assert.ok(st instanceof ErasureSets);
  return st.sets[0]!;
}

async function keys(set: ErasureSet, bucket: string): Promise<string[]> {
  const out: string[] = [];
  for await (const k of candidateKeys(set, bucket, '')) out.push(k);
  return out;
}

test('the walk yields every key and directory name, in order, as the union over the drives', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open({ scanner: false });
  await st.makeBucket('bkt');
  await st.makeBucket('other');
  for (const k of ['b', 'a/x', 'a/y/z', 'a']) await put(st, 'bkt', k, pattern(10));
  const set = firstSet(st);
  assert.deepEqual(await setBuckets(set), ['bkt', 'other']);
  assert.deepEqual(await keys(set, 'bkt'), ['a', 'a/x', 'a/y', 'a/y/z', 'b']);
  // A key missing from one drive is still walked (it is found on the others): its directory (the metadata-file layout's
  // record file) and its record (the key-index layout's; small, it has no directory there) removed.
  const d0 = c.sets[0]![0]!;
  await rm(join(d0, 'bkt', '+b'), { recursive: true, force: true, maxRetries: 5 });
  await removeRecord(d0, 'bkt', 'b');
  forgetCachedMeta();
  assert.equal(await hasRecord(d0, 'bkt', 'b'), false);
  assert.deepEqual(await keys(set, 'bkt'), ['a', 'a/x', 'a/y', 'a/y/z', 'b']);
  assert.deepEqual(await keys(set, 'other'), []);
});

test('shardsMissing sees a missing or short part file on a drive that agrees on the record', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open({ scanner: false });
  await st.makeBucket('bkt');
  await put(st, 'bkt', 'big', pattern(3 * 1024 * 1024));
  const set = firstSet(st);
  const all = set.drives.map(() => true);
  const q = set.pickQuorum('bkt', 'big', await set.readMetas('bkt', 'big'));
  assert.equal(await shardsMissing(set, 'bkt', q, all), false);
  const dir = join(c.sets[0]![2]!, 'bkt', '+big');
  const dataDir = (await readdir(dir)).find((n) => /^[0-9a-f-]{36}$/.test(n))!;
  await truncate(join(dir, dataDir, 'part.1'), 1000);
  assert.equal(await shardsMissing(set, 'bkt', q, all), true);
  assert.equal(await shardsMissing(set, 'bkt', q, all.map((_, i) => i !== 2)), false, 'drives not asked about are not checked');
  await rm(join(dir, dataDir, 'part.1'));
  assert.equal(await shardsMissing(set, 'bkt', q, all), true);
});

test('the walk lists only the directories of names with keys below them, and asks about the others in batches', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open({ scanner: false });
  await st.makeBucket('bkt');
  const flat = Array.from({ length: 600 }, (_, i) => `k${String(i).padStart(3, '0')}`);
  for (const k of [...flat, 'k100/deep', 'k599/x/y']) await put(st, 'bkt', k, pattern(10));
  const set = firstSet(st);
  const listed: string[] = [];
  let batches = 0;
  for (const slot of set.drives) {
    const d = slot.drive;
    const listDir = d.listDir.bind(d);
    const readChildren = d.readChildren.bind(d);
    d.listDir = (v, dirKey) => { listed.push(dirKey); return listDir(v, dirKey); };
    d.readChildren = (...args) => { batches++; return readChildren(...args); };
  }
  const expected = [...flat, 'k100/deep', 'k599/x', 'k599/x/y'].sort(compareUtf8);
  assert.deepEqual(await keys(set, 'bkt'), expected);
  // Once per drive: the bucket's top, the two names with deeper keys, and k599/x.
  assert.deepEqual([...new Set(listed)].sort(), ['', 'k100/', 'k599/', 'k599/x/']);
  assert.equal(listed.length, 4 * 4);
  // 600 names at the top in 3 batches, one for each deeper directory's names (k100/, k599/, k599/x/), per drive.
  assert.equal(batches, 4 * (3 + 3));
});

test('the walk goes on without a drive whose child states fail, lists a name a drive could not tell about, and needs a read quorum', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open({ scanner: false });
  await st.makeBucket('bkt');
  for (const k of ['a', 'b', 'b/c']) await put(st, 'bkt', k, pattern(10));
  const set = firstSet(st);
  const [d0, d1, d2, d3] = set.drives.map((s) => s.drive);
  d0!.readChildren = () => Promise.reject(new Error('drive 0 lost its index'));
  assert.deepEqual(await keys(set, 'bkt'), ['a', 'b', 'b/c']);
  // A drive that cannot tell about `a` has its directory listed (empty: nothing is below it).
  const listed: string[] = [];
  const listDir = d1!.listDir.bind(d1);
  d1!.listDir = (v, dirKey) => { listed.push(dirKey); return listDir(v, dirKey); };
  const readChildren = d1!.readChildren.bind(d1);
  d1!.readChildren = async (v, dirKey, names, withMeta) => {
    const states = await readChildren(v, dirKey, names, withMeta);
    return states.map((s, i) => (names[i] === 'a' ? { meta: null, children: false, error: 'unreadable' } : s));
  };
  assert.deepEqual(await keys(set, 'bkt'), ['a', 'b', 'b/c']);
  assert.deepEqual(listed, ['', 'a/', 'b/']);
  // Two of four answering are still a read quorum (K = 2); one is not.
  d2!.readChildren = () => Promise.reject(new Error('drive 2 lost its index'));
  assert.deepEqual(await keys(set, 'bkt'), ['a', 'b', 'b/c']);
  d3!.readChildren = () => Promise.reject(new Error('drive 3 lost its index'));
  await assert.rejects(keys(set, 'bkt'), (err: Error) => err instanceof InsufficientReadQuorumError && /cannot walk bkt: 1 of 4 drives answered/.test(err.message));
});
