import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CompleteMultipartUploadCommand, CopyObjectCommand, CreateBucketCommand, CreateMultipartUploadCommand, DeleteBucketCommand,
  DeleteBucketTaggingCommand, DeleteObjectCommand, DeleteObjectTaggingCommand, GetBucketTaggingCommand, GetObjectCommand,
  GetObjectTaggingCommand, HeadObjectCommand, PutBucketTaggingCommand, PutObjectCommand, PutObjectTaggingCommand, UploadPartCommand, type Tag,
} from '@aws-sdk/client-s3';
import { startS3, type S3Harness } from './helpers/harness.js';
import { rejectsWith } from './helpers/rejects.js';
import { signedRequest } from './helpers/raw.js';

let h: S3Harness;
before(async () => {
  h = await startS3();
  await h.client.send(new CreateBucketCommand({ Bucket: 'tags' }));
});
after(async () => { await h.close(); });


const tagsOf = async (key: string): Promise<Tag[]> =>
  (await h.client.send(new GetObjectTaggingCommand({ Bucket: 'tags', Key: key }))).TagSet ?? [];

test('PutObject with x-amz-tagging, GET/HEAD tag count, Put/Get/DeleteObjectTagging', async () => {
  const put = await h.client.send(new PutObjectCommand({ Bucket: 'tags', Key: 'a/obj', Body: 'hello', Tagging: 'team=blue&cost%20center=42&flag' }));
  assert.deepEqual(await tagsOf('a/obj'), [{ Key: 'team', Value: 'blue' }, { Key: 'cost center', Value: '42' }, { Key: 'flag', Value: '' }]);
  const head = await h.client.send(new HeadObjectCommand({ Bucket: 'tags', Key: 'a/obj' }));
  assert.equal(head.$metadata.httpStatusCode, 200);
  const rawHead = await signedRequest(h.port, { method: 'HEAD', path: '/tags/a/obj' });
  assert.equal(rawHead.headers['x-amz-tagging-count'], '3');
  const get = await h.client.send(new GetObjectCommand({ Bucket: 'tags', Key: 'a/obj' }));
  assert.equal(get.TagCount, 3);
  assert.equal(await get.Body?.transformToString(), 'hello');

  await h.client.send(new PutObjectTaggingCommand({ Bucket: 'tags', Key: 'a/obj', Tagging: { TagSet: [{ Key: 'k', Value: 'ü v' }] } }));
  assert.deepEqual(await tagsOf('a/obj'), [{ Key: 'k', Value: 'ü v' }]);
  const after = await h.client.send(new HeadObjectCommand({ Bucket: 'tags', Key: 'a/obj' }));
  assert.equal(after.ETag, put.ETag);
  assert.equal(after.LastModified?.getTime(), head.LastModified?.getTime());

  const del = await h.client.send(new DeleteObjectTaggingCommand({ Bucket: 'tags', Key: 'a/obj' }));
  assert.equal(del.$metadata.httpStatusCode, 204);
  assert.deepEqual(await tagsOf('a/obj'), []);
  const bare = await h.client.send(new GetObjectCommand({ Bucket: 'tags', Key: 'a/obj' }));
  assert.equal(bare.TagCount, undefined);
  await bare.Body?.transformToString();
});

