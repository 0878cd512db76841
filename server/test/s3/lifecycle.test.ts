import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  CreateBucketCommand, CreateMultipartUploadCommand, DeleteBucketLifecycleCommand, DeleteObjectCommand, GetBucketLifecycleConfigurationCommand,
  HeadObjectCommand, ListMultipartUploadsCommand, ListObjectVersionsCommand, PutBucketLifecycleConfigurationCommand, PutBucketVersioningCommand,
  PutObjectCommand, type LifecycleRule,
} from '@aws-sdk/client-s3';
import { LifecycleService, dueTime, runLifecycle } from '../../src/storage/index.js';
import { startS3, type S3Harness } from './helpers/harness.js';
import { rejectsWith } from './helpers/rejects.js';
import { errorCode, signedRequest } from './helpers/raw.js';

let h: S3Harness;
before(async () => {
  h = await startS3();
  for (const b of ['cfg', 'plain', 'ver', 'uploads']) await h.client.send(new CreateBucketCommand({ Bucket: b }));
  await h.client.send(new CreateBucketCommand({ Bucket: 'locked', ObjectLockEnabledForBucket: true }));
  await h.client.send(new PutBucketVersioningCommand({ Bucket: 'ver', VersioningConfiguration: { Status: 'Enabled' } }));
});
after(async () => { await h.close(); });

const DAY = 86_400_000;
const md5 = (s: string): string => createHash('md5').update(s).digest('base64');

async function setRules(bucket: string, rules: LifecycleRule[]): Promise<void> {
  await h.client.send(new PutBucketLifecycleConfigurationCommand({ Bucket: bucket, LifecycleConfiguration: { Rules: rules } }));
}

async function exists(bucket: string, key: string, versionId?: string): Promise<boolean> {
  try {
    await h.client.send(new HeadObjectCommand({ Bucket: bucket, Key: key, ...(versionId !== undefined ? { VersionId: versionId } : {}) }));
    return true;
  } catch {
    return false;
  }
}

async function versionsOf(bucket: string, key: string): Promise<Array<{ id: string; marker: boolean }>> {
  const out = await h.client.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: key }));
  const all = [
    ...(out.Versions ?? []).filter((v) => v.Key === key).map((v) => ({ id: v.VersionId ?? '', marker: false, at: v.LastModified?.getTime() ?? 0, latest: v.IsLatest })),
    ...(out.DeleteMarkers ?? []).filter((v) => v.Key === key).map((v) => ({ id: v.VersionId ?? '', marker: true, at: v.LastModified?.getTime() ?? 0, latest: v.IsLatest })),
  ];
  return all.sort((a, b) => Number(b.latest) - Number(a.latest) || b.at - a.at).map(({ id, marker }) => ({ id, marker }));
}

test('Put/Get/DeleteBucketLifecycleConfiguration round-trip; NoSuchLifecycleConfiguration without one', async () => {
  await rejectsWith(h.client.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'cfg' })), 'NoSuchLifecycleConfiguration', 404);
  await setRules('cfg', [
    { ID: 'logs', Status: 'Enabled', Filter: { And: { Prefix: 'logs/', Tags: [{ Key: 'a', Value: '1' }], ObjectSizeGreaterThan: 10 } }, Expiration: { Days: 30 } },
    { ID: 'old', Status: 'Disabled', Filter: { Prefix: '' }, NoncurrentVersionExpiration: { NoncurrentDays: 5, NewerNoncurrentVersions: 2 } },
    { ID: 'mpu', Status: 'Enabled', Filter: {}, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 } },
    { ID: 'date', Status: 'Enabled', Filter: { Tag: { Key: 'k', Value: 'v' } }, Expiration: { Date: new Date(Date.UTC(2031, 0, 1)) } },
    { ID: 'dm', Status: 'Enabled', Filter: { Prefix: 'x/' }, Expiration: { ExpiredObjectDeleteMarker: true } },
  ]);
  const got = await h.client.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'cfg' }));
  const rules = got.Rules ?? [];
  assert.equal(rules.length, 5);
  assert.deepEqual(rules[0]?.Filter?.And, { Prefix: 'logs/', Tags: [{ Key: 'a', Value: '1' }], ObjectSizeGreaterThan: 10 });
  assert.equal(rules[0]?.Expiration?.Days, 30);
  assert.equal(rules[1]?.Status, 'Disabled');
  assert.deepEqual(rules[1]?.NoncurrentVersionExpiration, { NoncurrentDays: 5, NewerNoncurrentVersions: 2 });
  assert.equal(rules[2]?.AbortIncompleteMultipartUpload?.DaysAfterInitiation, 7);
  assert.equal(rules[3]?.Expiration?.Date?.getTime(), Date.UTC(2031, 0, 1));
  assert.deepEqual(rules[3]?.Filter?.Tag, { Key: 'k', Value: 'v' });
  assert.equal(rules[4]?.Expiration?.ExpiredObjectDeleteMarker, true);
  await h.client.send(new DeleteBucketLifecycleCommand({ Bucket: 'cfg' }));
  await rejectsWith(h.client.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'cfg' })), 'NoSuchLifecycleConfiguration', 404);
  await h.client.send(new DeleteBucketLifecycleCommand({ Bucket: 'cfg' }));
  await rejectsWith(h.client.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'no-such-bucket' })), 'NoSuchBucket', 404);
});

