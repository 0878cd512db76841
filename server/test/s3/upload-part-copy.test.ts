import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateBucketCommand, CreateMultipartUploadCommand, GetObjectCommand,
  PutObjectCommand, UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { startS3, type S3Harness } from './helpers/harness.js';
import { rejectsWith } from './helpers/rejects.js';

let h: S3Harness;
const MiB = 1024 * 1024;
const big = Buffer.alloc(6 * MiB + 123);
for (let i = 0; i < big.length; i++) big[i] = (i * 31 + (i >> 11)) & 0xff;
let bigEtag = '';

before(async () => {
  h = await startS3();
  await h.client.send(new CreateBucketCommand({ Bucket: 'src' }));
  await h.client.send(new CreateBucketCommand({ Bucket: 'dst' }));
  bigEtag = (await h.client.send(new PutObjectCommand({ Bucket: 'src', Key: 'big', Body: big }))).ETag ?? '';
  await h.client.send(new PutObjectCommand({ Bucket: 'src', Key: 'small', Body: 'tail!' }));
});
after(async () => { await h.close(); });


test('parts copied from a whole object and from a range of another bucket assemble into the right object', async () => {
  const { UploadId } = await h.client.send(new CreateMultipartUploadCommand({ Bucket: 'dst', Key: 'joined' }));
  const copy = (PartNumber: number, CopySource: string, CopySourceRange?: string) => h.client.send(new UploadPartCopyCommand({
    Bucket: 'dst', Key: 'joined', UploadId, PartNumber, CopySource, ...(CopySourceRange !== undefined ? { CopySourceRange } : {}),
  }));
  const p1 = await copy(1, '/src/big');
  const p2 = await copy(2, 'src/big', `bytes=${5 * MiB}-${big.length - 1}`);
  assert.equal(p1.CopyPartResult?.ETag, `"${createHash('md5').update(big).digest('hex')}"`);
  assert.ok(p1.CopyPartResult?.LastModified instanceof Date);
  assert.equal(p2.CopyPartResult?.ETag, `"${createHash('md5').update(big.subarray(5 * MiB)).digest('hex')}"`);
  await h.client.send(new CompleteMultipartUploadCommand({
    Bucket: 'dst', Key: 'joined', UploadId,
    MultipartUpload: { Parts: [p1, p2].map((p, i) => ({ PartNumber: i + 1, ETag: p.CopyPartResult?.ETag })) },
  }));
  const got = Buffer.from(await (await h.client.send(new GetObjectCommand({ Bucket: 'dst', Key: 'joined' }))).Body!.transformToByteArray());
  assert.ok(got.equals(Buffer.concat([big, big.subarray(5 * MiB)])));
});

test('an upload with a checksum algorithm gets per-part checksums for copied parts', async () => {
  const { UploadId } = await h.client.send(new CreateMultipartUploadCommand({ Bucket: 'dst', Key: 'summed', ChecksumAlgorithm: 'SHA256' }));
  const part = await h.client.send(new UploadPartCopyCommand({ Bucket: 'dst', Key: 'summed', UploadId, PartNumber: 1, CopySource: 'src/small' }));
  assert.equal(part.CopyPartResult?.ChecksumSHA256, createHash('sha256').update('tail!').digest('base64'));
  const done = await h.client.send(new CompleteMultipartUploadCommand({
    Bucket: 'dst', Key: 'summed', UploadId,
    MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.CopyPartResult?.ETag, ChecksumSHA256: part.CopyPartResult?.ChecksumSHA256 }] },
  }));
  assert.match(done.ChecksumSHA256 ?? '', /-1$/);
});

test('copy-source conditionals, ranges, missing uploads and sources fail as on AWS', async () => {
  const { UploadId } = await h.client.send(new CreateMultipartUploadCommand({ Bucket: 'dst', Key: 'errs' }));
  const base = { Bucket: 'dst', Key: 'errs', UploadId, PartNumber: 1, CopySource: 'src/big' };
  await rejectsWith(h.client.send(new UploadPartCopyCommand({ ...base, CopySourceIfMatch: '"0000"' })), 'PreconditionFailed', 412);
  await rejectsWith(h.client.send(new UploadPartCopyCommand({ ...base, CopySourceIfNoneMatch: bigEtag })), 'PreconditionFailed', 412);
  await rejectsWith(h.client.send(new UploadPartCopyCommand({ ...base, CopySourceIfModifiedSince: new Date(Date.now() + 86_400_000) })), 'PreconditionFailed', 412);
  await rejectsWith(h.client.send(new UploadPartCopyCommand({ ...base, CopySourceIfUnmodifiedSince: new Date(0) })), 'PreconditionFailed', 412);
  const ok = await h.client.send(new UploadPartCopyCommand({ ...base, CopySource: 'src/small', CopySourceIfMatch: `"${createHash('md5').update('tail!').digest('hex')}"` }));
  assert.ok(ok.CopyPartResult?.ETag);
  await rejectsWith(h.client.send(new UploadPartCopyCommand({ ...base, CopySourceRange: 'bytes=0-' })), 'InvalidArgument', 400, /bytes=first-last/);
  await rejectsWith(h.client.send(new UploadPartCopyCommand({ ...base, CopySourceRange: `bytes=0-${big.length}` })), 'InvalidArgument', 400,
    new RegExp(`source object of size: ${big.length}`));
  await rejectsWith(h.client.send(new UploadPartCopyCommand({ ...base, CopySource: 'src/absent' })), 'NoSuchKey', 404);
  await rejectsWith(h.client.send(new UploadPartCopyCommand({ ...base, CopySource: 'no-such-src/x' })), 'NoSuchBucket', 404);
  await rejectsWith(h.client.send(new UploadPartCopyCommand({ ...base, UploadId: 'not-an-upload' })), 'NoSuchUpload', 404);
  await h.client.send(new AbortMultipartUploadCommand({ Bucket: 'dst', Key: 'errs', UploadId }));
});
