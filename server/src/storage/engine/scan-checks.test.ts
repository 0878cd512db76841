import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, rm, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { hasRecord, removeRecord } from '../../../test/helpers/drive-records.js';
import { forgetCachedMeta } from '../drive/index.js';
import { ErasureSets } from './erasure-sets.js';
import type { ErasureSet } from './erasure-set.js';
import type { Storage } from './open-storage.js';
import { candidateKeys, setBuckets, shardsMissing } from './scan-checks.js';
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
