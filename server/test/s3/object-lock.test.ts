import { after, before, test } from 'node:test';
import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import {
  CompleteMultipartUploadCommand, CopyObjectCommand, CreateBucketCommand, CreateMultipartUploadCommand, DeleteObjectCommand,
  DeleteObjectsCommand, GetObjectCommand, GetObjectLegalHoldCommand, GetObjectLockConfigurationCommand, GetObjectRetentionCommand,
  HeadObjectCommand, PutBucketVersioningCommand, PutObjectCommand, PutObjectLegalHoldCommand, PutObjectLockConfigurationCommand,
  PutObjectRetentionCommand, UploadPartCommand, GetBucketVersioningCommand,
} from '@aws-sdk/client-s3';
import { startS3, type S3Harness } from './helpers/harness.js';
import { rejectsWith } from './helpers/rejects.js';
import { errorCode, signedRequest } from './helpers/raw.js';

let h: S3Harness;
before(async () => {
  h = await startS3();
  await h.client.send(new CreateBucketCommand({ Bucket: 'locked', ObjectLockEnabledForBucket: true }));
  await h.client.send(new CreateBucketCommand({ Bucket: 'plain' }));
  await h.client.send(new CreateBucketCommand({ Bucket: 'later' }));
});
after(async () => { await h.close(); });

const DAY = 86_400_000;
const inDays = (n: number): Date => new Date(Date.now() + n * DAY);

test('CreateBucket with object lock turns versioning on; GetObjectLockConfiguration shows it enabled without a rule', async () => {
  const v = await h.client.send(new GetBucketVersioningCommand({ Bucket: 'locked' }));
  assert.equal(v.Status, 'Enabled');
  const c = await h.client.send(new GetObjectLockConfigurationCommand({ Bucket: 'locked' }));
  assert.equal(c.ObjectLockConfiguration?.ObjectLockEnabled, 'Enabled');
  assert.equal(c.ObjectLockConfiguration?.Rule, undefined);
  await rejectsWith(h.client.send(new PutBucketVersioningCommand({ Bucket: 'locked', VersioningConfiguration: { Status: 'Suspended' } })), 'InvalidBucketState', 409);
});

test('Object lock configuration errors: not found, InvalidBucketState, MalformedXML, InvalidArgument, Content-MD5 required', async () => {
  await rejectsWith(h.client.send(new GetObjectLockConfigurationCommand({ Bucket: 'plain' })), 'ObjectLockConfigurationNotFoundError', 404);
  await rejectsWith(h.client.send(new PutObjectLockConfigurationCommand({
    Bucket: 'plain', ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled' },
  })), 'InvalidBucketState', 409, /Versioning must be 'Enabled'/);
  const put = (xml: string, headers: Record<string, string> = { 'content-md5': md5(xml) }): ReturnType<typeof signedRequest> =>
    signedRequest(h.port, { method: 'PUT', path: '/locked', query: { 'object-lock': '' }, headers, body: xml });
  const cfg = (inner: string): string => `<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled>${inner}</ObjectLockConfiguration>`;
  const both = cfg('<Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Days>1</Days><Years>1</Years></DefaultRetention></Rule>');
  let r = await put(both);
  assert.equal(r.status, 400);
  assert.equal(errorCode(r.body), 'MalformedXML');
  r = await put(cfg('<Rule><DefaultRetention><Mode>FOREVER</Mode><Days>1</Days></DefaultRetention></Rule>'));
  assert.equal(errorCode(r.body), 'MalformedXML');
  r = await put(cfg('<Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Days>0</Days></DefaultRetention></Rule>'));
  assert.equal(r.status, 400);
  assert.equal(errorCode(r.body), 'InvalidArgument');
  r = await put('<ObjectLockConfiguration><ObjectLockEnabled>Disabled</ObjectLockEnabled></ObjectLockConfiguration>');
  assert.equal(errorCode(r.body), 'MalformedXML');
  const ok = cfg('<Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Days>1</Days></DefaultRetention></Rule>');
  r = await put(ok, {});
  assert.equal(r.status, 400);
  assert.equal(errorCode(r.body), 'InvalidRequest');
});

