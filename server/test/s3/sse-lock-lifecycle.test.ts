import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import {
  CompleteMultipartUploadCommand, CreateBucketCommand, CreateMultipartUploadCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand,
  PutBucketLifecycleConfigurationCommand, PutObjectCommand, PutObjectLockConfigurationCommand, PutObjectRetentionCommand, UploadPartCommand,
} from '@aws-sdk/client-s3';
import { parseKmsSecretKey } from '../../src/crypto/index.js';
import { plainObjectSize } from '../../src/http/s3/index.js';
import { LifecycleService, dueTime, runLifecycle } from '../../src/storage/index.js';
import { startS3, type S3Harness } from './helpers/harness.js';
import { rejectsWith } from './helpers/rejects.js';
import { postForm, signedFields } from './helpers/post-form.js';

// Server-side encryption together with Object Lock and lifecycle expiry (features of two branches meeting in one
// metadata record): the lock rewrites must keep the encryption seal, and size filters must see plaintext sizes.

let h: S3Harness;
const DAY = 86_400_000;
const MiB = 1024 * 1024;
before(async () => {
  h = await startS3({ kms: parseKmsSecretKey(`test-key:${randomBytes(32).toString('base64')}`) });
  await h.client.send(new CreateBucketCommand({ Bucket: 'locked', ObjectLockEnabledForBucket: true }));
  await h.client.send(new CreateBucketCommand({ Bucket: 'defaults', ObjectLockEnabledForBucket: true }));
  await h.client.send(new CreateBucketCommand({ Bucket: 'lcy' }));
  await h.client.send(new CreateBucketCommand({ Bucket: 'postlock', ObjectLockEnabledForBucket: true }));
});
after(async () => { await h.close(); });

const md5b64 = (b: Buffer): string => createHash('md5').update(b).digest('base64');
const inDays = (n: number): Date => new Date(Math.ceil((Date.now() + n * DAY) / 1000) * 1000);

test('an SSE-S3 object with a retention: GET/HEAD show both; changing the retention keeps the object decryptable; delete refused', async () => {
  const body = randomBytes(100_000);
  const put = await h.client.send(new PutObjectCommand({
    Bucket: 'locked', Key: 'enc', Body: body, ServerSideEncryption: 'AES256', ObjectLockMode: 'GOVERNANCE', ObjectLockRetainUntilDate: inDays(2),
  }));
  assert.equal(put.ServerSideEncryption, 'AES256');
  const later = inDays(5);
  await h.client.send(new PutObjectRetentionCommand({ Bucket: 'locked', Key: 'enc', VersionId: put.VersionId, Retention: { Mode: 'GOVERNANCE', RetainUntilDate: later } }));
  const head = await h.client.send(new HeadObjectCommand({ Bucket: 'locked', Key: 'enc' }));
  assert.equal(head.ContentLength, body.length);
  assert.equal(head.ServerSideEncryption, 'AES256');
  assert.equal(head.ObjectLockMode, 'GOVERNANCE');
  assert.equal(head.ObjectLockRetainUntilDate?.getTime(), later.getTime());
  const got = await h.client.send(new GetObjectCommand({ Bucket: 'locked', Key: 'enc' }));
  assert.ok(Buffer.from(await got.Body!.transformToByteArray()).equals(body));
  assert.equal(got.ObjectLockMode, 'GOVERNANCE');
  await rejectsWith(h.client.send(new DeleteObjectCommand({ Bucket: 'locked', Key: 'enc', VersionId: put.VersionId })), 'AccessDenied', 403);
});

test('an SSE-C multipart upload in a bucket with default retention completes locked and decrypts with the key', async () => {
  await h.client.send(new PutObjectLockConfigurationCommand({
    Bucket: 'defaults', ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled', Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: 1 } } },
  }));
  const raw = randomBytes(32);
  const key = { SSECustomerAlgorithm: 'AES256', SSECustomerKey: raw.toString('base64'), SSECustomerKeyMD5: md5b64(raw) };
  const parts = [randomBytes(5 * MiB), randomBytes(1000)];
  const { UploadId } = await h.client.send(new CreateMultipartUploadCommand({ Bucket: 'defaults', Key: 'mp', ...key }));
  const etags: string[] = [];
  for (const [i, p] of parts.entries()) {
    etags.push((await h.client.send(new UploadPartCommand({ Bucket: 'defaults', Key: 'mp', UploadId, PartNumber: i + 1, Body: p, ...key }))).ETag!);
  }
  await h.client.send(new CompleteMultipartUploadCommand({
    Bucket: 'defaults', Key: 'mp', UploadId, MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
  }));
  const head = await h.client.send(new HeadObjectCommand({ Bucket: 'defaults', Key: 'mp', ...key }));
  assert.equal(head.ObjectLockMode, 'COMPLIANCE');
  assert.ok((head.ObjectLockRetainUntilDate?.getTime() ?? 0) > Date.now());
  assert.equal(head.ContentLength, 5 * MiB + 1000);
  const got = await h.client.send(new GetObjectCommand({ Bucket: 'defaults', Key: 'mp', ...key }));
  assert.ok(Buffer.from(await got.Body!.transformToByteArray()).equals(Buffer.concat(parts)));
  await rejectsWith(h.client.send(new DeleteObjectCommand({ Bucket: 'defaults', Key: 'mp', VersionId: head.VersionId })), 'AccessDenied', 403);
});

