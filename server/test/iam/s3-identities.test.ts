/**
 * Users and service accounts against the real S3 API (AWS SDK v3, real SigV4): identity policies decide, the
 * bucket policy may also grant, an explicit Deny in either wins, and no non-root signature passes unchecked.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CopyObjectCommand, CreateBucketCommand, DeleteObjectsCommand, GetObjectCommand, ListBucketsCommand, ListObjectsV2Command,
  PutBucketPolicyCommand, PutObjectCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { rejectsWith } from '../s3/helpers/rejects.js';
import { startIamServer, type IamServer } from './helpers.js';

let s: IamServer;
const policy = (...statements: object[]): string => JSON.stringify({ Version: '2012-10-17', Statement: statements });

before(async () => {
  s = await startIamServer();
  const root = s.client();
  for (const b of ['data', 'other']) await root.send(new CreateBucketCommand({ Bucket: b }));
  for (const key of ['a.txt', 'locked/b.txt']) await root.send(new PutObjectCommand({ Bucket: 'data', Key: key, Body: `body of ${key}` }));
  await s.iam.addUser('reader', 'reader-secret', { policies: ['readonly'] });
  await s.iam.addUser('writer', 'writer-secret', { policies: ['readwrite'] });
  await s.iam.putPolicy('no-locked', policy({ Effect: 'Deny', Action: ['s3:PutObject', 's3:DeleteObject'], Resource: 'arn:aws:s3:::data/locked/*' }));
  await s.iam.addUser('careful', 'careful-secret', { policies: ['readwrite', 'no-locked'] });
  await s.iam.addUser('nobody', 'nobody-secret');
});
after(async () => { await s.close(); });

const text = async (body: unknown): Promise<string> => (body as { transformToString(): Promise<string> }).transformToString();

test('a readonly user can GET but not PUT, list or create buckets', async () => {
  const reader = s.client('reader', 'reader-secret');
  assert.equal(await text((await reader.send(new GetObjectCommand({ Bucket: 'data', Key: 'a.txt' }))).Body), 'body of a.txt');
  await rejectsWith(reader.send(new PutObjectCommand({ Bucket: 'data', Key: 'x', Body: 'x' })), 'AccessDenied', 403);
  // MinIO's readonly has no s3:ListBucket and no s3:ListAllMyBuckets.
  await rejectsWith(reader.send(new ListObjectsV2Command({ Bucket: 'data' })), 'AccessDenied', 403);
  await rejectsWith(reader.send(new ListBucketsCommand({})), 'AccessDenied', 403);
  await rejectsWith(reader.send(new CreateBucketCommand({ Bucket: 'reader-bucket' })), 'AccessDenied', 403);
  await rejectsWith(reader.send(new CopyObjectCommand({ Bucket: 'data', Key: 'copy', CopySource: 'data/a.txt' })), 'AccessDenied', 403);
  const presignedPut = await getSignedUrl(reader, new PutObjectCommand({ Bucket: 'data', Key: 'presigned' }), { expiresIn: 60 });
  assert.equal((await fetch(presignedPut, { method: 'PUT', body: 'x' })).status, 403, 'a presigned URL carries the same identity');
  await rejectsWith(s.client().send(new GetObjectCommand({ Bucket: 'data', Key: 'presigned' })), 'NoSuchKey', 404);
});

test('a readwrite user can PUT, list, create buckets and delete', async () => {
  const writer = s.client('writer', 'writer-secret');
  await writer.send(new PutObjectCommand({ Bucket: 'data', Key: 'w.txt', Body: 'written' }));
  assert.equal(await text((await s.client().send(new GetObjectCommand({ Bucket: 'data', Key: 'w.txt' }))).Body), 'written');
  assert.deepEqual((await writer.send(new ListBucketsCommand({}))).Buckets?.map((b) => b.Name), ['data', 'other']);
  await writer.send(new CreateBucketCommand({ Bucket: 'writer-bucket' }));
  const listed = await writer.send(new ListObjectsV2Command({ Bucket: 'data' }));
  assert.ok(listed.Contents?.some((o) => o.Key === 'w.txt'));
  const del = await writer.send(new DeleteObjectsCommand({ Bucket: 'data', Delete: { Objects: [{ Key: 'w.txt' }] } }));
  assert.deepEqual(del.Errors ?? [], []);
});

test('an explicit Deny in an attached policy wins over readwrite, per key in DeleteObjects too', async () => {
  const careful = s.client('careful', 'careful-secret');
  await careful.send(new PutObjectCommand({ Bucket: 'data', Key: 'free.txt', Body: 'ok' }));
  await rejectsWith(careful.send(new PutObjectCommand({ Bucket: 'data', Key: 'locked/c.txt', Body: 'no' })), 'AccessDenied', 403);
  const del = await careful.send(new DeleteObjectsCommand({ Bucket: 'data', Delete: { Objects: [{ Key: 'free.txt' }, { Key: 'locked/b.txt' }] } }));
  assert.deepEqual(del.Deleted?.map((d) => d.Key), ['free.txt']);
  assert.deepEqual(del.Errors?.map((e) => [e.Key, e.Code]), [['locked/b.txt', 'AccessDenied']]);
  assert.equal(await text((await careful.send(new GetObjectCommand({ Bucket: 'data', Key: 'locked/b.txt' }))).Body), 'body of locked/b.txt');
});

test('the bucket policy can grant a user without policies, and its Deny binds a readwrite user', async () => {
  const nobody = s.client('nobody', 'nobody-secret');
  await rejectsWith(nobody.send(new GetObjectCommand({ Bucket: 'other', Key: 'x' })), 'AccessDenied', 403);
  await s.client().send(new PutObjectCommand({ Bucket: 'other', Key: 'x', Body: 'other x' }));
  await s.client().send(new PutBucketPolicyCommand({
    Bucket: 'other',
    Policy: policy(
      { Effect: 'Allow', Principal: { AWS: ['nobody'] }, Action: 's3:GetObject', Resource: 'arn:aws:s3:::other/*' },
      { Effect: 'Deny', Principal: { AWS: ['writer'] }, Action: 's3:PutObject', Resource: 'arn:aws:s3:::other/*' },
    ),
  }));
  assert.equal(await text((await nobody.send(new GetObjectCommand({ Bucket: 'other', Key: 'x' }))).Body), 'other x');
  await rejectsWith(nobody.send(new PutObjectCommand({ Bucket: 'other', Key: 'y', Body: 'y' })), 'AccessDenied', 403);
  await rejectsWith(s.client('writer', 'writer-secret').send(new PutObjectCommand({ Bucket: 'other', Key: 'y', Body: 'y' })), 'AccessDenied', 403);
  await s.client().send(new PutObjectCommand({ Bucket: 'other', Key: 'y', Body: 'root is never denied' }));
});

test('a disabled user is refused as an unknown key (InvalidAccessKeyId, as MinIO answers), and works again once enabled', async () => {
  await s.iam.addUser('toggled', 'toggled-secret', { policies: ['readwrite'] });
  const toggled = s.client('toggled', 'toggled-secret');
  await toggled.send(new PutObjectCommand({ Bucket: 'data', Key: 't1', Body: 't' }));
  await s.iam.setUserStatus('toggled', 'disabled');
  await rejectsWith(toggled.send(new GetObjectCommand({ Bucket: 'data', Key: 't1' })), 'InvalidAccessKeyId', 403);
  await s.iam.setUserStatus('toggled', 'enabled');
  await toggled.send(new GetObjectCommand({ Bucket: 'data', Key: 't1' }));
  await rejectsWith(s.client('toggled', 'wrong-secret').send(new GetObjectCommand({ Bucket: 'data', Key: 't1' })), 'SignatureDoesNotMatch', 403);
});

test('a service account inherits its parent; an inline policy narrows it; it stops with its parent', async () => {
  await s.iam.addUser('parent', 'parent-secret', { policies: ['readonly'] });
  const inherited = await s.iam.addServiceAccount({ parent: 'parent' });
  const sa = s.client(inherited.accessKey, inherited.secretKey);
  assert.equal(await text((await sa.send(new GetObjectCommand({ Bucket: 'data', Key: 'a.txt' }))).Body), 'body of a.txt');
  await rejectsWith(sa.send(new PutObjectCommand({ Bucket: 'data', Key: 'sa', Body: 'x' })), 'AccessDenied', 403);

  const narrowed = await s.iam.addServiceAccount({
    parent: 'writer', policy: policy({ Effect: 'Allow', Action: 's3:PutObject', Resource: 'arn:aws:s3:::data/uploads/*' }),
  });
  const up = s.client(narrowed.accessKey, narrowed.secretKey);
  await up.send(new PutObjectCommand({ Bucket: 'data', Key: 'uploads/u1', Body: 'u' }));
  await rejectsWith(up.send(new PutObjectCommand({ Bucket: 'data', Key: 'elsewhere', Body: 'u' })), 'AccessDenied', 403);
  await rejectsWith(up.send(new GetObjectCommand({ Bucket: 'data', Key: 'uploads/u1' })), 'AccessDenied', 403);

  await s.iam.setUserStatus('parent', 'disabled');
  await rejectsWith(sa.send(new GetObjectCommand({ Bucket: 'data', Key: 'a.txt' })), 'InvalidAccessKeyId', 403);
});
