import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateBucketCommand, DeleteBucketCommand, DeleteObjectCommand, GetBucketLocationCommand, HeadBucketCommand,
  ListBucketsCommand, PutObjectCommand, } from '@aws-sdk/client-s3';
import { startS3, type S3Harness } from './helpers/harness.js';
import { rejectsWith } from './helpers/rejects.js';
import { errorCode, rawRequest, signedRequest } from './helpers/raw.js';

let h: S3Harness;
before(async () => { h = await startS3(); });
after(async () => { await h.close(); });


test('create, list, head, locate and delete a bucket', async () => {
  await h.client.send(new CreateBucketCommand({ Bucket: 'alpha' }));
  await h.client.send(new CreateBucketCommand({ Bucket: 'beta.bucket-1' }));
  const list = await h.client.send(new ListBucketsCommand({}));
  assert.deepEqual(list.Buckets?.map((b) => b.Name), ['alpha', 'beta.bucket-1']);
  assert.ok(list.Buckets?.every((b) => b.CreationDate instanceof Date));
  assert.ok(list.Owner?.ID);
  const head = await h.client.send(new HeadBucketCommand({ Bucket: 'alpha' }));
  assert.equal(head.$metadata.httpStatusCode, 200);
  assert.equal(head.BucketRegion, 'us-east-1');
  const loc = await h.client.send(new GetBucketLocationCommand({ Bucket: 'alpha' }));
  assert.equal(loc.LocationConstraint ?? '', '');
  await h.client.send(new DeleteBucketCommand({ Bucket: 'beta.bucket-1' }));
  await rejectsWith(h.client.send(new HeadBucketCommand({ Bucket: 'beta.bucket-1' })), 'NotFound', 404);
});

test('an existing bucket is BucketAlreadyOwnedByYou (409)', async () => {
  await h.client.send(new CreateBucketCommand({ Bucket: 'twice' }));
  await rejectsWith(h.client.send(new CreateBucketCommand({ Bucket: 'twice' })), 'BucketAlreadyOwnedByYou', 409);
});

test('CreateBucketConfiguration with this region is accepted, another region is refused', async () => {
  const ok = await signedRequest(h.port, {
    method: 'PUT', path: '/with-config',
    body: '<CreateBucketConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><LocationConstraint>us-east-1</LocationConstraint></CreateBucketConfiguration>',
  });
  assert.equal(ok.status, 200, ok.body);
  const bad = await signedRequest(h.port, {
    method: 'PUT', path: '/other-region',
    body: '<CreateBucketConfiguration><LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>',
  });
  assert.equal(bad.status, 400);
  assert.equal(errorCode(bad.body), 'InvalidLocationConstraint');
  const malformed = await signedRequest(h.port, { method: 'PUT', path: '/malformed-config', body: '<CreateBucketConfiguration>' });
  assert.equal(malformed.status, 400);
  assert.equal(errorCode(malformed.body), 'MalformedXML');
});

test('deleting a non-empty bucket is BucketNotEmpty; a missing bucket is NoSuchBucket', async () => {
  await h.client.send(new CreateBucketCommand({ Bucket: 'full' }));
  await h.client.send(new PutObjectCommand({ Bucket: 'full', Key: 'x', Body: 'data' }));
  await rejectsWith(h.client.send(new DeleteBucketCommand({ Bucket: 'full' })), 'BucketNotEmpty', 409);
  await h.client.send(new DeleteObjectCommand({ Bucket: 'full', Key: 'x' }));
  await h.client.send(new DeleteBucketCommand({ Bucket: 'full' }));
  await rejectsWith(h.client.send(new DeleteBucketCommand({ Bucket: 'full' })), 'NoSuchBucket', 404);
  await rejectsWith(h.client.send(new GetBucketLocationCommand({ Bucket: 'never-made' })), 'NoSuchBucket', 404);
});

test('invalid bucket names are InvalidBucketName and nothing is created', async () => {
  for (const name of ['UPPER', 'ab', 'a..b', '192.168.0.1', 'under_score', '-dash', 'xn--punycode', `${'a'.repeat(64)}`]) {
    const res = await signedRequest(h.port, { method: 'PUT', path: `/${encodeURIComponent(name)}` });
    assert.equal(res.status, 400, name);
    assert.equal(errorCode(res.body), 'InvalidBucketName', name);
  }
  const list = await h.client.send(new ListBucketsCommand({}));
  assert.ok(!list.Buckets?.some((b) => ['UPPER', 'under_score'].includes(b.Name ?? '')));
});

test('every response carries x-amz-request-id, x-amz-id-2 and Server, errors included', async () => {
  const ok = await signedRequest(h.port, { method: 'GET', path: '/' });
  const missing = await signedRequest(h.port, { method: 'GET', path: '/no-such-bucket-here' });
  const anonymous = await rawRequest(h.port, { method: 'GET', path: '/' });
  const head = await signedRequest(h.port, { method: 'HEAD', path: '/no-such-bucket-here' });
  for (const res of [ok, missing, anonymous, head]) {
    assert.match(String(res.headers['x-amz-request-id']), /^[0-9A-F]{16}$/);
    assert.ok(res.headers['x-amz-id-2']);
    assert.equal(res.headers['server'], 'svc');
  }
  assert.equal(missing.status, 404);
  assert.match(missing.body, /<Error><Code>NoSuchBucket<\/Code><Message>[^<]+<\/Message>.*<Resource>\/no-such-bucket-here<\/Resource><RequestId>[0-9A-F]{16}<\/RequestId>/);
  assert.ok(missing.body.includes(`<RequestId>${String(missing.headers['x-amz-request-id'])}</RequestId>`));
  assert.equal(anonymous.status, 403);
  assert.equal(errorCode(anonymous.body), 'AccessDenied');
  assert.equal(head.status, 404);
  assert.equal(head.body, '');
});

test('methods the API does not have are MethodNotAllowed', async () => {
  const res = await signedRequest(h.port, { method: 'PATCH', path: '/alpha/key' });
  assert.equal(res.status, 405);
  assert.equal(errorCode(res.body), 'MethodNotAllowed');
});
