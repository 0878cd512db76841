import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rename } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { openPools } from './open-storage.js';
import type { Storage } from './open-storage.js';
import { ServerPools } from './server-pools.js';
import { FormatMismatchError, UploadNotFoundError } from './storage-errors.js';
import { NO_META, get, pattern, put, testCluster, type TestCluster } from './testing.js';

let a: TestCluster;
let b: TestCluster;
let st: ServerPools;
let next = 0.5;
const opened: Storage[] = [];

async function open(random?: () => number): Promise<ServerPools> {
  const s = await openPools({ pools: [{ sets: a.sets, parity: 2 }, { sets: b.sets, parity: 1 }], driveCheckIntervalMs: 3_600_000 });
  opened.push(s);
  assert.ok(s instanceof ServerPools);
  return random === undefined ? s : new ServerPools(s.pools, random);
}

/** Index of the pool holding `key` (-1: none; throws when both do). */
async function poolOf(pools: ServerPools, bucket: string, key: string): Promise<number> {
  const held = await Promise.all(pools.pools.map(async (p) => (await p.recordOf(bucket, key)) !== null));
  assert.ok(held.filter(Boolean).length <= 1, `${key} is in one pool`);
  return held.indexOf(true);
}

before(async () => {
  a = await testCluster(1, 4, 2);
  b = await testCluster(1, 2, 1);
  st = await open(() => next);
  await st.makeBucket('b');
});

after(async () => {
  await Promise.all(opened.map((s) => s.close()));
  await a.cleanup();
  await b.cleanup();
});

test('one deployment: every pool is formatted with the first pool\'s deployment id', () => {
  assert.equal(st.pools.length, 2);
  assert.equal(st.pools[1]!.deploymentId, st.pools[0]!.deploymentId);
});

test('new objects go to a pool weighted by free space; an existing object stays in its pool', async () => {
  // Both pools share one filesystem, so pool 1 (4 drives) has twice pool 2's free space: [0, 2/3) → pool 1.
  next = 0.1;
  await put(st, 'b', 'first', pattern(1000, 1));
  next = 0.9;
  await put(st, 'b', 'second', pattern(70_000, 2));
  assert.equal(await poolOf(st, 'b', 'first'), 0);
  assert.equal(await poolOf(st, 'b', 'second'), 1);
  next = 0.1;
  await put(st, 'b', 'second', pattern(5000, 3));
  assert.equal(await poolOf(st, 'b', 'second'), 1, 'the overwrite stays in pool 2');
  assert.deepEqual(await get(st, 'b', 'second'), pattern(5000, 3));
  assert.deepEqual(await get(st, 'b', 'first'), pattern(1000, 1));
});

test('the default random choice spreads new objects over both pools', async () => {
  const spread = await open();
  for (let i = 0; i < 40; i++) await put(spread, 'b', `spread/${i}`, pattern(100, i));
  const where = await Promise.all(Array.from({ length: 40 }, (_, i) => poolOf(spread, 'b', `spread/${i}`)));
  assert.ok(where.includes(0) && where.includes(1), `pools used: ${where.join('')}`);
});

test('listing merges the pools in key order, with paging', async () => {
  const keys: string[] = [];
  let startAfter = '';
  for (;;) {
    const page = await st.listObjects('b', { prefix: '', delimiter: '', startAfter, maxKeys: 7 });
    keys.push(...page.objects.map((o) => o.key));
    if (!page.isTruncated) break;
    startAfter = page.nextMarker!;
  }
  const expected = ['first', 'second', ...Array.from({ length: 40 }, (_, i) => `spread/${i}`)].sort();
  assert.deepEqual(keys, expected);
  const top = await st.listObjects('b', { prefix: '', delimiter: '/', startAfter: '', maxKeys: 100 });
  assert.deepEqual(top.commonPrefixes, ['spread/']);
});

test('multipart uploads live in one pool and are found from any call', async () => {
  next = 0.95;
  const id = await st.createMultipartUpload('b', 'mp', { metadata: NO_META });
  const part = pattern(5 * 1024 * 1024, 9);
  const p1 = await st.putObjectPart('b', 'mp', id, 1, Readable.from([part]), { size: part.length });
  const p2 = await st.putObjectPart('b', 'mp', id, 2, Readable.from([Buffer.from('tail')]), { size: 4 });
  assert.equal((await st.listMultipartUploads('b', { prefix: '', delimiter: '', keyMarker: '', uploadIdMarker: '', maxUploads: 10 })).uploads.length, 1);
  assert.equal((await st.listParts('b', 'mp', id, { partNumberMarker: 0, maxParts: 10 })).parts.length, 2);
  await st.completeMultipartUpload('b', 'mp', id, [{ partNumber: 1, etag: p1.etag }, { partNumber: 2, etag: p2.etag }]);
  assert.equal(await poolOf(st, 'b', 'mp'), 1);
  assert.deepEqual(await get(st, 'b', 'mp'), Buffer.concat([part, Buffer.from('tail')]));
});