test('tag limits and errors follow AWS: BadRequest over 10, InvalidTag for key/value/duplicates, NoSuchKey', async () => {
  await h.client.send(new PutObjectCommand({ Bucket: 'tags', Key: 'limits', Body: 'x' }));
  const many = (n: number): Tag[] => Array.from({ length: n }, (_, i) => ({ Key: `k${i}`, Value: `v${i}` }));
  await h.client.send(new PutObjectTaggingCommand({ Bucket: 'tags', Key: 'limits', Tagging: { TagSet: many(10) } }));
  assert.equal((await tagsOf('limits')).length, 10);
  await rejectsWith(h.client.send(new PutObjectTaggingCommand({ Bucket: 'tags', Key: 'limits', Tagging: { TagSet: many(11) } })),
    'BadRequest', 400, /cannot be greater than 10/);
  const invalid: Tag[][] = [
    [{ Key: 'k'.repeat(129), Value: 'v' }],
    [{ Key: 'k', Value: 'v'.repeat(257) }],
    [{ Key: 'dup', Value: '1' }, { Key: 'dup', Value: '2' }],
    [{ Key: 'aws:reserved', Value: '1' }],
    [{ Key: 'comma,', Value: '1' }],
  ];
  for (const set of invalid) {
    await rejectsWith(h.client.send(new PutObjectTaggingCommand({ Bucket: 'tags', Key: 'limits', Tagging: { TagSet: set } })), 'InvalidTag', 400);
  }
  // A refused change leaves the previous set in place.
  assert.equal((await tagsOf('limits')).length, 10);
  await h.client.send(new PutObjectTaggingCommand({ Bucket: 'tags', Key: 'limits', Tagging: { TagSet: [{ Key: 'k'.repeat(128), Value: 'v'.repeat(256) }] } }));
  assert.equal((await tagsOf('limits'))[0]?.Key?.length, 128);

  await rejectsWith(h.client.send(new PutObjectCommand({ Bucket: 'tags', Key: 'never', Body: 'x', Tagging: 'a=1&a=2' })), 'InvalidTag', 400);
  await rejectsWith(h.client.send(new PutObjectCommand({ Bucket: 'tags', Key: 'never', Body: 'x', Tagging: many(11).map((t) => `${t.Key}=${t.Value}`).join('&') })),
    'BadRequest', 400);
  await rejectsWith(h.client.send(new HeadObjectCommand({ Bucket: 'tags', Key: 'never' })), 'NotFound', 404);
  await rejectsWith(h.client.send(new GetObjectTaggingCommand({ Bucket: 'tags', Key: 'never' })), 'NoSuchKey', 404);
  await rejectsWith(h.client.send(new PutObjectTaggingCommand({ Bucket: 'tags', Key: 'never', Tagging: { TagSet: [] } })), 'NoSuchKey', 404);
  await rejectsWith(h.client.send(new GetObjectTaggingCommand({ Bucket: 'no-such-bucket', Key: 'x' })), 'NoSuchBucket', 404);
  const malformed = await signedRequest(h.port, { method: 'PUT', path: '/tags/limits', query: { tagging: '' }, body: '<Tagging><Nope/></Tagging>' });
  assert.equal(malformed.status, 400);
  assert.match(malformed.body, /<Code>MalformedXML<\/Code>/);
});

test('CopyObject keeps tags by default, replaces them with x-amz-tagging-directive REPLACE', async () => {
  await h.client.send(new PutObjectCommand({ Bucket: 'tags', Key: 'src', Body: 'copy me', Tagging: 'a=1&b=2' }));
  await h.client.send(new CopyObjectCommand({ Bucket: 'tags', Key: 'copied', CopySource: 'tags/src', Tagging: 'ignored=1' }));
  assert.deepEqual(await tagsOf('copied'), [{ Key: 'a', Value: '1' }, { Key: 'b', Value: '2' }]);
  await h.client.send(new CopyObjectCommand({ Bucket: 'tags', Key: 'replaced', CopySource: 'tags/src', TaggingDirective: 'REPLACE', Tagging: 'c=3' }));
  assert.deepEqual(await tagsOf('replaced'), [{ Key: 'c', Value: '3' }]);
  await h.client.send(new CopyObjectCommand({ Bucket: 'tags', Key: 'cleared', CopySource: 'tags/src', TaggingDirective: 'REPLACE' }));
  assert.deepEqual(await tagsOf('cleared'), []);
  const bad = await signedRequest(h.port, {
    method: 'PUT', path: '/tags/x', headers: { 'x-amz-copy-source': '/tags/src', 'x-amz-tagging-directive': 'MERGE' },
  });
  assert.equal(bad.status, 400);
  assert.match(bad.body, /<Code>InvalidArgument<\/Code>/);
});