test('PutObjectLockConfiguration on an existing versioned bucket enables Object Lock (AWS allows it)', async () => {
  await h.client.send(new PutBucketVersioningCommand({ Bucket: 'later', VersioningConfiguration: { Status: 'Enabled' } }));
  await h.client.send(new PutObjectLockConfigurationCommand({
    Bucket: 'later', ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled', Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Years: 1 } } },
  }));
  const c = await h.client.send(new GetObjectLockConfigurationCommand({ Bucket: 'later' }));
  assert.deepEqual(c.ObjectLockConfiguration?.Rule?.DefaultRetention, { Mode: 'COMPLIANCE', Years: 1 });
  const put = await h.client.send(new PutObjectCommand({ Bucket: 'later', Key: 'k', Body: 'x' }));
  const head = await h.client.send(new HeadObjectCommand({ Bucket: 'later', Key: 'k' }));
  assert.equal(head.ObjectLockMode, 'COMPLIANCE');
  const until = head.ObjectLockRetainUntilDate?.getTime() ?? 0;
  const expected = new Date();
  expected.setUTCFullYear(expected.getUTCFullYear() + 1);
  assert.ok(Math.abs(until - expected.getTime()) < 60_000, `retain-until ${String(head.ObjectLockRetainUntilDate)}`);
  await rejectsWith(h.client.send(new DeleteObjectCommand({ Bucket: 'later', Key: 'k', VersionId: put.VersionId })), 'AccessDenied', 403);
});

test('PUT with retention: HEAD/GET show it, GetObjectRetention returns it, the version cannot be deleted, DELETE without versionId adds a marker', async () => {
  const until = inDays(2);
  const put = await h.client.send(new PutObjectCommand({
    Bucket: 'locked', Key: 'gov', Body: 'governed', ObjectLockMode: 'GOVERNANCE', ObjectLockRetainUntilDate: until,
  }));
  const head = await h.client.send(new HeadObjectCommand({ Bucket: 'locked', Key: 'gov' }));
  assert.equal(head.ObjectLockMode, 'GOVERNANCE');
  assert.equal(head.ObjectLockRetainUntilDate?.getTime(), until.getTime());
  const get = await h.client.send(new GetObjectCommand({ Bucket: 'locked', Key: 'gov' }));
  assert.equal(get.ObjectLockMode, 'GOVERNANCE');
  await get.Body?.transformToString();
  const ret = await h.client.send(new GetObjectRetentionCommand({ Bucket: 'locked', Key: 'gov', VersionId: put.VersionId }));
  assert.deepEqual(ret.Retention, { Mode: 'GOVERNANCE', RetainUntilDate: until });
  await rejectsWith(h.client.send(new DeleteObjectCommand({ Bucket: 'locked', Key: 'gov', VersionId: put.VersionId })), 'AccessDenied', 403, /object lock/);
  const del = await h.client.send(new DeleteObjectCommand({ Bucket: 'locked', Key: 'gov' }));
  assert.equal(del.DeleteMarker, true);
  const old = await h.client.send(new GetObjectCommand({ Bucket: 'locked', Key: 'gov', VersionId: put.VersionId }));
  assert.equal(await old.Body?.transformToString(), 'governed');
  const many = await h.client.send(new DeleteObjectsCommand({ Bucket: 'locked', Delete: { Objects: [{ Key: 'gov', VersionId: put.VersionId }] } }));
  assert.equal(many.Errors?.[0]?.Code, 'AccessDenied');
  // With the bypass header (root holds s3:BypassGovernanceRetention) the GOVERNANCE version goes.
  const bypassed = await h.client.send(new DeleteObjectsCommand({
    Bucket: 'locked', BypassGovernanceRetention: true, Delete: { Objects: [{ Key: 'gov', VersionId: put.VersionId }] },
  }));
  assert.equal(bypassed.Errors, undefined);
  assert.equal(bypassed.Deleted?.[0]?.VersionId, put.VersionId);
  await rejectsWith(h.client.send(new HeadObjectCommand({ Bucket: 'locked', Key: 'gov', VersionId: put.VersionId })), 'NotFound', 404);
});

