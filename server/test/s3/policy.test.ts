import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  CreateBucketCommand, DeleteBucketPolicyCommand, GetBucketPolicyCommand, GetBucketPolicyStatusCommand, GetObjectCommand,
  HeadObjectCommand, PutBucketPolicyCommand, PutObjectCommand, } from '@aws-sdk/client-s3';
import { startS3, type S3Harness } from './helpers/harness.js';
import { rejectsWith } from './helpers/rejects.js';
import { errorCode } from './helpers/raw.js';

let h: S3Harness;
before(async () => {
  h = await startS3();
  for (const b of ['site', 'other']) await h.client.send(new CreateBucketCommand({ Bucket: b }));
  for (const key of ['public/a.txt', 'public/secret.txt', 'private/b.txt', 'inbox/old.txt']) {
    await h.client.send(new PutObjectCommand({ Bucket: 'site', Key: key, Body: `body of ${key}` }));
  }
  await h.client.send(new PutObjectCommand({ Bucket: 'other', Key: 'x', Body: 'other x' }));
});
after(async () => { await h.close(); });


const policyOf = (...statements: object[]): string => JSON.stringify({ Version: '2012-10-17', Statement: statements });
const PUBLIC_READ = {
  Sid: 'read', Effect: 'Allow', Principal: '*', Action: ['s3:GetObject'], Resource: ['arn:aws:s3:::site/public/*'],
};
const LIST_PUBLIC = {
  Sid: 'list', Effect: 'Allow', Principal: { AWS: ['*'] }, Action: 's3:ListBucket', Resource: 'arn:aws:s3:::site',
  Condition: { StringEquals: { 's3:prefix': ['public/'] } },
};
const DENY_SECRET = { Sid: 'secret', Effect: 'Deny', Principal: '*', Action: 's3:*', Resource: 'arn:aws:s3:::site/public/secret*' };
const setPolicy = (policy: string, bucket = 'site') => h.client.send(new PutBucketPolicyCommand({ Bucket: bucket, Policy: policy }));

/** An unsigned request, as a browser page would send it. */
async function anon(method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; body: string }> {
  const res = await fetch(`${h.endpoint}${path}`, { method, ...init });
  return { status: res.status, body: await res.text() };
}

test('Put/Get/DeleteBucketPolicy, GetBucketPolicyStatus, NoSuchBucketPolicy', async () => {
  await rejectsWith(h.client.send(new GetBucketPolicyCommand({ Bucket: 'site' })), 'NoSuchBucketPolicy', 404);
  await rejectsWith(h.client.send(new GetBucketPolicyStatusCommand({ Bucket: 'site' })), 'NoSuchBucketPolicy', 404);
  const text = policyOf(PUBLIC_READ);
  const put = await setPolicy(text);
  assert.equal(put.$metadata.httpStatusCode, 204);
  assert.equal((await h.client.send(new GetBucketPolicyCommand({ Bucket: 'site' }))).Policy, text);
  assert.equal((await h.client.send(new GetBucketPolicyStatusCommand({ Bucket: 'site' }))).PolicyStatus?.IsPublic, true);
  await setPolicy(policyOf({ ...PUBLIC_READ, Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } } }));
  assert.equal((await h.client.send(new GetBucketPolicyStatusCommand({ Bucket: 'site' }))).PolicyStatus?.IsPublic, false);
  const del = await h.client.send(new DeleteBucketPolicyCommand({ Bucket: 'site' }));
  assert.equal(del.$metadata.httpStatusCode, 204);
  await rejectsWith(h.client.send(new GetBucketPolicyCommand({ Bucket: 'site' })), 'NoSuchBucketPolicy', 404);
  await rejectsWith(setPolicy(text, 'missing'), 'NoSuchBucket', 404);
});

test('MalformedPolicy for bad JSON, unknown elements, foreign resources, bad actions and conditions', async () => {
  const bad: Array<[string, RegExp]> = [
    ['{"Version": "2012-10-17", "Statement": [', /valid JSON/],
    [JSON.stringify({ Version: '2012-10-17', Statement: [PUBLIC_READ], Extra: true }), /Unknown field Extra/],
    [policyOf({ ...PUBLIC_READ, Resource: 'arn:aws:s3:::other/*' }), /invalid resource/],
    [policyOf({ ...PUBLIC_READ, Action: 's3:GetObjekt' }), /invalid action/],
    [policyOf({ ...PUBLIC_READ, Principal: undefined }), /Missing required field Principal/],
    [policyOf({ ...PUBLIC_READ, Condition: { IpAddress: { 'aws:SourceIp': '999.1.1.1' } } }), /Invalid IP address/],
  ];
  for (const [policy, message] of bad) await rejectsWith(setPolicy(policy), 'MalformedPolicy', 400, message);
  await rejectsWith(h.client.send(new GetBucketPolicyCommand({ Bucket: 'site' })), 'NoSuchBucketPolicy', 404);
});

