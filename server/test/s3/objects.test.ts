import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  CopyObjectCommand, CreateBucketCommand, DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand,
  PutObjectCommand, } from '@aws-sdk/client-s3';
import { computeChecksum } from '../../src/common/index.js';
import { startS3, type S3Harness } from './helpers/harness.js';
import { rejectsWith } from './helpers/rejects.js';

let h: S3Harness;
const B = 'objects';
before(async () => {
  h = await startS3();
  await h.client.send(new CreateBucketCommand({ Bucket: B }));
});
after(async () => { await h.close(); });

const md5 = (b: Buffer | string): string => createHash('md5').update(b).digest('hex');

async function getBytes(input: ConstructorParameters<typeof GetObjectCommand>[0]) {
  const res = await h.client.send(new GetObjectCommand(input));
  const body = Buffer.from(await res.Body!.transformToByteArray());
  return { res, body };
}


test('PutObject stores body and metadata; GetObject and HeadObject return them', async () => {
  const body = randomBytes(300_000);
  const put = await h.client.send(new PutObjectCommand({
    Bucket: B, Key: 'dir/file.bin', Body: body,
    ContentType: 'application/x-test', ContentEncoding: 'identity', ContentDisposition: 'attachment; filename="f.bin"',
    CacheControl: 'max-age=60', ContentLanguage: 'en', Expires: new Date('2030-01-01T00:00:00Z'),
    Metadata: { color: 'blue', 'two-words': 'a b' },
  }));
  assert.equal(put.ETag, `"${md5(body)}"`);
  // The SDK sends a CRC32 checksum by default (trailer); it is verified, stored and echoed.
  assert.equal(put.ChecksumCRC32, computeChecksum('CRC32', body), 'PutObject echoes the verified CRC32');
  const { res, body: got } = await getBytes({ Bucket: B, Key: 'dir/file.bin' });
  assert.ok(got.equals(body));
  assert.equal(res.ETag, `"${md5(body)}"`);
  assert.equal(res.ContentType, 'application/x-test');
  assert.equal(res.ContentEncoding, 'identity');
  assert.equal(res.ContentDisposition, 'attachment; filename="f.bin"');
  assert.equal(res.CacheControl, 'max-age=60');
  assert.equal(res.ContentLanguage, 'en');
  assert.equal(res.ContentLength, body.length);
  assert.deepEqual(res.Metadata, { color: 'blue', 'two-words': 'a b' });
  assert.ok(res.LastModified instanceof Date);
  const head = await h.client.send(new HeadObjectCommand({ Bucket: B, Key: 'dir/file.bin', ChecksumMode: 'ENABLED' }));
  assert.equal(head.ContentLength, body.length);
  assert.equal(head.ChecksumCRC32, put.ChecksumCRC32);
  assert.equal(head.ETag, put.ETag);
});

test('a streamed PutObject uses aws-chunked with a CRC32 trailer: verified, stored, no aws-chunked in Content-Encoding', async () => {
  const body = randomBytes(200_000);
  const put = await h.client.send(new PutObjectCommand({
    Bucket: B, Key: 'streamed', Body: Readable.from([body.subarray(0, 70_000), body.subarray(70_000)]), ContentLength: body.length,
  }));
  assert.equal(put.ChecksumCRC32, computeChecksum('CRC32', body));
  const { res, body: got } = await getBytes({ Bucket: B, Key: 'streamed', ChecksumMode: 'ENABLED' });
  assert.ok(got.equals(body));
  assert.equal(res.ContentEncoding, undefined);
  assert.equal(res.ChecksumCRC32, put.ChecksumCRC32);
});

test('objects without Content-Type read back as binary/octet-stream; empty objects work', async () => {
  await h.client.send(new PutObjectCommand({ Bucket: B, Key: 'empty', Body: new Uint8Array(0) }));
  const { res, body } = await getBytes({ Bucket: B, Key: 'empty' });
  assert.equal(body.length, 0);
  assert.equal(res.ETag, `"${md5('')}"`);
  assert.ok(res.ContentType === 'binary/octet-stream' || res.ContentType === 'application/octet-stream');
});

test('GetObject with checksum mode returns the stored CRC32, which the SDK validates', async () => {
  const body = randomBytes(70_000);
  const put = await h.client.send(new PutObjectCommand({ Bucket: B, Key: 'crc', Body: body, ChecksumAlgorithm: 'CRC32' }));
  const { res, body: got } = await getBytes({ Bucket: B, Key: 'crc', ChecksumMode: 'ENABLED' });
  assert.ok(got.equals(body));
  assert.equal(res.ChecksumCRC32, put.ChecksumCRC32);
  const sha = await h.client.send(new PutObjectCommand({ Bucket: B, Key: 'sha', Body: body, ChecksumAlgorithm: 'SHA256' }));
  assert.equal(sha.ChecksumSHA256, createHash('sha256').update(body).digest('base64'));
});

