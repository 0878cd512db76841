import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import {
  CompleteMultipartUploadCommand, CopyObjectCommand, CreateBucketCommand, CreateMultipartUploadCommand, GetObjectAttributesCommand,
  GetObjectCommand, HeadObjectCommand, PutBucketVersioningCommand, PutObjectCommand, UploadPartCommand,
  type ChecksumAlgorithm, type ChecksumType,
} from '@aws-sdk/client-s3';
import { computeChecksum } from '../../src/common/index.js';
import type { ObjectLayer } from '../../src/storage/index.js';
import { startS3, type S3Harness } from './helpers/harness.js';
import { rejectsWith } from './helpers/rejects.js';
import { errorCode, signedRequest } from './helpers/raw.js';

let h: S3Harness;
const B = 'attributes';
const MiB = 1024 * 1024;
const HUGE = 'huge/object';
before(async () => {
  // Test hook: the engine reports one key as larger than 5 GiB, so CopyObject's limit is exercised without
  // writing 5 GiB through erasure coding.
  h = await startS3({
    wrapLayer: (layer: ObjectLayer): ObjectLayer => new Proxy(layer, {
      get(target, prop) {
        if (prop === 'openObject') {
          return async (...args: Parameters<ObjectLayer['openObject']>) => {
            const o = await target.openObject(...args);
            return args[1] === HUGE ? { ...o, info: { ...o.info, size: 5 * 1024 * MiB + 1 } } : o;
          };
        }
        const v: unknown = Reflect.get(target, prop, target);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    }),
  });
  await h.client.send(new CreateBucketCommand({ Bucket: B }));
});
after(async () => { await h.close(); });

async function multipart(key: string, alg: ChecksumAlgorithm, type: ChecksumType | undefined, parts: Buffer[]): Promise<{ values: string[]; etag: string | undefined; completed: { ChecksumType?: string } & Record<string, unknown> }> {
  const { UploadId } = await h.client.send(new CreateMultipartUploadCommand({
    Bucket: B, Key: key, ChecksumAlgorithm: alg, ...(type !== undefined ? { ChecksumType: type } : {}),
  }));
  const field = `Checksum${alg}` as const;
  const uploaded = [];
  const values: string[] = [];
  for (const [i, body] of parts.entries()) {
    const res = await h.client.send(new UploadPartCommand({ Bucket: B, Key: key, UploadId, PartNumber: i + 1, Body: body, ChecksumAlgorithm: alg }));
    const value = (res as unknown as Record<string, unknown>)[field] as string;
    values.push(value);
    uploaded.push({ PartNumber: i + 1, ETag: res.ETag!, [field]: value });
  }
  const completed = await h.client.send(new CompleteMultipartUploadCommand({ Bucket: B, Key: key, UploadId, MultipartUpload: { Parts: uploaded } }));
  return { values, etag: completed.ETag, completed: completed as unknown as { ChecksumType?: string } & Record<string, unknown> };
}

test('GetObjectAttributes of a single PUT: ETag, Checksum, StorageClass, ObjectSize; no ObjectParts', async () => {
  const body = randomBytes(1000);
  await h.client.send(new PutObjectCommand({ Bucket: B, Key: 'single', Body: body, ChecksumAlgorithm: 'SHA256' }));
  const res = await h.client.send(new GetObjectAttributesCommand({
    Bucket: B, Key: 'single', ObjectAttributes: ['ETag', 'Checksum', 'ObjectParts', 'StorageClass', 'ObjectSize'],
  }));
  assert.equal(res.ETag, createHash('md5').update(body).digest('hex'));
  assert.equal(res.Checksum?.ChecksumSHA256, computeChecksum('SHA256', body));
  assert.equal(res.Checksum?.ChecksumType, 'FULL_OBJECT');
  assert.equal(res.StorageClass, 'STANDARD');
  assert.equal(res.ObjectSize, 1000);
  assert.equal(res.ObjectParts, undefined);
  assert.ok(res.LastModified instanceof Date);
  const some = await h.client.send(new GetObjectAttributesCommand({ Bucket: B, Key: 'single', ObjectAttributes: ['ObjectSize'] }));
  assert.equal(some.ObjectSize, 1000);
  assert.equal(some.ETag, undefined);
  assert.equal(some.Checksum, undefined);
});

test('COMPOSITE multipart: the composite checksum is stored (GET with checksum mode, attributes), parts page', async () => {
  const parts = [randomBytes(5 * MiB), randomBytes(5 * MiB), randomBytes(777)];
  const { values, completed } = await multipart('mp/composite', 'CRC32C', 'COMPOSITE', parts);
  const composite = computeChecksum('CRC32C', Buffer.concat(values.map((v) => Buffer.from(v, 'base64'))));
  assert.equal(completed.ChecksumCRC32C, `${composite}-3`);
  assert.equal(completed.ChecksumType, 'COMPOSITE');
  const get = await h.client.send(new GetObjectCommand({ Bucket: B, Key: 'mp/composite', ChecksumMode: 'ENABLED' }));
  await get.Body!.transformToByteArray();
  assert.equal(get.ChecksumCRC32C, `${composite}-3`);
  assert.equal(get.ChecksumType, 'COMPOSITE');
  const head = await h.client.send(new HeadObjectCommand({ Bucket: B, Key: 'mp/composite', ChecksumMode: 'ENABLED' }));
  assert.equal(head.ChecksumCRC32C, `${composite}-3`);

  const attrs = await h.client.send(new GetObjectAttributesCommand({
    Bucket: B, Key: 'mp/composite', ObjectAttributes: ['Checksum', 'ObjectParts', 'ObjectSize'], MaxParts: 2,
  }));
  assert.equal(attrs.Checksum?.ChecksumCRC32C, composite);
  assert.equal(attrs.Checksum?.ChecksumType, 'COMPOSITE');
  assert.equal(attrs.ObjectSize, 10 * MiB + 777);
  assert.equal(attrs.ObjectParts?.TotalPartsCount, 3);
  assert.equal(attrs.ObjectParts?.IsTruncated, true);
  assert.equal(attrs.ObjectParts?.MaxParts, 2);
  assert.equal(attrs.ObjectParts?.NextPartNumberMarker, '2');
  assert.deepEqual(attrs.ObjectParts?.Parts?.map((p) => [p.PartNumber, p.Size, p.ChecksumCRC32C]), [[1, 5 * MiB, values[0]], [2, 5 * MiB, values[1]]]);
  const rest = await h.client.send(new GetObjectAttributesCommand({
    Bucket: B, Key: 'mp/composite', ObjectAttributes: ['ObjectParts'], PartNumberMarker: '2',
  }));
  assert.equal(rest.ObjectParts?.IsTruncated, false);
  assert.deepEqual(rest.ObjectParts?.Parts?.map((p) => [p.PartNumber, p.Size]), [[3, 777]]);
});

for (const alg of ['CRC32', 'CRC32C', 'CRC64NVME'] as const) {
  test(`FULL_OBJECT multipart ${alg}: the stored checksum is the ${alg} of the whole object`, async () => {
    const parts = [randomBytes(5 * MiB), randomBytes(4321)];
    const key = `mp/full-${alg}`;
    const { completed } = await multipart(key, alg, 'FULL_OBJECT', parts);
    const whole = computeChecksum(alg, Buffer.concat(parts));
    assert.equal(completed[`Checksum${alg}`], whole);
    assert.equal(completed.ChecksumType, 'FULL_OBJECT');
    const head = await h.client.send(new HeadObjectCommand({ Bucket: B, Key: key, ChecksumMode: 'ENABLED' }));
    assert.equal((head as unknown as Record<string, unknown>)[`Checksum${alg}`], whole);
    assert.equal(head.ChecksumType, 'FULL_OBJECT');
    const attrs = await h.client.send(new GetObjectAttributesCommand({ Bucket: B, Key: key, ObjectAttributes: ['Checksum'] }));
    assert.equal((attrs.Checksum as Record<string, unknown>)[`Checksum${alg}`], whole);
    assert.equal(attrs.Checksum?.ChecksumType, 'FULL_OBJECT');
  });
}

test('CRC64NVME without a type defaults to FULL_OBJECT; unsupported combinations are InvalidRequest', async () => {
  const { completed } = await multipart('mp/nvme-default', 'CRC64NVME', undefined, [randomBytes(100)]);
  assert.equal(completed.ChecksumType, 'FULL_OBJECT');
  await rejectsWith(h.client.send(new CreateMultipartUploadCommand({ Bucket: B, Key: 'x', ChecksumAlgorithm: 'SHA256', ChecksumType: 'FULL_OBJECT' })),
    'InvalidRequest', 400, /FULL_OBJECT checksum type cannot be used with the sha256/);
  await rejectsWith(h.client.send(new CreateMultipartUploadCommand({ Bucket: B, Key: 'x', ChecksumAlgorithm: 'CRC64NVME', ChecksumType: 'COMPOSITE' })),
    'InvalidRequest', 400, /COMPOSITE checksum type cannot be used with the crc64nvme/);
  const typeOnly = await signedRequest(h.port, { method: 'POST', path: `/${B}/x`, query: { uploads: '' }, headers: { 'x-amz-checksum-type': 'FULL_OBJECT' } });
  assert.equal(typeOnly.status, 400);
  assert.equal(errorCode(typeOnly.body), 'InvalidRequest');
  const badType = await signedRequest(h.port, {
    method: 'POST', path: `/${B}/x`, query: { uploads: '' }, headers: { 'x-amz-checksum-algorithm': 'CRC32', 'x-amz-checksum-type': 'PARTIAL' },
  });
  assert.equal(errorCode(badType.body), 'InvalidArgument');
});

test('CompleteMultipartUpload checks a full-object checksum and x-amz-mp-object-size it is given', async () => {
  const part = randomBytes(1000);
  const key = 'mp/asserted';
  const { UploadId } = await h.client.send(new CreateMultipartUploadCommand({ Bucket: B, Key: key, ChecksumAlgorithm: 'CRC32', ChecksumType: 'FULL_OBJECT' }));
  const up = await h.client.send(new UploadPartCommand({ Bucket: B, Key: key, UploadId, PartNumber: 1, Body: part, ChecksumAlgorithm: 'CRC32' }));
  const Parts = [{ PartNumber: 1, ETag: up.ETag!, ChecksumCRC32: up.ChecksumCRC32! }];
  await rejectsWith(h.client.send(new CompleteMultipartUploadCommand({
    Bucket: B, Key: key, UploadId, MultipartUpload: { Parts }, ChecksumCRC32: computeChecksum('CRC32', Buffer.from('other')), ChecksumType: 'FULL_OBJECT',
  })), 'BadDigest', 400);
  await rejectsWith(h.client.send(new CompleteMultipartUploadCommand({
    Bucket: B, Key: key, UploadId, MultipartUpload: { Parts }, MpuObjectSize: 999,
  })), 'InvalidRequest', 400, /x-amz-mp-object-size/);
  await rejectsWith(h.client.send(new CompleteMultipartUploadCommand({
    Bucket: B, Key: key, UploadId, MultipartUpload: { Parts }, ChecksumType: 'COMPOSITE',
  })), 'InvalidRequest', 400, /FULL_OBJECT checksum mode/);
  const done = await h.client.send(new CompleteMultipartUploadCommand({
    Bucket: B, Key: key, UploadId, MultipartUpload: { Parts }, ChecksumCRC32: computeChecksum('CRC32', part), ChecksumType: 'FULL_OBJECT', MpuObjectSize: 1000,
  }));
  assert.equal(done.ChecksumCRC32, computeChecksum('CRC32', part));
});

test('GetObjectAttributes: missing or unknown attribute is InvalidArgument; missing key NoSuchKey; versions', async () => {
  const missing = await signedRequest(h.port, { method: 'GET', path: `/${B}/single`, query: { attributes: '' } });
  assert.equal(missing.status, 400);
  assert.equal(errorCode(missing.body), 'InvalidArgument');
  const unknown = await signedRequest(h.port, { method: 'GET', path: `/${B}/single`, query: { attributes: '' }, headers: { 'x-amz-object-attributes': 'ETag,Colour' } });
  assert.equal(unknown.status, 400);
  assert.equal(errorCode(unknown.body), 'InvalidArgument');
  await rejectsWith(h.client.send(new GetObjectAttributesCommand({ Bucket: B, Key: 'nope', ObjectAttributes: ['ETag'] })), 'NoSuchKey', 404);

  await h.client.send(new CreateBucketCommand({ Bucket: 'attributes-versioned' }));
  await h.client.send(new PutBucketVersioningCommand({ Bucket: 'attributes-versioned', VersioningConfiguration: { Status: 'Enabled' } }));
  const v1 = await h.client.send(new PutObjectCommand({ Bucket: 'attributes-versioned', Key: 'k', Body: 'first' }));
  await h.client.send(new PutObjectCommand({ Bucket: 'attributes-versioned', Key: 'k', Body: 'second!' }));
  const old = await h.client.send(new GetObjectAttributesCommand({ Bucket: 'attributes-versioned', Key: 'k', VersionId: v1.VersionId, ObjectAttributes: ['ObjectSize'] }));
  assert.equal(old.ObjectSize, 5);
  assert.equal(old.VersionId, v1.VersionId);
  const newest = await h.client.send(new GetObjectAttributesCommand({ Bucket: 'attributes-versioned', Key: 'k', ObjectAttributes: ['ObjectSize'] }));
  assert.equal(newest.ObjectSize, 7);
});

test('CopyObject of a source over 5 GiB is refused with InvalidRequest', async () => {
  await h.client.send(new PutObjectCommand({ Bucket: B, Key: HUGE, Body: 'pretends to be huge' }));
  await rejectsWith(h.client.send(new CopyObjectCommand({ Bucket: B, Key: 'copy', CopySource: `${B}/${HUGE}` })),
    'InvalidRequest', 400, /larger than the maximum allowable size for a copy source: 5368709120/);
  await rejectsWith(h.client.send(new HeadObjectCommand({ Bucket: B, Key: 'copy' })), 'NotFound', 404);
});