test('configuration errors as AWS answers them', async () => {
  const put = async (rules: string, headers?: Record<string, string>): Promise<{ status: number; code: string | undefined }> => {
    const xml = `<LifecycleConfiguration>${rules}</LifecycleConfiguration>`;
    const r = await signedRequest(h.port, { method: 'PUT', path: '/cfg', query: { lifecycle: '' }, headers: headers ?? { 'content-md5': md5(xml) }, body: xml });
    return { status: r.status, code: errorCode(r.body) };
  };
  const rule = (inner: string, filter = '<Filter><Prefix>p/</Prefix></Filter>'): string => `<Rule><ID>r</ID>${filter}<Status>Enabled</Status>${inner}</Rule>`;
  const days = '<Expiration><Days>1</Days></Expiration>';
  const tagFilter = '<Filter><Tag><Key>a</Key><Value>b</Value></Tag></Filter>';
  const cases: Array<[string, number, string, Record<string, string>?]> = [
    ['', 400, 'MalformedXML'],
    [rule(days).replace('Enabled', 'On'), 400, 'MalformedXML'],
    [rule(days, '<Filter><Prefix>a</Prefix></Filter><Prefix>a</Prefix>'), 400, 'MalformedXML'],
    [rule(days, ''), 400, 'MalformedXML'],
    [rule(days, '<Filter><Prefix>a</Prefix><ObjectSizeLessThan>5</ObjectSizeLessThan></Filter>'), 400, 'MalformedXML'],
    [rule('<Expiration><Days>1</Days><Date>2031-01-01T00:00:00Z</Date></Expiration>'), 400, 'MalformedXML'],
    [rule('<Expiration><Days>0</Days></Expiration>'), 400, 'InvalidArgument'],
    [rule('<Expiration><Date>2031-01-01T12:00:00Z</Date></Expiration>'), 400, 'InvalidArgument'],
    [rule(days) + rule(days), 400, 'InvalidArgument'],
    [rule(days).replace('<ID>r</ID>', `<ID>${'x'.repeat(256)}</ID>`), 400, 'InvalidArgument'],
    [rule('<NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>101</NewerNoncurrentVersions></NoncurrentVersionExpiration>'), 400, 'InvalidArgument'],
    [rule('<AbortIncompleteMultipartUpload><DaysAfterInitiation>0</DaysAfterInitiation></AbortIncompleteMultipartUpload>'), 400, 'InvalidArgument'],
    [rule(days, '<Filter><And><ObjectSizeGreaterThan>9</ObjectSizeGreaterThan><ObjectSizeLessThan>5</ObjectSizeLessThan></And></Filter>'), 400, 'InvalidArgument'],
    [rule(''), 400, 'InvalidRequest'],
    [rule('<AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload>', tagFilter), 400, 'InvalidRequest'],
    [rule('<Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>', tagFilter), 400, 'InvalidRequest'],
    [rule(days, '<Filter><And><Tag><Key>a</Key><Value>1</Value></Tag><Tag><Key>a</Key><Value>2</Value></Tag></And></Filter>'), 400, 'InvalidRequest'],
    [rule('<Transition><Days>1</Days><StorageClass>GLACIER</StorageClass></Transition>'), 501, 'NotImplemented'],
    [rule(days), 400, 'InvalidRequest', {}],
  ];
  for (const [rules, status, code, headers] of cases) {
    assert.deepEqual(await put(rules, headers), { status, code }, rules);
  }
  assert.deepEqual(await put(rule(days)), { status: 200, code: undefined });
  await h.client.send(new DeleteBucketLifecycleCommand({ Bucket: 'cfg' }));
});