test('ranges: a-b, a-, -n give 206 with Content-Range; unsatisfiable is 416 InvalidRange', async () => {
  const body = Buffer.from('0123456789');
  await h.client.send(new PutObjectCommand({ Bucket: B, Key: 'digits', Body: body }));
  const cases: Array<[string, string, string]> = [
    ['bytes=2-5', '2345', 'bytes 2-5/10'],
    ['bytes=7-', '789', 'bytes 7-9/10'],
    ['bytes=-3', '789', 'bytes 7-9/10'],
    ['bytes=8-100', '89', 'bytes 8-9/10'],
  ];
  for (const [range, expected, contentRange] of cases) {
    const { res, body: got } = await getBytes({ Bucket: B, Key: 'digits', Range: range });
    assert.equal(res.$metadata.httpStatusCode, 206, range);
    assert.equal(got.toString(), expected, range);
    assert.equal(res.ContentRange, contentRange, range);
    assert.equal(res.ContentLength, expected.length, range);
  }
  await rejectsWith(h.client.send(new GetObjectCommand({ Bucket: B, Key: 'digits', Range: 'bytes=10-' })), 'InvalidRange', 416);
  const ignored = await getBytes({ Bucket: B, Key: 'digits', Range: 'bytes=5-2' });
  assert.equal(ignored.res.$metadata.httpStatusCode, 200);
  assert.equal(ignored.body.toString(), '0123456789');
});

test('conditional GET: 304 and 412 with AWS precedence', async () => {
  const put = await h.client.send(new PutObjectCommand({ Bucket: B, Key: 'cond', Body: 'conditional' }));
  const etag = put.ETag!;
  const past = new Date(Date.now() - 3600_000);
  const future = new Date(Date.now() + 3600_000);
  await rejectsWith(h.client.send(new GetObjectCommand({ Bucket: B, Key: 'cond', IfNoneMatch: etag })), undefined, 304);
  await rejectsWith(h.client.send(new GetObjectCommand({ Bucket: B, Key: 'cond', IfMatch: '"nope"' })), 'PreconditionFailed', 412);
  await rejectsWith(h.client.send(new GetObjectCommand({ Bucket: B, Key: 'cond', IfModifiedSince: future })), undefined, 304);
  await rejectsWith(h.client.send(new GetObjectCommand({ Bucket: B, Key: 'cond', IfUnmodifiedSince: past })), 'PreconditionFailed', 412);
  // If-Match true wins over If-Unmodified-Since false; If-None-Match false wins over If-Modified-Since true.
  const a = await getBytes({ Bucket: B, Key: 'cond', IfMatch: etag, IfUnmodifiedSince: past });
  assert.equal(a.body.toString(), 'conditional');
  await rejectsWith(h.client.send(new GetObjectCommand({ Bucket: B, Key: 'cond', IfNoneMatch: etag, IfModifiedSince: past })), undefined, 304);
  const b = await getBytes({ Bucket: B, Key: 'cond', IfNoneMatch: '"other"', IfModifiedSince: past });
  assert.equal(b.res.$metadata.httpStatusCode, 200);
  await rejectsWith(h.client.send(new HeadObjectCommand({ Bucket: B, Key: 'cond', IfMatch: '"nope"' })), undefined, 412);
});

test('response-* overrides replace the stored headers on GET', async () => {
  await h.client.send(new PutObjectCommand({ Bucket: B, Key: 'override', Body: 'x', ContentType: 'text/plain' }));
  const { res } = await getBytes({
    Bucket: B, Key: 'override', ResponseContentType: 'application/json', ResponseContentDisposition: 'inline',
    ResponseCacheControl: 'no-store', ResponseContentLanguage: 'fr', ResponseContentEncoding: 'identity',
  });
  assert.equal(res.ContentType, 'application/json');
  assert.equal(res.ContentDisposition, 'inline');
  assert.equal(res.CacheControl, 'no-store');
  assert.equal(res.ContentLanguage, 'fr');
  assert.equal(res.ContentEncoding, 'identity');
});

test('missing keys are NoSuchKey (GET) and 404 without body (HEAD); DeleteObject is idempotent (204)', async () => {
  await rejectsWith(h.client.send(new GetObjectCommand({ Bucket: B, Key: 'absent' })), 'NoSuchKey', 404);
  await rejectsWith(h.client.send(new HeadObjectCommand({ Bucket: B, Key: 'absent' })), 'NotFound', 404);
  await h.client.send(new PutObjectCommand({ Bucket: B, Key: 'doomed', Body: 'x' }));
  const del = await h.client.send(new DeleteObjectCommand({ Bucket: B, Key: 'doomed' }));
  assert.equal(del.$metadata.httpStatusCode, 204);
  const again = await h.client.send(new DeleteObjectCommand({ Bucket: B, Key: 'doomed' }));
  assert.equal(again.$metadata.httpStatusCode, 204);
  await rejectsWith(h.client.send(new GetObjectCommand({ Bucket: B, Key: 'doomed' })), 'NoSuchKey', 404);
  await rejectsWith(h.client.send(new PutObjectCommand({ Bucket: 'no-such-bucket', Key: 'k', Body: 'x' })), 'NoSuchBucket', 404);
});