test('CreateMultipartUpload with x-amz-tagging tags the completed object', async () => {
  const { UploadId } = await h.client.send(new CreateMultipartUploadCommand({ Bucket: 'tags', Key: 'mp', Tagging: 'stage=raw' }));
  const part = await h.client.send(new UploadPartCommand({ Bucket: 'tags', Key: 'mp', UploadId, PartNumber: 1, Body: 'part one' }));
  await h.client.send(new CompleteMultipartUploadCommand({
    Bucket: 'tags', Key: 'mp', UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
  }));
  assert.deepEqual(await tagsOf('mp'), [{ Key: 'stage', Value: 'raw' }]);
  await rejectsWith(h.client.send(new CreateMultipartUploadCommand({ Bucket: 'tags', Key: 'mp2', Tagging: `${'k'.repeat(129)}=v` })), 'InvalidTag', 400);
});

test('bucket tagging: NoSuchTagSet, put/get/replace/delete, 50-tag limit, gone with the bucket', async () => {
  await h.client.send(new CreateBucketCommand({ Bucket: 'btags' }));
  await rejectsWith(h.client.send(new GetBucketTaggingCommand({ Bucket: 'btags' })), 'NoSuchTagSet', 404);
  const put = await h.client.send(new PutBucketTaggingCommand({ Bucket: 'btags', Tagging: { TagSet: [{ Key: 'env', Value: 'prod' }, { Key: 'o', Value: '' }] } }));
  assert.equal(put.$metadata.httpStatusCode, 204);
  assert.deepEqual((await h.client.send(new GetBucketTaggingCommand({ Bucket: 'btags' }))).TagSet, [{ Key: 'env', Value: 'prod' }, { Key: 'o', Value: '' }]);
  const fifty = Array.from({ length: 50 }, (_, i) => ({ Key: `k${i}`, Value: 'v' }));
  await h.client.send(new PutBucketTaggingCommand({ Bucket: 'btags', Tagging: { TagSet: fifty } }));
  assert.equal((await h.client.send(new GetBucketTaggingCommand({ Bucket: 'btags' }))).TagSet?.length, 50);
  await rejectsWith(h.client.send(new PutBucketTaggingCommand({ Bucket: 'btags', Tagging: { TagSet: [...fifty, { Key: 'x', Value: 'y' }] } })), 'InvalidTag', 400);
  await rejectsWith(h.client.send(new PutBucketTaggingCommand({ Bucket: 'btags', Tagging: { TagSet: [{ Key: 'a', Value: '1' }, { Key: 'a', Value: '2' }] } })), 'InvalidTag', 400);
  const unsigned = await signedRequest(h.port, {
    method: 'PUT', path: '/btags', query: { tagging: '' }, body: '<Tagging><TagSet><Tag><Key>a</Key><Value>b</Value></Tag></TagSet></Tagging>',
  });
  assert.equal(unsigned.status, 400, 'Content-MD5 or a checksum is required');
  assert.match(unsigned.body, /<Code>InvalidRequest<\/Code>/);
  const del = await h.client.send(new DeleteBucketTaggingCommand({ Bucket: 'btags' }));
  assert.equal(del.$metadata.httpStatusCode, 204);
  await rejectsWith(h.client.send(new GetBucketTaggingCommand({ Bucket: 'btags' })), 'NoSuchTagSet', 404);
  await h.client.send(new DeleteBucketTaggingCommand({ Bucket: 'btags' }));
  await h.client.send(new PutBucketTaggingCommand({ Bucket: 'btags', Tagging: { TagSet: [{ Key: 'a', Value: 'b' }] } }));
  await h.client.send(new DeleteBucketCommand({ Bucket: 'btags' }));
  await rejectsWith(h.client.send(new GetBucketTaggingCommand({ Bucket: 'btags' })), 'NoSuchBucket', 404);
  await h.client.send(new CreateBucketCommand({ Bucket: 'btags' }));
  await rejectsWith(h.client.send(new GetBucketTaggingCommand({ Bucket: 'btags' })), 'NoSuchTagSet', 404);
  await h.client.send(new DeleteObjectCommand({ Bucket: 'tags', Key: 'never' }));
});
