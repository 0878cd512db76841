import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateBucketCommand, ListObjectsCommand, ListObjectsV2Command, PutObjectCommand, S3ServiceException,
} from '@aws-sdk/client-s3';
import { startS3, type S3Harness } from './helpers/harness.js';
import { errorCode, signedRequest } from './helpers/raw.js';

let h: S3Harness;
const B = 'listing';
// 2500 keys: 25 "directories" of 99 files plus 25 top-level files → 2 pages of 1000 and more.
const keys: string[] = [];
for (let d = 0; d < 25; d++) for (let f = 0; f < 99; f++) keys.push(`dir${String(d).padStart(2, '0')}/file${String(f).padStart(3, '0')}`);
for (let f = 0; f < 25; f++) keys.push(`top${String(f).padStart(2, '0')}`);
keys.sort();

before(async () => {
  h = await startS3();
  await h.client.send(new CreateBucketCommand({ Bucket: B }));
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < keys.length) {
      const key = keys[next++]!;
      await h.client.send(new PutObjectCommand({ Bucket: B, Key: key, Body: key }));
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
});
after(async () => { await h.close(); });

test('ListObjectsV2 pages through 2500 keys with opaque continuation tokens', async () => {
  const seen: string[] = [];
  let token: string | undefined;
  let pages = 0;
  do {
    const res = await h.client.send(new ListObjectsV2Command({ Bucket: B, ...(token !== undefined ? { ContinuationToken: token } : {}) }));
    pages++;
    assert.equal(res.KeyCount, res.Contents?.length ?? 0);
    assert.equal(res.MaxKeys, 1000);
    for (const o of res.Contents ?? []) {
      seen.push(o.Key!);
      assert.equal(o.Size, Buffer.byteLength(o.Key!));
      assert.equal(o.StorageClass, 'STANDARD');
      assert.equal(o.Owner, undefined);
    }
    token = res.IsTruncated === true ? res.NextContinuationToken : undefined;
    if (res.IsTruncated === true) assert.ok(token);
  } while (token !== undefined);
  assert.equal(pages, 3);
  assert.deepEqual(seen, keys);
});

test('ListObjectsV2 with delimiter returns common prefixes and paginates over them', async () => {
  const prefixes: string[] = [];
  const files: string[] = [];
  let token: string | undefined;
  do {
    const res = await h.client.send(new ListObjectsV2Command({ Bucket: B, Delimiter: '/', MaxKeys: 7, ...(token !== undefined ? { ContinuationToken: token } : {}) }));
    assert.equal(res.KeyCount, (res.Contents?.length ?? 0) + (res.CommonPrefixes?.length ?? 0));
    assert.ok((res.KeyCount ?? 0) <= 7);
    prefixes.push(...(res.CommonPrefixes ?? []).map((p) => p.Prefix!));
    files.push(...(res.Contents ?? []).map((o) => o.Key!));
    token = res.IsTruncated === true ? res.NextContinuationToken : undefined;
  } while (token !== undefined);
  assert.equal(prefixes.length, 25);
  assert.equal(prefixes[0], 'dir00/');
  assert.deepEqual(files, keys.filter((k) => k.startsWith('top')));
});

test('ListObjectsV2: prefix, start-after, fetch-owner, max-keys=0', async () => {
  const res = await h.client.send(new ListObjectsV2Command({ Bucket: B, Prefix: 'dir03/', StartAfter: 'dir03/file090', FetchOwner: true }));
  assert.deepEqual(res.Contents?.map((o) => o.Key), keys.filter((k) => k.startsWith('dir03/') && k > 'dir03/file090'));
  assert.equal(res.StartAfter, 'dir03/file090');
  assert.ok(res.Contents?.[0]?.Owner?.ID);
  const zero = await h.client.send(new ListObjectsV2Command({ Bucket: B, MaxKeys: 0 }));
  assert.equal(zero.KeyCount, 0);
  assert.equal(zero.IsTruncated, false);
});

test('ListObjects v1 pages with Marker; NextMarker only comes with a delimiter', async () => {
  const seen: string[] = [];
  let marker: string | undefined;
  for (;;) {
    const res = await h.client.send(new ListObjectsCommand({ Bucket: B, ...(marker !== undefined ? { Marker: marker } : {}) }));
    assert.equal(res.NextMarker, undefined);
    const page = (res.Contents ?? []).map((o) => o.Key!);
    seen.push(...page);
    if (res.IsTruncated !== true) break;
    marker = page[page.length - 1];
  }
  assert.deepEqual(seen, keys);

  const withDelimiter = await h.client.send(new ListObjectsCommand({ Bucket: B, Delimiter: '/', MaxKeys: 10 }));
  assert.equal(withDelimiter.IsTruncated, true);
  assert.equal(withDelimiter.CommonPrefixes?.length, 10);
  assert.equal(withDelimiter.NextMarker, 'dir09/');
  const rest = await h.client.send(new ListObjectsCommand({ Bucket: B, Delimiter: '/', Marker: withDelimiter.NextMarker! }));
  assert.equal(rest.CommonPrefixes?.[0]?.Prefix, 'dir10/');
  assert.equal(rest.CommonPrefixes?.length, 15);
  assert.equal(rest.Contents?.length, 25);
});

test('encoding-type=url encodes keys and prefixes in the listing', async () => {
  await h.client.send(new PutObjectCommand({ Bucket: B, Key: 'zz enc/ä+b', Body: 'x' }));
  const res = await signedRequest(h.port, { method: 'GET', path: `/${B}`, query: { 'list-type': '2', prefix: 'zz enc/', 'encoding-type': 'url' } });
  assert.equal(res.status, 200);
  assert.match(res.body, /<Prefix>zz%20enc\/<\/Prefix>/);
  assert.match(res.body, /<Key>zz%20enc\/%C3%A4%2Bb<\/Key>/);
  assert.match(res.body, /<EncodingType>url<\/EncodingType>/);
  const sdk = await h.client.send(new ListObjectsV2Command({ Bucket: B, Prefix: 'zz enc/' }));
  assert.deepEqual(sdk.Contents?.map((o) => o.Key), ['zz enc/ä+b']);
});

test('bad list parameters are InvalidArgument; missing bucket is NoSuchBucket', async () => {
  const queries: Array<Record<string, string>> = [{ 'list-type': '2', 'max-keys': '-1' }, { 'list-type': '2', 'continuation-token': 'garbage' }, { 'encoding-type': 'zip' }];
  for (const query of queries) {
    const res = await signedRequest(h.port, { method: 'GET', path: `/${B}`, query });
    assert.equal(res.status, 400, JSON.stringify(query));
    assert.equal(errorCode(res.body), 'InvalidArgument', JSON.stringify(query));
  }
  await assert.rejects(h.client.send(new ListObjectsV2Command({ Bucket: 'nope-bucket' })), (e: unknown) => e instanceof S3ServiceException && e.name === 'NoSuchBucket');
});
