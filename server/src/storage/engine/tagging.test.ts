import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { hasRecord, mustReadRecord, removeRecord } from '../../../test/helpers/drive-records.js';
import { forgetCachedMeta } from '../drive/index.js';
import { decodeObjectMeta } from '../format/index.js';
import { BucketNotFoundError, InsufficientWriteQuorumError, ObjectNotFoundError } from './storage-errors.js';
import { NO_META, get, pattern, put, testCluster } from './testing.js';

test('object tags: stored at PUT, replaced and removed without touching data, ETag or Last-Modified', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  const big = pattern(300 * 1024, 7);
  const first = await st.putObject('bkt', 'big', Readable.from([big]), { size: big.length, metadata: NO_META, tags: [{ key: 'a', value: '1' }] });
  assert.deepEqual(first.tags, [{ key: 'a', value: '1' }]);
  await put(st, 'bkt', 'small', Buffer.from('tiny'));
  assert.equal((await st.getObjectInfo('bkt', 'small')).tags, undefined);

  for (const key of ['big', 'small']) {
    const before = await st.getObjectInfo('bkt', key);
    const tags = [{ key: 'z', value: '' }, { key: '__proto__', value: 'x' }];
    const info = await st.putObjectTags('bkt', key, tags);
    assert.deepEqual(info.tags, tags);
    const after = await st.getObjectInfo('bkt', key);
    assert.deepEqual(after.tags, tags);
    assert.equal(after.etag, before.etag);
    assert.equal(after.lastModified.getTime(), before.lastModified.getTime());
    await st.putObjectTags('bkt', key, []);
    assert.equal((await st.getObjectInfo('bkt', key)).tags, undefined);
  }
  assert.ok((await get(st, 'bkt', 'big')).equals(big));
  assert.equal((await get(st, 'bkt', 'small')).toString(), 'tiny');
  // Every drive holds the same (new) record, and the data directory is still the one referenced.
  await st.putObjectTags('bkt', 'big', [{ key: 'k', value: 'v' }]);
  const records = await Promise.all(c.sets[0]!.map(async (d) => decodeObjectMeta(await mustReadRecord(d, 'bkt', 'big'))));
  assert.equal(new Set(records.map((r) => r.versionId)).size, 1);
  assert.ok(records.every((r) => r.tags?.[0]?.key === 'k'));
  assert.ok((await get(st, 'bkt', 'big')).equals(big));

  await assert.rejects(st.putObjectTags('bkt', 'missing', []), ObjectNotFoundError);
  await assert.rejects(st.putObjectTags('nope', 'big', []), BucketNotFoundError);
});

test('multipart uploads carry tags to the completed object', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  const id = await st.createMultipartUpload('bkt', 'mp', { metadata: NO_META, tags: [{ key: 'team', value: 'blue' }] });
  const part = await st.putObjectPart('bkt', 'mp', id, 1, Readable.from([Buffer.from('abc')]), { size: 3 });
  const info = await st.completeMultipartUpload('bkt', 'mp', id, [{ partNumber: 1, etag: part.etag }]);
  assert.deepEqual(info.tags, [{ key: 'team', value: 'blue' }]);
  assert.deepEqual((await st.getObjectInfo('bkt', 'mp')).tags, [{ key: 'team', value: 'blue' }]);
});

test('a tag change below write quorum is refused and rolled back', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  await st.putObject('bkt', 'o', Readable.from([Buffer.from('data')]), { size: 4, metadata: NO_META, tags: [{ key: 'old', value: '1' }] });
  const [d0, d1] = c.sets[0]!;
  // Two of four drives gone: reads still work (K = 2), writes need 3.
  await rename(d0!, `${d0!}.away`);
  // d1 loses the bucket with everything in it: its directory, and the record of `o` (in the drive's key index on that
  // layout, where a bucket's directory does not hold its records).
  await rm(join(d1!, 'bkt'), { recursive: true });
  await removeRecord(d1!, 'bkt', 'o');
  assert.equal(await hasRecord(d1!, 'bkt', 'o'), false);
  forgetCachedMeta();
  await assert.rejects(st.putObjectTags('bkt', 'o', [{ key: 'new', value: '2' }]), InsufficientWriteQuorumError);
  assert.deepEqual((await st.getObjectInfo('bkt', 'o')).tags, [{ key: 'old', value: '1' }]);
});

test('bucket tags: absent, set, replaced, removed; kept across reopen; new bucket of the same name starts bare', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  let st = await c.open();
  await st.makeBucket('bkt');
  const created = (await st.getBucketInfo('bkt')).created.getTime();
  assert.equal(await st.getBucketTags('bkt'), undefined);
  await st.putBucketTags('bkt', [{ key: 'env', value: 'prod' }]);
  await st.putBucketTags('bkt', [{ key: 'env', value: 'dev' }, { key: 'cost', value: '42' }]);
  assert.deepEqual(await st.getBucketTags('bkt'), [{ key: 'env', value: 'dev' }, { key: 'cost', value: '42' }]);
  assert.equal((await st.getBucketInfo('bkt')).created.getTime(), created);
  await st.close();
  st = await c.open();
  assert.deepEqual(await st.getBucketTags('bkt'), [{ key: 'env', value: 'dev' }, { key: 'cost', value: '42' }]);
  await st.putBucketTags('bkt', undefined);
  assert.equal(await st.getBucketTags('bkt'), undefined);
  await st.putBucketTags('bkt', [{ key: 'x', value: 'y' }]);
  await st.deleteBucket('bkt');
  await assert.rejects(st.getBucketTags('bkt'), BucketNotFoundError);
  await assert.rejects(st.putBucketTags('bkt', []), BucketNotFoundError);
  await st.makeBucket('bkt');
  assert.equal(await st.getBucketTags('bkt'), undefined);
});