test('lifecycle size filters compare the plaintext size of encrypted objects (the stored ciphertext is larger)', async () => {
  await h.client.send(new PutBucketLifecycleConfigurationCommand({
    Bucket: 'lcy', LifecycleConfiguration: {
      Rules: [{ ID: 'exact', Status: 'Enabled', Filter: { And: { Prefix: 's/', ObjectSizeGreaterThan: 999, ObjectSizeLessThan: 1001 } }, Expiration: { Days: 1 } }],
    },
  }));
  await h.client.send(new PutObjectCommand({ Bucket: 'lcy', Key: 's/thousand', Body: randomBytes(1000), ServerSideEncryption: 'AES256' }));
  await h.client.send(new PutObjectCommand({ Bucket: 'lcy', Key: 's/more', Body: randomBytes(1001), ServerSideEncryption: 'AES256' }));
  const created = (await h.client.send(new HeadObjectCommand({ Bucket: 'lcy', Key: 's/thousand' }))).LastModified!.getTime();
  const now = (): number => dueTime(created, 1);
  // The engine's own size is the ciphertext's: measured that way, the 1000-byte object is outside the filter.
  assert.equal((await runLifecycle(h.layer, { now })).expired, 0);
  const service = new LifecycleService(h.layer, { intervalMs: 3_600_000, now, objectSize: plainObjectSize });
  assert.equal((await service.runNow()).expired, 1);
  await service.stop();
  await rejectsWith(h.client.send(new HeadObjectCommand({ Bucket: 'lcy', Key: 's/thousand' })), 'NotFound', 404);
  assert.equal((await h.client.send(new HeadObjectCommand({ Bucket: 'lcy', Key: 's/more' }))).ContentLength, 1001);
});

test('POST uploads get the bucket default retention and x-amz-object-lock-* fields, encrypted by SSE-S3 fields', async () => {
  await h.client.send(new PutObjectLockConfigurationCommand({
    Bucket: 'postlock', ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled', Rule: { DefaultRetention: { Mode: 'GOVERNANCE', Days: 2 } } },
  }));
  const plain = await postForm(h.endpoint, 'postlock', {
    key: 'by-default', 'x-amz-server-side-encryption': 'AES256',
    ...signedFields([{ bucket: 'postlock' }, ['starts-with', '$key', ''], { 'x-amz-server-side-encryption': 'AES256' }]),
  }, Buffer.from('posted'));
  assert.equal(plain.status, 204);
  const head = await h.client.send(new HeadObjectCommand({ Bucket: 'postlock', Key: 'by-default' }));
  assert.equal(head.ObjectLockMode, 'GOVERNANCE');
  assert.ok((head.ObjectLockRetainUntilDate?.getTime() ?? 0) > Date.now() + DAY);
  assert.equal(head.ServerSideEncryption, 'AES256');
  const got = await h.client.send(new GetObjectCommand({ Bucket: 'postlock', Key: 'by-default' }));
  assert.equal(await got.Body!.transformToString(), 'posted');
  const held = await postForm(h.endpoint, 'postlock', {
    key: 'held', 'x-amz-object-lock-legal-hold': 'ON',
    ...signedFields([{ bucket: 'postlock' }, ['starts-with', '$key', ''], { 'x-amz-object-lock-legal-hold': 'ON' }]),
  }, Buffer.from('x'));
  assert.equal(held.status, 204);
  assert.equal((await h.client.send(new HeadObjectCommand({ Bucket: 'postlock', Key: 'held' }))).ObjectLockLegalHoldStatus, 'ON');
  const badMode = await postForm(h.endpoint, 'postlock', {
    key: 'bad', 'x-amz-object-lock-mode': 'FOREVER', 'x-amz-object-lock-retain-until-date': inDays(1).toISOString(),
    ...signedFields([{ bucket: 'postlock' }, ['starts-with', '$key', ''], ['starts-with', '$x-amz-object-lock-mode', ''],
      ['starts-with', '$x-amz-object-lock-retain-until-date', '']]),
  }, Buffer.from('x'));
  assert.equal(badMode.status, 400);
  assert.match(await badMode.text(), /<Code>InvalidArgument<\/Code>/);
});
