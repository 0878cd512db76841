import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeBucketRecord, encodeBucketRecord } from '../format/index.js';
import { BucketNotFoundError } from './storage-errors.js';
import { testCluster } from './testing.js';

const META = '.bucket.meta';

test('bucket configs: absent, set, replaced, deleted; kinds and tags independent; kept across reopen', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  let st = await c.open();
  await st.makeBucket('bkt');
  const created = (await st.getBucketInfo('bkt')).created.getTime();
  assert.equal(await st.getBucketConfig('bkt', 'cors'), undefined);
  await st.putBucketConfig('bkt', 'cors', '<cors-1/>');
  await st.putBucketConfig('bkt', 'cors', '<cors-2/>');
  await st.putBucketConfig('bkt', 'policy', '{"p":1}');
  await st.putBucketTags('bkt', [{ key: 'env', value: 'prod' }]);
  assert.equal(await st.getBucketConfig('bkt', 'cors'), '<cors-2/>');
  assert.equal(await st.getBucketConfig('bkt', 'policy'), '{"p":1}');
  await st.putBucketConfig('bkt', 'policy', undefined);
  assert.equal(await st.getBucketConfig('bkt', 'policy'), undefined);
  assert.deepEqual(await st.getBucketTags('bkt'), [{ key: 'env', value: 'prod' }]);
  await st.putBucketTags('bkt', undefined);
  assert.equal(await st.getBucketConfig('bkt', 'cors'), '<cors-2/>');
  assert.equal((await st.getBucketInfo('bkt')).created.getTime(), created);
  await st.close();
  st = await c.open();
  assert.equal(await st.getBucketConfig('bkt', 'cors'), '<cors-2/>');
  await st.deleteBucket('bkt');
  await assert.rejects(st.getBucketConfig('bkt', 'cors'), BucketNotFoundError);
  await assert.rejects(st.putBucketConfig('bkt', 'cors', 'x'), BucketNotFoundError);
  await assert.rejects(st.getBucketConfig('../etc', 'cors'), BucketNotFoundError);
  await st.makeBucket('bkt');
  assert.equal(await st.getBucketConfig('bkt', 'cors'), undefined);
});

test('a drive that missed changes is outvoted per kind, and a deletion is not undone by it', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  await st.putBucketConfig('bkt', 'cors', 'old-cors');
  await st.putBucketConfig('bkt', 'policy', 'old-policy');
  const stalePath = join(c.sets[0]![0]!, 'bkt', META);
  const stale = await readFile(stalePath);
  await st.putBucketConfig('bkt', 'cors', 'new-cors');
  await st.putBucketConfig('bkt', 'policy', undefined);
  // Drive 0 goes back to the record it had before both changes.
  await writeFile(stalePath, stale);
  assert.equal(await st.getBucketConfig('bkt', 'cors'), 'new-cors');
  assert.equal(await st.getBucketConfig('bkt', 'policy'), undefined);
  // The next write stores the merged state everywhere, the stale drive included.
  await st.putBucketTags('bkt', [{ key: 'k', value: 'v' }]);
  const healed = decodeBucketRecord(await readFile(stalePath));
  assert.equal(healed.configs?.['cors']?.data, 'new-cors');
  assert.equal(healed.configs?.['policy']?.data, undefined);
  assert.ok(healed.configs?.['policy']?.modTime !== undefined);
});

test('records written before configs existed still decode; records with configs round-trip', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  const old = encodeBucketRecord({ created: 1234, tags: [{ key: 'a', value: 'b' }], tagsModTime: 5 });
  for (const d of c.sets[0]!) await writeFile(join(d, 'bkt', META), old);
  assert.equal(await st.getBucketConfig('bkt', 'cors'), undefined);
  assert.deepEqual(await st.getBucketTags('bkt'), [{ key: 'a', value: 'b' }]);
  const rec = { created: 1, configs: { cors: { modTime: 2, data: 'x' }, policy: { modTime: 3 } } };
  assert.deepEqual(decodeBucketRecord(encodeBucketRecord(rec)), rec);
  assert.deepEqual(decodeBucketRecord(encodeBucketRecord({ created: 1, configs: {} })), { created: 1 });
});