test('the options of both features reach the pool: upload checksum type, internal metadata, part checksums, lock', async () => {
  next = 0.95;
  const id = await st.createMultipartUpload('b', 'opts', {
    metadata: NO_META, checksumAlgorithm: 'CRC32', checksumType: 'FULL_OBJECT', internal: { 'sse.kind': 'test' }, lock: { legalHold: true },
  });
  const listed = await st.listParts('b', 'opts', id, { partNumberMarker: 0, maxParts: 10 });
  assert.equal(listed.upload.checksumType, 'FULL_OBJECT');
  assert.deepEqual(listed.upload.internal, { 'sse.kind': 'test' });
  const p1 = await st.putObjectPart('b', 'opts', id, 1, Readable.from([Buffer.from('abc')]), { size: 3, checksums: () => ({ CRC32: 'NSRBwg==' }) });
  const retainUntil = new Date(Date.now() + 86_400_000);
  const done = await st.completeMultipartUpload('b', 'opts', id, [{ partNumber: 1, etag: p1.etag }], {
    checksums: { CRC32: 'NSRBwg==' }, defaultLock: { retention: { mode: 'GOVERNANCE', retainUntil } },
  });
  assert.equal(await poolOf(st, 'b', 'opts'), 1);
  for (const info of [done, await st.getObjectInfo('b', 'opts')]) {
    assert.deepEqual(info.checksums, { CRC32: 'NSRBwg==' });
    assert.deepEqual(info.parts?.map((p) => p.checksums), [{ CRC32: 'NSRBwg==' }]);
    assert.deepEqual(info.internal, { 'sse.kind': 'test' });
    // The upload's own lock wins over the bucket default given at completion.
    assert.deepEqual(info.lock, { legalHold: true });
  }
  const changed = await st.updateObjectLock('b', 'opts', {}, () => ({ retention: { mode: 'GOVERNANCE', retainUntil } }));
  assert.deepEqual(changed.internal, { 'sse.kind': 'test' });
  assert.deepEqual((await st.getObjectInfo('b', 'opts')).internal, { 'sse.kind': 'test' });
  assert.deepEqual((await st.getObjectInfo('b', 'opts')).lock?.retention?.retainUntil, retainUntil);
});

test('getMultipartInfo finds an upload in the pool holding it and reads no part record; putObjectPart reads none either', async () => {
  next = 0.95;
  const id = await st.createMultipartUpload('b', 'mp-info', { metadata: NO_META, checksumAlgorithm: 'SHA256', internal: { 'sse.kind': 'test' } });
  for (let n = 1; n <= 3; n++) await st.putObjectPart('b', 'mp-info', id, n, Readable.from([Buffer.from(`part ${n}`)]), { size: 6 });
  const reads: string[] = [];
  const drives = st.pools.flatMap((p) => p.sets.flatMap((s) => s.drives.map((d) => d.drive)));
  const restore = drives.map((d) => {
    const readSysFile = d.readSysFile.bind(d);
    d.readSysFile = (path) => { reads.push(path); return readSysFile(path); };
    return () => { d.readSysFile = readSysFile; };
  });
  try {
    const info = await st.getMultipartInfo('b', 'mp-info', id);
    assert.deepEqual([info.key, info.uploadId, info.checksumAlgorithm, info.internal], ['mp-info', id, 'SHA256', { 'sse.kind': 'test' }]);
    await st.putObjectPart('b', 'mp-info', id, 4, Readable.from([Buffer.from('part 4')]), { size: 6 });
    assert.ok(reads.length > 0 && reads.every((p) => p.endsWith('/upload.meta')), `only upload records read: ${reads.join(', ')}`);
  } finally {
    for (const r of restore) r();
  }
  await assert.rejects(st.getMultipartInfo('b', 'mp-info', '00000000-0000-4000-8000-000000000000'), UploadNotFoundError);
  await assert.rejects(st.getMultipartInfo('b', 'other-key', id), UploadNotFoundError);
  await st.abortMultipartUpload('b', 'mp-info', id);
  await assert.rejects(st.getMultipartInfo('b', 'mp-info', id), UploadNotFoundError);
});