test('anonymous clients read exactly what the policy makes public and are refused everywhere else', async () => {
  // No policy: nothing is public.
  const before = await anon('GET', '/site/public/a.txt');
  assert.equal(before.status, 403);
  assert.equal(errorCode(before.body), 'AccessDenied');

  await setPolicy(policyOf(PUBLIC_READ, LIST_PUBLIC, DENY_SECRET));
  const get = await anon('GET', '/site/public/a.txt');
  assert.deepEqual(get, { status: 200, body: 'body of public/a.txt' });
  assert.equal((await anon('HEAD', '/site/public/a.txt')).status, 200);
  const list = await anon('GET', '/site?list-type=2&prefix=public/');
  assert.equal(list.status, 200);
  assert.match(list.body, /<Key>public\/a\.txt<\/Key>/);

  const refused: Array<[string, string, string?]> = [
    ['GET', '/site/private/b.txt'],
    ['GET', '/site/public/secret.txt'], // Deny beats Allow
    ['PUT', '/site/public/new.txt', 'new'],
    ['DELETE', '/site/public/a.txt'],
    ['GET', '/site?list-type=2'],
    ['GET', '/site?list-type=2&prefix=private/'],
    ['GET', '/site?policy'],
    ['GET', '/site/public/a.txt?tagging'],
    ['GET', '/'],
    ['PUT', '/newbucket'],
    ['GET', '/other/x'],
  ];
  for (const [method, path, body] of refused) {
    const res = await anon(method, path, body === undefined ? {} : { body });
    assert.equal(res.status, 403, `${method} ${path}`);
    if (method !== 'HEAD') assert.equal(errorCode(res.body), 'AccessDenied', `${method} ${path}`);
  }
  await rejectsWith(h.client.send(new HeadObjectCommand({ Bucket: 'site', Key: 'public/new.txt' })), 'NotFound', 404);
  // Unsigned clients cannot tell missing buckets from private ones (a deliberate difference from AWS).
  assert.equal(errorCode((await anon('GET', '/nosuchbucket/k')).body), 'AccessDenied');

  // The root user is never limited by the policy, Deny included.
  const root = await h.client.send(new GetObjectCommand({ Bucket: 'site', Key: 'public/secret.txt' }));
  assert.equal(await root.Body?.transformToString(), 'body of public/secret.txt');
});

test('anonymous writes only where allowed, with aws:SourceIp conditions on 127.0.0.1', async () => {
  const uploadFrom = (cidr: string) => ({
    Sid: 'upload', Effect: 'Allow', Principal: '*', Action: ['s3:PutObject', 's3:DeleteObject'], Resource: 'arn:aws:s3:::site/inbox/*',
    Condition: { IpAddress: { 'aws:SourceIp': [cidr] } },
  });
  await setPolicy(policyOf(PUBLIC_READ, uploadFrom('10.0.0.0/8')));
  assert.equal((await anon('PUT', '/site/inbox/f.txt', { body: 'from far' })).status, 403);

  await setPolicy(policyOf(PUBLIC_READ, uploadFrom('127.0.0.1/32')));
  assert.equal((await anon('PUT', '/site/inbox/f.txt', { body: 'from loopback' })).status, 200);
  const stored = await h.client.send(new GetObjectCommand({ Bucket: 'site', Key: 'inbox/f.txt' }));
  assert.equal(await stored.Body?.transformToString(), 'from loopback');
  // Copying needs s3:GetObject on the source too: private sources stay private.
  const copy = await anon('PUT', '/site/inbox/copy.txt', { headers: { 'x-amz-copy-source': '/site/private/b.txt' } });
  assert.equal(copy.status, 403);
  const publicCopy = await anon('PUT', '/site/inbox/copy.txt', { headers: { 'x-amz-copy-source': '/site/public/a.txt' } });
  assert.equal(publicCopy.status, 200);

  // DeleteObjects decides per key, as AWS does.
  const body = '<Delete><Object><Key>inbox/old.txt</Key></Object><Object><Key>private/b.txt</Key></Object></Delete>';
  const md5 = createHash('md5').update(body).digest('base64');
  const multi = await anon('POST', '/site?delete', { body, headers: { 'content-md5': md5 } });
  assert.equal(multi.status, 200);
  assert.match(multi.body, /<Deleted><Key>inbox\/old\.txt<\/Key><\/Deleted>/);
  assert.match(multi.body, /<Error><Key>private\/b\.txt<\/Key><Code>AccessDenied<\/Code>/);
  await h.client.send(new HeadObjectCommand({ Bucket: 'site', Key: 'private/b.txt' }));

  // An explicit Deny for addresses outside a range wins over the Allow.
  await setPolicy(policyOf(uploadFrom('127.0.0.0/8'), {
    Effect: 'Deny', Principal: '*', Action: 's3:PutObject', Resource: 'arn:aws:s3:::site/inbox/*',
    Condition: { NotIpAddress: { 'aws:SourceIp': '192.0.2.0/24' } },
  }));
  assert.equal((await anon('PUT', '/site/inbox/g.txt', { body: 'x' })).status, 403);
  await h.client.send(new DeleteBucketPolicyCommand({ Bucket: 'site' }));
  assert.equal((await anon('GET', '/site/public/a.txt')).status, 403);
});