test('GOVERNANCE retention: extending is allowed, shortening or removing needs the bypass', async () => {
  const put = await h.client.send(new PutObjectCommand({
    Bucket: 'locked', Key: 'g2', Body: 'x', ObjectLockMode: 'GOVERNANCE', ObjectLockRetainUntilDate: inDays(2),
  }));
  const vid = put.VersionId;
  await h.client.send(new PutObjectRetentionCommand({ Bucket: 'locked', Key: 'g2', VersionId: vid, Retention: { Mode: 'GOVERNANCE', RetainUntilDate: inDays(3) } }));
  await rejectsWith(h.client.send(new PutObjectRetentionCommand({
    Bucket: 'locked', Key: 'g2', VersionId: vid, Retention: { Mode: 'GOVERNANCE', RetainUntilDate: inDays(1) },
  })), 'AccessDenied', 403);
  await h.client.send(new PutObjectRetentionCommand({
    Bucket: 'locked', Key: 'g2', VersionId: vid, Retention: { Mode: 'GOVERNANCE', RetainUntilDate: inDays(1) }, BypassGovernanceRetention: true,
  }));
  const ret = await h.client.send(new GetObjectRetentionCommand({ Bucket: 'locked', Key: 'g2', VersionId: vid }));
  assert.ok((ret.Retention?.RetainUntilDate?.getTime() ?? 0) < inDays(1.5).getTime());
  await h.client.send(new PutObjectRetentionCommand({ Bucket: 'locked', Key: 'g2', VersionId: vid, Retention: {}, BypassGovernanceRetention: true }));
  await rejectsWith(h.client.send(new GetObjectRetentionCommand({ Bucket: 'locked', Key: 'g2', VersionId: vid })), 'NoSuchObjectLockConfiguration', 404);
  await h.client.send(new DeleteObjectCommand({ Bucket: 'locked', Key: 'g2', VersionId: vid }));
});

test('COMPLIANCE retention can only be extended, never shortened or removed, not even with the bypass', async () => {
  const put = await h.client.send(new PutObjectCommand({
    Bucket: 'locked', Key: 'c1', Body: 'x', ObjectLockMode: 'COMPLIANCE', ObjectLockRetainUntilDate: inDays(2),
  }));
  const vid = put.VersionId;
  await rejectsWith(h.client.send(new PutObjectRetentionCommand({
    Bucket: 'locked', Key: 'c1', VersionId: vid, Retention: { Mode: 'COMPLIANCE', RetainUntilDate: inDays(1) }, BypassGovernanceRetention: true,
  })), 'AccessDenied', 403);
  await rejectsWith(h.client.send(new PutObjectRetentionCommand({
    Bucket: 'locked', Key: 'c1', VersionId: vid, Retention: { Mode: 'GOVERNANCE', RetainUntilDate: inDays(5) },
  })), 'AccessDenied', 403);
  await h.client.send(new PutObjectRetentionCommand({ Bucket: 'locked', Key: 'c1', VersionId: vid, Retention: { Mode: 'COMPLIANCE', RetainUntilDate: inDays(4) } }));
  await rejectsWith(h.client.send(new DeleteObjectCommand({ Bucket: 'locked', Key: 'c1', VersionId: vid, BypassGovernanceRetention: true })), 'AccessDenied', 403);
});