test('Expiration Days removes exactly the current objects its filters match, at the next midnight UTC after the period', async () => {
  await setRules('plain', [
    { ID: 'tmp-logs', Status: 'Enabled', Filter: { And: { Prefix: 'logs/', Tags: [{ Key: 'env', Value: 'tmp' }] } }, Expiration: { Days: 1 } },
    { ID: 'big', Status: 'Enabled', Filter: { And: { Prefix: 'big/', ObjectSizeGreaterThan: 10 } }, Expiration: { Days: 2 } },
    { ID: 'off', Status: 'Disabled', Filter: { Prefix: 'off/' }, Expiration: { Days: 1 } },
  ]);
  const put = (key: string, body: string, tagging?: string): Promise<unknown> =>
    h.client.send(new PutObjectCommand({ Bucket: 'plain', Key: key, Body: body, ...(tagging !== undefined ? { Tagging: tagging } : {}) }));
  await put('logs/tmp', 'x', 'env=tmp');
  await put('logs/prod', 'x', 'env=prod');
  await put('logs/untagged', 'x');
  await put('other/tmp', 'x', 'env=tmp');
  await put('big/large', 'x'.repeat(20));
  await put('big/small', 'x'.repeat(5));
  await put('off/a', 'x');
  const created = (await h.client.send(new HeadObjectCommand({ Bucket: 'plain', Key: 'logs/tmp' }))).LastModified!.getTime();
  const due1 = dueTime(created, 1);
  assert.equal(due1 % DAY, 0);
  assert.ok(due1 > created + DAY && due1 <= created + 2 * DAY);

  const before = await runLifecycle(h.layer, { now: () => due1 - 1 });
  assert.equal(before.expired, 0);
  assert.equal(await exists('plain', 'logs/tmp'), true);

  const first = await runLifecycle(h.layer, { now: () => due1 });
  assert.equal(first.expired, 1);
  assert.equal(await exists('plain', 'logs/tmp'), false);
  for (const key of ['logs/prod', 'logs/untagged', 'other/tmp', 'big/large', 'big/small', 'off/a']) assert.equal(await exists('plain', key), true, key);

  const second = await runLifecycle(h.layer, { now: () => dueTime(created, 2) });
  assert.equal(second.expired, 1);
  assert.equal(await exists('plain', 'big/large'), false);
  for (const key of ['logs/prod', 'logs/untagged', 'other/tmp', 'big/small', 'off/a']) assert.equal(await exists('plain', key), true, key);
});