test('user metadata above 2 KB is MetadataTooLarge', async () => {
  await rejectsWith(
    h.client.send(new PutObjectCommand({ Bucket: B, Key: 'meta', Body: 'x', Metadata: { big: 'v'.repeat(2100) } })),
    'MetadataTooLarge', 400,
  );
});

test('CopyObject: COPY keeps metadata, REPLACE replaces it, self-copy needs REPLACE, conditionals give 412', async () => {
  const body = randomBytes(50_000);
  await h.client.send(new PutObjectCommand({ Bucket: B, Key: 'src key', Body: body, ContentType: 'image/png', Metadata: { a: '1' } }));
  const copy = await h.client.send(new CopyObjectCommand({ Bucket: B, Key: 'dst/copy', CopySource: `${B}/${encodeURIComponent('src key')}` }));
  assert.equal(copy.CopyObjectResult?.ETag, `"${md5(body)}"`);
  assert.ok(copy.CopyObjectResult?.LastModified instanceof Date);
  const c = await getBytes({ Bucket: B, Key: 'dst/copy' });
  assert.ok(c.body.equals(body));
  assert.equal(c.res.ContentType, 'image/png');
  assert.deepEqual(c.res.Metadata, { a: '1' });

  await h.client.send(new CopyObjectCommand({
    Bucket: B, Key: 'dst/replaced', CopySource: `${B}/src%20key`, MetadataDirective: 'REPLACE',
    ContentType: 'text/csv', Metadata: { b: '2' },
  }));
  const r = await h.client.send(new HeadObjectCommand({ Bucket: B, Key: 'dst/replaced' }));
  assert.equal(r.ContentType, 'text/csv');
  assert.deepEqual(r.Metadata, { b: '2' });

  await rejectsWith(h.client.send(new CopyObjectCommand({ Bucket: B, Key: 'src key', CopySource: `${B}/src%20key` })), 'InvalidRequest', 400);
  await h.client.send(new CopyObjectCommand({ Bucket: B, Key: 'src key', CopySource: `${B}/src%20key`, MetadataDirective: 'REPLACE', Metadata: { self: 'yes' } }));
  const self = await getBytes({ Bucket: B, Key: 'src key' });
  assert.ok(self.body.equals(body));
  assert.deepEqual(self.res.Metadata, { self: 'yes' });

  const etag = `"${md5(body)}"`;
  await rejectsWith(h.client.send(new CopyObjectCommand({ Bucket: B, Key: 'c2', CopySource: `${B}/src%20key`, CopySourceIfMatch: '"zzz"' })), 'PreconditionFailed', 412);
  await rejectsWith(h.client.send(new CopyObjectCommand({ Bucket: B, Key: 'c2', CopySource: `${B}/src%20key`, CopySourceIfNoneMatch: etag })), 'PreconditionFailed', 412);
  await rejectsWith(h.client.send(new CopyObjectCommand({ Bucket: B, Key: 'c2', CopySource: `${B}/src%20key`, CopySourceIfUnmodifiedSince: new Date(Date.now() - 3600_000) })), 'PreconditionFailed', 412);
  const okCond = await h.client.send(new CopyObjectCommand({ Bucket: B, Key: 'c2', CopySource: `${B}/src%20key`, CopySourceIfMatch: etag }));
  assert.equal(okCond.CopyObjectResult?.ETag, etag);
  await rejectsWith(h.client.send(new CopyObjectCommand({ Bucket: B, Key: 'c3', CopySource: `${B}/missing` })), 'NoSuchKey', 404);
});

test('DeleteObjects reports each key; Quiet reports only failures', async () => {
  for (const k of ['d/1', 'd/2', 'd/3']) await h.client.send(new PutObjectCommand({ Bucket: B, Key: k, Body: k }));
  const res = await h.client.send(new DeleteObjectsCommand({
    Bucket: B, Delete: { Objects: [{ Key: 'd/1' }, { Key: 'd/2' }, { Key: 'd/never' }, { Key: 'k'.repeat(1025) }] },
  }));
  assert.deepEqual(res.Deleted?.map((d) => d.Key).sort(), ['d/1', 'd/2', 'd/never']);
  assert.equal(res.Errors?.length, 1);
  assert.equal(res.Errors?.[0]?.Code, 'KeyTooLongError');
  const quiet = await h.client.send(new DeleteObjectsCommand({ Bucket: B, Delete: { Quiet: true, Objects: [{ Key: 'd/3' }] } }));
  assert.equal(quiet.Deleted, undefined);
  assert.equal(quiet.Errors, undefined);
  await rejectsWith(h.client.send(new GetObjectCommand({ Bucket: B, Key: 'd/3' })), 'NoSuchKey', 404);
});