test('Legal hold: ON blocks deletes even without retention, OFF releases; GetObjectLegalHold before any hold is NoSuchObjectLockConfiguration', async () => {
  const put = await h.client.send(new PutObjectCommand({ Bucket: 'locked', Key: 'held', Body: 'x' }));
  const vid = put.VersionId;
  await rejectsWith(h.client.send(new GetObjectLegalHoldCommand({ Bucket: 'locked', Key: 'held' })), 'NoSuchObjectLockConfiguration', 404);
  await h.client.send(new PutObjectLegalHoldCommand({ Bucket: 'locked', Key: 'held', VersionId: vid, LegalHold: { Status: 'ON' } }));
  assert.equal((await h.client.send(new GetObjectLegalHoldCommand({ Bucket: 'locked', Key: 'held' }))).LegalHold?.Status, 'ON');
  assert.equal((await h.client.send(new HeadObjectCommand({ Bucket: 'locked', Key: 'held' }))).ObjectLockLegalHoldStatus, 'ON');
  await rejectsWith(h.client.send(new DeleteObjectCommand({ Bucket: 'locked', Key: 'held', VersionId: vid, BypassGovernanceRetention: true })), 'AccessDenied', 403);
  await h.client.send(new PutObjectLegalHoldCommand({ Bucket: 'locked', Key: 'held', VersionId: vid, LegalHold: { Status: 'OFF' } }));
  assert.equal((await h.client.send(new GetObjectLegalHoldCommand({ Bucket: 'locked', Key: 'held', VersionId: vid }))).LegalHold?.Status, 'OFF');
  await h.client.send(new DeleteObjectCommand({ Bucket: 'locked', Key: 'held', VersionId: vid }));
  const r = await signedRequest(h.port, {
    method: 'PUT', path: '/locked/held2', query: { 'legal-hold': '' }, headers: { 'content-md5': md5('<LegalHold><Status>MAYBE</Status></LegalHold>') },
    body: '<LegalHold><Status>MAYBE</Status></LegalHold>',
  });
  assert.equal(errorCode(r.body), 'MalformedXML');
});

test('x-amz-object-lock-legal-hold on PUT, lock headers on CopyObject and CreateMultipartUpload, bucket default applied at completion', async () => {
  const put = await h.client.send(new PutObjectCommand({ Bucket: 'locked', Key: 'h2', Body: 'x', ObjectLockLegalHoldStatus: 'ON' }));
  assert.equal((await h.client.send(new GetObjectLegalHoldCommand({ Bucket: 'locked', Key: 'h2', VersionId: put.VersionId }))).LegalHold?.Status, 'ON');
  const until = inDays(3);
  const copy = await h.client.send(new CopyObjectCommand({
    Bucket: 'locked', Key: 'copied', CopySource: 'locked/h2', ObjectLockMode: 'COMPLIANCE', ObjectLockRetainUntilDate: until,
  }));
  const ch = await h.client.send(new HeadObjectCommand({ Bucket: 'locked', Key: 'copied', VersionId: copy.VersionId }));
  assert.equal(ch.ObjectLockMode, 'COMPLIANCE');
  assert.equal(ch.ObjectLockLegalHoldStatus, undefined);
  const mp = await h.client.send(new CreateMultipartUploadCommand({
    Bucket: 'locked', Key: 'mp', ObjectLockMode: 'GOVERNANCE', ObjectLockRetainUntilDate: until,
  }));
  const part = await h.client.send(new UploadPartCommand({ Bucket: 'locked', Key: 'mp', UploadId: mp.UploadId, PartNumber: 1, Body: 'part' }));
  const done = await h.client.send(new CompleteMultipartUploadCommand({
    Bucket: 'locked', Key: 'mp', UploadId: mp.UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
  }));
  const mh = await h.client.send(new HeadObjectCommand({ Bucket: 'locked', Key: 'mp', VersionId: done.VersionId }));
  assert.equal(mh.ObjectLockMode, 'GOVERNANCE');
  assert.equal(mh.ObjectLockRetainUntilDate?.getTime(), until.getTime());
  // 'later' has a default COMPLIANCE retention of one year: a multipart object without headers gets it.
  const mp2 = await h.client.send(new CreateMultipartUploadCommand({ Bucket: 'later', Key: 'mp2' }));
  const p2 = await h.client.send(new UploadPartCommand({ Bucket: 'later', Key: 'mp2', UploadId: mp2.UploadId, PartNumber: 1, Body: 'part' }));
  await h.client.send(new CompleteMultipartUploadCommand({
    Bucket: 'later', Key: 'mp2', UploadId: mp2.UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: p2.ETag }] },
  }));
  assert.equal((await h.client.send(new HeadObjectCommand({ Bucket: 'later', Key: 'mp2' }))).ObjectLockMode, 'COMPLIANCE');
});

