import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateBucketCommand, DeleteBucketCommand, DeleteObjectCommand, ListObjectVersionsCommand, PutBucketVersioningCommand, PutObjectCommand,
  S3ServiceException, type ListObjectVersionsCommandOutput,
} from '@aws-sdk/client-s3';
import { startS3, type S3Harness } from './helpers/harness.js';
import { errorCode, signedRequest } from './helpers/raw.js';

let h: S3Harness;
/** key → version ids newest first, as written below ("M:" marks a delete marker). */
const written = new Map<string, string[]>();

before(async () => {
  h = await startS3();
  await h.client.send(new CreateBucketCommand({ Bucket: 'lvb' }));
  await h.client.send(new PutObjectCommand({ Bucket: 'lvb', Key: 'a/old', Body: 'unversioned' }));
  await h.client.send(new PutBucketVersioningCommand({ Bucket: 'lvb', VersioningConfiguration: { Status: 'Enabled' } }));
  const put = async (key: string, body: string): Promise<void> => {
    const r = await h.client.send(new PutObjectCommand({ Bucket: 'lvb', Key: key, Body: body }));
    written.set(key, [r.VersionId!, ...(written.get(key) ?? [])]);
  };
  written.set('a/old', ['null']);
  await put('a/old', 'v2');
  await put('b', 'b1');
  await put('b', 'b22');
  await put('b', 'b333');
  const del = await h.client.send(new DeleteObjectCommand({ Bucket: 'lvb', Key: 'c' }));
  written.set('c', [`M:${del.VersionId}`]);
  await put('d/x', 'dx');
  await put('e', 'e');
});
after(async () => { await h.close(); });

function entries(out: ListObjectVersionsCommandOutput): string[] {
  const all = [
    ...(out.Versions ?? []).map((v) => ({ key: v.Key!, id: v.VersionId!, latest: v.IsLatest, at: `${v.Key}\0${v.VersionId}` })),
    ...(out.DeleteMarkers ?? []).map((m) => ({ key: m.Key!, id: `M:${m.VersionId}`, latest: m.IsLatest, at: `${m.Key}\0${m.VersionId}` })),
  ];
  return all.map((e) => `${e.key} ${e.id}${e.latest ? ' latest' : ''}`);
}

const expectedAll = (): string[] => [...written.entries()]
  .sort(([a], [b]) => (a < b ? -1 : 1))
  .flatMap(([k, ids]) => ids.map((id, i) => `${k} ${id}${i === 0 ? ' latest' : ''}`));

test('ListObjectVersions lists every version and delete marker, key ascending and newest first, with IsLatest', async () => {
  const out = await h.client.send(new ListObjectVersionsCommand({ Bucket: 'lvb' }));
  assert.equal(out.IsTruncated, false);
  assert.deepEqual(entries(out).sort(), expectedAll().sort());
  // The wire order interleaves Version and DeleteMarker elements in listing order.
  const raw = await signedRequest(h.port, { method: 'GET', path: '/lvb', query: { versions: '' } });
  const order = [...raw.body.matchAll(/<(Version|DeleteMarker)><Key>([^<]*)<\/Key><VersionId>([^<]*)<\/VersionId><IsLatest>(true|false)<\/IsLatest>/g)]
    .map((m) => `${m[2]} ${m[1] === 'DeleteMarker' ? 'M:' : ''}${m[3]}${m[4] === 'true' ? ' latest' : ''}`);
  assert.deepEqual(order, expectedAll());
  const b = (out.Versions ?? []).filter((v) => v.Key === 'b').map((v) => v.Size);
  assert.deepEqual(b, [4, 3, 2]);
  assert.ok((out.DeleteMarkers ?? [])[0]?.Owner?.ID !== undefined);
});