test('a key written to both pools (two racing first writes) reads as the newest; a delete removes both', async () => {
  await put(st.pools[0]!, 'b', 'raced', Buffer.from('older'));
  await new Promise((r) => setTimeout(r, 5));
  await put(st.pools[1]!, 'b', 'raced', Buffer.from('newer'));
  assert.deepEqual(await get(st, 'b', 'raced'), Buffer.from('newer'));
  const listed = await st.listObjects('b', { prefix: 'raced', delimiter: '', startAfter: '', maxKeys: 10 });
  assert.deepEqual(listed.objects.map((o) => [o.key, o.size]), [['raced', 5]]);
  await st.deleteObject('b', 'raced');
  assert.equal(await poolOf(st, 'b', 'raced'), -1);
});

test('versions of a key stay in its pool; a bucket is empty only when every pool is', async () => {
  await st.makeBucket('v');
  next = 0.9;
  const v1 = await st.putObject('v', 'k', Readable.from([Buffer.from('one')]), { size: 3, metadata: NO_META, versioning: 'enabled' });
  next = 0.1;
  await st.putObject('v', 'k', Readable.from([Buffer.from('two')]), { size: 3, metadata: NO_META, versioning: 'enabled' });
  assert.equal(await poolOf(st, 'v', 'k'), 1);
  const versions = await st.listObjectVersions('v', { prefix: '', delimiter: '', keyMarker: '', versionIdMarker: '', maxKeys: 1 });
  assert.equal(versions.isTruncated, true);
  const rest = await st.listObjectVersions('v', { prefix: '', delimiter: '', keyMarker: 'k', versionIdMarker: versions.nextVersionIdMarker!, maxKeys: 10 });
  assert.deepEqual(rest.versions.map((v) => v.versionId), [v1.versionId]);
  await assert.rejects(st.deleteBucket('v'), { name: 'BucketNotEmptyError' });
  for (const v of [...versions.versions, ...rest.versions]) await st.deleteObject('v', 'k', { versionId: v.versionId });
  await st.deleteBucket('v');
  await assert.rejects(st.getBucketInfo('v'), { name: 'BucketNotFoundError' });
  await assert.rejects(st.pools[1]!.getBucketInfo('v'), { name: 'BucketNotFoundError' });
});

test('a pool whose drives belong to another deployment is refused', async () => {
  const other = await testCluster(1, 2, 1);
  try {
    const alone = await other.open();
    await alone.close();
    await assert.rejects(openPools({ pools: [{ sets: a.sets, parity: 2 }, { sets: other.sets, parity: 1 }] }), (err: unknown) => {
      assert.ok(err instanceof FormatMismatchError);
      assert.match(err.message, /belong to deployment .*, the first pool's to /);
      return true;
    });
  } finally {
    await other.cleanup();
  }
});

test('a pool below read quorum: reads of keys another pool holds are served; absence and writes are not assumed', async () => {
  next = 0.1;
  await put(st, 'b', 'in-first', pattern(3000, 7));
  next = 0.9;
  await put(st, 'b', 'in-second', pattern(3000, 8));
  assert.equal(await poolOf(st, 'b', 'in-first'), 0);
  assert.equal(await poolOf(st, 'b', 'in-second'), 1);
  // Every drive of the second pool gone (its directories moved away): it cannot answer for any key.
  const moved = b.sets.flat();
  await Promise.all(moved.map((d) => rename(d, `${d}.away`)));
  try {
    assert.deepEqual(await get(st, 'b', 'in-first'), pattern(3000, 7));
    assert.equal((await st.getObjectInfo('b', 'in-first')).size, 3000);
    await assert.rejects(get(st, 'b', 'in-second'), (err: Error) => err.name !== 'ObjectNotFoundError');
    await assert.rejects(st.getObjectInfo('b', 'never-written'), (err: Error) => err.name !== 'ObjectNotFoundError',
      'the second pool may hold it: not found is not proven');
    await assert.rejects(st.putObjectTags('b', 'in-first', [{ key: 'k', value: 'v' }]), (err: Error) => err.name !== 'ObjectNotFoundError');
  } finally {
    await Promise.all(moved.map((d) => rename(`${d}.away`, d)));
  }
});