test('Lock header errors on PUT: both mode and date, known mode, future date, ON/OFF, lock bucket, Content-MD5', async () => {
  const raw = (headers: Record<string, string>, bucket = 'locked'): ReturnType<typeof signedRequest> =>
    signedRequest(h.port, { method: 'PUT', path: `/${bucket}/bad`, headers: { 'content-md5': md5('x'), ...headers }, body: 'x' });
  const future = inDays(1).toISOString();
  let r = await raw({ 'x-amz-object-lock-mode': 'GOVERNANCE' });
  assert.equal(r.status, 400);
  assert.equal(errorCode(r.body), 'InvalidArgument');
  r = await raw({ 'x-amz-object-lock-mode': 'FOREVER', 'x-amz-object-lock-retain-until-date': future });
  assert.equal(errorCode(r.body), 'InvalidArgument');
  r = await raw({ 'x-amz-object-lock-mode': 'GOVERNANCE', 'x-amz-object-lock-retain-until-date': new Date(Date.now() - DAY).toISOString() });
  assert.equal(errorCode(r.body), 'InvalidArgument');
  assert.match(r.body, /must be in the future/);
  r = await raw({ 'x-amz-object-lock-legal-hold': 'MAYBE' });
  assert.equal(errorCode(r.body), 'InvalidArgument');
  r = await raw({ 'x-amz-object-lock-legal-hold': 'ON' }, 'plain');
  assert.equal(r.status, 400);
  assert.equal(errorCode(r.body), 'InvalidRequest');
  assert.match(r.body, /missing Object Lock Configuration/);
  r = await signedRequest(h.port, { method: 'PUT', path: '/locked/nomd5', headers: { 'x-amz-object-lock-legal-hold': 'ON' }, body: 'x' });
  assert.equal(r.status, 400);
  assert.equal(errorCode(r.body), 'InvalidRequest');
  assert.match(r.body, /Content-MD5/);
});

test('Retention and legal hold on a bucket without Object Lock are InvalidRequest; on a missing key NoSuchKey', async () => {
  await h.client.send(new PutObjectCommand({ Bucket: 'plain', Key: 'k', Body: 'x' }));
  await rejectsWith(h.client.send(new PutObjectRetentionCommand({
    Bucket: 'plain', Key: 'k', Retention: { Mode: 'GOVERNANCE', RetainUntilDate: inDays(1) },
  })), 'InvalidRequest', 400);
  await rejectsWith(h.client.send(new PutObjectLegalHoldCommand({ Bucket: 'plain', Key: 'k', LegalHold: { Status: 'ON' } })), 'InvalidRequest', 400);
  await rejectsWith(h.client.send(new GetObjectRetentionCommand({ Bucket: 'plain', Key: 'k' })), 'InvalidRequest', 400);
  await rejectsWith(h.client.send(new PutObjectRetentionCommand({
    Bucket: 'locked', Key: 'absent', Retention: { Mode: 'GOVERNANCE', RetainUntilDate: inDays(1) },
  })), 'NoSuchKey', 404);
  await rejectsWith(h.client.send(new PutObjectRetentionCommand({
    Bucket: 'locked', Key: 'absent', Retention: { Mode: 'GOVERNANCE', RetainUntilDate: new Date(Date.now() - DAY) },
  })), 'InvalidArgument', 400);
});

function md5(s: string): string {
  return createHash('md5').update(s).digest('base64');
}