test('versioned bucket: current versions get a delete marker, noncurrent versions beyond NewerNoncurrentVersions go, expired delete markers are removed', async () => {
  await setRules('ver', [
    { ID: 'cur', Status: 'Enabled', Filter: { Prefix: 'cur/' }, Expiration: { Days: 1 } },
    { ID: 'nc', Status: 'Enabled', Filter: { Prefix: 'nc/' }, NoncurrentVersionExpiration: { NoncurrentDays: 1, NewerNoncurrentVersions: 1 } },
    { ID: 'dm', Status: 'Enabled', Filter: { Prefix: 'dm/' }, Expiration: { ExpiredObjectDeleteMarker: true }, NoncurrentVersionExpiration: { NoncurrentDays: 1 } },
  ]);
  const put = async (key: string): Promise<string> => (await h.client.send(new PutObjectCommand({ Bucket: 'ver', Key: key, Body: key }))).VersionId!;
  const cur = await put('cur/k');
  const nc1 = await put('nc/k');
  const nc2 = await put('nc/k');
  const nc3 = await put('nc/k');
  const o1 = await put('other/k');
  const o2 = await put('other/k');
  const dm1 = await put('dm/k');
  await h.client.send(new DeleteObjectCommand({ Bucket: 'ver', Key: 'dm/k' }));
  const keepMarker = await put('dm/kept');
  await h.client.send(new DeleteObjectCommand({ Bucket: 'ver', Key: 'dm/kept' }));
  await h.client.send(new PutObjectCommand({ Bucket: 'ver', Key: 'dm/kept', Body: 'again' }));

  const report = await runLifecycle(h.layer, { now: () => Date.now() + 3 * DAY });
  assert.equal(report.expired, 1);
  const curVersions = await versionsOf('ver', 'cur/k');
  assert.deepEqual(curVersions.map((v) => v.marker), [true, false]);
  assert.equal(curVersions[1]?.id, cur);
  assert.deepEqual(await versionsOf('ver', 'nc/k'), [{ id: nc3, marker: false }, { id: nc2, marker: false }]);
  assert.equal(await exists('ver', 'nc/k', nc1), false);
  assert.deepEqual(await versionsOf('ver', 'other/k'), [{ id: o2, marker: false }, { id: o1, marker: false }]);
  // dm/k: its only object version became noncurrent and expired, then the lone marker was removed too.
  assert.deepEqual(await versionsOf('ver', 'dm/k'), []);
  assert.equal(await exists('ver', 'dm/k', dm1), false);
  // dm/kept has a current object: the noncurrent marker and version expire, the current object stays.
  const kept = await versionsOf('ver', 'dm/kept');
  assert.equal(kept.length, 1);
  assert.equal(kept[0]?.marker, false);
  assert.notEqual(kept[0]?.id, keepMarker);
});

test('AbortIncompleteMultipartUpload aborts uploads under the rule prefix only, after DaysAfterInitiation', async () => {
  await setRules('uploads', [{ ID: 'mpu', Status: 'Enabled', Filter: { Prefix: 'tmp/' }, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 2 } }]);
  const a = await h.client.send(new CreateMultipartUploadCommand({ Bucket: 'uploads', Key: 'tmp/a' }));
  await h.client.send(new CreateMultipartUploadCommand({ Bucket: 'uploads', Key: 'keep/b' }));
  const listed = await h.client.send(new ListMultipartUploadsCommand({ Bucket: 'uploads' }));
  const initiated = listed.Uploads?.find((u) => u.UploadId === a.UploadId)?.Initiated?.getTime() ?? 0;
  const service = new LifecycleService(h.layer, { intervalMs: 3_600_000, now: () => dueTime(initiated, 1) });
  assert.equal((await service.runNow()).uploadsAborted, 0);
  const late = await runLifecycle(h.layer, { now: () => dueTime(initiated, 2) });
  assert.equal(late.uploadsAborted, 1);
  const left = await h.client.send(new ListMultipartUploadsCommand({ Bucket: 'uploads' }));
  assert.deepEqual(left.Uploads?.map((u) => u.Key), ['keep/b']);
  assert.equal(service.lastReport()?.uploadsAborted, 0);
  await service.stop();
});

test('expiry respects Object Lock: a retained noncurrent version stays until its retention ends', async () => {
  await setRules('locked', [{ ID: 'nc', Status: 'Enabled', Filter: {}, NoncurrentVersionExpiration: { NoncurrentDays: 1 } }]);
  const retainUntil = new Date(Date.now() + 10 * DAY);
  const v1 = (await h.client.send(new PutObjectCommand({
    Bucket: 'locked', Key: 'k', Body: 'one', ObjectLockMode: 'COMPLIANCE', ObjectLockRetainUntilDate: retainUntil,
  }))).VersionId!;
  const v2 = (await h.client.send(new PutObjectCommand({ Bucket: 'locked', Key: 'k', Body: 'two' }))).VersionId!;
  const early = await runLifecycle(h.layer, { now: () => Date.now() + 3 * DAY });
  assert.equal(early.locked, 1);
  assert.equal(early.noncurrentRemoved, 0);
  assert.equal(await exists('locked', 'k', v1), true);
  const late = await runLifecycle(h.layer, { now: () => retainUntil.getTime() + DAY });
  assert.equal(late.noncurrentRemoved, 1);
  assert.equal(await exists('locked', 'k', v1), false);
  assert.equal(await exists('locked', 'k', v2), true);
});