test('paging with max-keys, NextKeyMarker and NextVersionIdMarker walks every entry exactly once', async () => {
  for (const pageSize of [1, 2, 3]) {
    const seen: string[] = [];
    let keyMarker: string | undefined;
    let versionIdMarker: string | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const out = await h.client.send(new ListObjectVersionsCommand({ Bucket: 'lvb', MaxKeys: pageSize, KeyMarker: keyMarker, VersionIdMarker: versionIdMarker }));
      const page = [...(out.Versions ?? []), ...(out.DeleteMarkers ?? [])].length;
      assert.ok(page <= pageSize);
      seen.push(...entries(out));
      if (!out.IsTruncated) break;
      keyMarker = out.NextKeyMarker;
      versionIdMarker = out.NextVersionIdMarker;
    }
    assert.deepEqual(seen.sort(), expectedAll().sort(), `page size ${pageSize}`);
  }
  const afterKey = await h.client.send(new ListObjectVersionsCommand({ Bucket: 'lvb', KeyMarker: 'b' }));
  assert.deepEqual(entries(afterKey).map((e) => e.split(' ')[0]).sort(), ['c', 'd/x', 'e']);
  const mid = written.get('b')![0]!;
  const afterVersion = await h.client.send(new ListObjectVersionsCommand({ Bucket: 'lvb', KeyMarker: 'b', VersionIdMarker: mid, MaxKeys: 2 }));
  assert.deepEqual(entries(afterVersion), [`b ${written.get('b')![1]}`, `b ${written.get('b')![2]}`]);
  assert.equal(afterVersion.IsTruncated, true);
  assert.equal(afterVersion.NextKeyMarker, 'b');
  assert.equal(afterVersion.NextVersionIdMarker, written.get('b')![2]);
});

test('prefix and delimiter roll keys up into CommonPrefixes', async () => {
  const out = await h.client.send(new ListObjectVersionsCommand({ Bucket: 'lvb', Delimiter: '/' }));
  assert.deepEqual((out.CommonPrefixes ?? []).map((p) => p.Prefix), ['a/', 'd/']);
  assert.deepEqual([...new Set(entries(out).map((e) => e.split(' ')[0]))].sort(), ['b', 'c', 'e']);
  const pre = await h.client.send(new ListObjectVersionsCommand({ Bucket: 'lvb', Prefix: 'a/' }));
  assert.deepEqual(entries(pre), [`a/old ${written.get('a/old')![0]} latest`, 'a/old null']);
  const paged = await h.client.send(new ListObjectVersionsCommand({ Bucket: 'lvb', Delimiter: '/', MaxKeys: 1 }));
  assert.deepEqual((paged.CommonPrefixes ?? []).map((p) => p.Prefix), ['a/']);
  assert.equal(paged.NextKeyMarker, 'a/');
  assert.equal(paged.NextVersionIdMarker, undefined);
  const next = await h.client.send(new ListObjectVersionsCommand({ Bucket: 'lvb', Delimiter: '/', MaxKeys: 1, KeyMarker: 'a/' }));
  assert.deepEqual(entries(next), [`b ${written.get('b')![0]} latest`]);
});

test('errors: version-id-marker without key-marker and a malformed marker are InvalidArgument; a missing bucket is NoSuchBucket; a bucket of versions cannot be deleted', async () => {
  const noKey = await signedRequest(h.port, { method: 'GET', path: '/lvb', query: { versions: '', 'version-id-marker': written.get('b')![0]! } });
  assert.equal(noKey.status, 400);
  assert.equal(errorCode(noKey.body), 'InvalidArgument');
  const bad = await signedRequest(h.port, { method: 'GET', path: '/lvb', query: { versions: '', 'key-marker': 'b', 'version-id-marker': 'nope' } });
  assert.equal(errorCode(bad.body), 'InvalidArgument');
  const badMax = await signedRequest(h.port, { method: 'GET', path: '/lvb', query: { versions: '', 'max-keys': '-1' } });
  assert.equal(badMax.status, 400);
  await assert.rejects(h.client.send(new ListObjectVersionsCommand({ Bucket: 'missing-bucket' })), (e: unknown) => e instanceof S3ServiceException && e.name === 'NoSuchBucket');
  await assert.rejects(h.client.send(new DeleteBucketCommand({ Bucket: 'lvb' })), (e: unknown) => e instanceof S3ServiceException && e.name === 'BucketNotEmpty');
});
