import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CompleteMultipartUploadCommand, CopyObjectCommand, ListPartsCommand, CreateBucketCommand, CreateMultipartUploadCommand, DeleteBucketEncryptionCommand,
  GetBucketEncryptionCommand, GetObjectAttributesCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutBucketEncryptionCommand,
  PutObjectCommand, UploadPartCommand, UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { parseKmsSecretKey } from '../../src/crypto/index.js';
import { computeChecksum } from '../../src/common/index.js';
import { startS3, type S3Harness } from './helpers/harness.js';
import { rejectsWith } from './helpers/rejects.js';
import { errorCode, signRequest, signedRequest } from './helpers/raw.js';
import { postForm, signedFields } from './helpers/post-form.js';

let h: S3Harness;
let plain: S3Harness;
const B = 'sse';
const MiB = 1024 * 1024;
before(async () => {
  h = await startS3({ kms: parseKmsSecretKey(`test-key:${randomBytes(32).toString('base64')}`) });
  plain = await startS3();
  await h.client.send(new CreateBucketCommand({ Bucket: B }));
  await plain.client.send(new CreateBucketCommand({ Bucket: B }));
});
after(async () => {
  await h.close();
  await plain.close();
});

const md5b64 = (b: Buffer): string => createHash('md5').update(b).digest('base64');
function customerKey(): { SSECustomerAlgorithm: string; SSECustomerKey: string; SSECustomerKeyMD5: string; raw: Buffer } {
  const raw = randomBytes(32);
  return { SSECustomerAlgorithm: 'AES256', SSECustomerKey: raw.toString('base64'), SSECustomerKeyMD5: md5b64(raw), raw };
}
const ssec = (k: ReturnType<typeof customerKey>) => ({ SSECustomerAlgorithm: k.SSECustomerAlgorithm, SSECustomerKey: k.SSECustomerKey, SSECustomerKeyMD5: k.SSECustomerKeyMD5 });
const copySsec = (k: ReturnType<typeof customerKey>) => ({
  CopySourceSSECustomerAlgorithm: k.SSECustomerAlgorithm, CopySourceSSECustomerKey: k.SSECustomerKey, CopySourceSSECustomerKeyMD5: k.SSECustomerKeyMD5,
});

const MARKER_LENGTH = 30;
/** A plaintext that is easy to look for on disk: a unique 30-byte marker, then random bytes. */
function secretData(size: number): Buffer {
  return Buffer.concat([Buffer.from(`SECRET-${randomBytes(8).toString('hex')}-MARKER`), randomBytes(size - MARKER_LENGTH)]);
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...await filesUnder(p));
    else out.push(p);
  }
  return out;
}

/**
 * True when any file on the harness's drives (shards, inline data in xl.meta or in a key index's value log) holds
 * `needle`. A key index's worker replaces its files as it merges and collects them (what one held is in another by
 * then): a walk that finds a file gone starts again, so that no file is left unread.
 */
async function onDisk(harness: S3Harness, needle: Buffer): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    try {
      for (const d of harness.drives) {
        for (const f of await filesUnder(d)) if ((await readFile(f)).includes(needle)) return true;
      }
      return false;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === 5) throw err;
    }
  }
}

async function body(res: { Body?: { transformToByteArray(): Promise<Uint8Array> } }): Promise<Buffer> {
  return Buffer.from(await res.Body!.transformToByteArray());
}

test('SSE-C: PUT, GET (whole and ranges), HEAD need the key; the data on disk is not the plaintext', async () => {
  const k = customerKey();
  for (const [key, data] of [['small', secretData(1000)], ['large', secretData(3 * MiB + 12345)]] as const) {
    const put = await h.client.send(new PutObjectCommand({ Bucket: B, Key: key, Body: data, ...ssec(k) }));
    assert.equal(put.SSECustomerAlgorithm, 'AES256');
    assert.equal(put.SSECustomerKeyMD5, k.SSECustomerKeyMD5);
    const got = await h.client.send(new GetObjectCommand({ Bucket: B, Key: key, ...ssec(k) }));
    assert.ok((await body(got)).equals(data));
    assert.equal(got.ContentLength, data.length);
    assert.equal(got.SSECustomerKeyMD5, k.SSECustomerKeyMD5);
    // A range inside one package, and (large object) one across a package boundary.
    const [first, last] = data.length > 70_000 ? [65530, 65545] : [100, 200];
    const range = await h.client.send(new GetObjectCommand({ Bucket: B, Key: key, Range: `bytes=${first}-${last}`, ...ssec(k) }));
    assert.ok((await body(range)).equals(data.subarray(first, last + 1)));
    assert.equal(range.ContentRange, `bytes ${first}-${last}/${data.length}`);
    const head = await h.client.send(new HeadObjectCommand({ Bucket: B, Key: key, ...ssec(k) }));
    assert.equal(head.ContentLength, data.length);
    assert.equal(await onDisk(h, data.subarray(0, MARKER_LENGTH)), false, `${key}: plaintext marker found on disk`);
    assert.equal(await onDisk(h, data.subarray(500, 564)), false, `${key}: plaintext found on disk`);
  }
  // The control: the same check finds an unencrypted object's bytes (inline and in shard files).
  const clearSmall = secretData(1000);
  const clearLarge = secretData(3 * MiB);
  await h.client.send(new PutObjectCommand({ Bucket: B, Key: 'control-small', Body: clearSmall }));
  await h.client.send(new PutObjectCommand({ Bucket: B, Key: 'control-large', Body: clearLarge }));
  assert.equal(await onDisk(h, clearSmall.subarray(0, MARKER_LENGTH)), true, 'control: inline plaintext');
  assert.equal(await onDisk(h, clearLarge.subarray(0, MARKER_LENGTH)), true, 'control: shard plaintext');
  await rejectsWith(h.client.send(new GetObjectCommand({ Bucket: B, Key: 'small' })), 'InvalidRequest', 400, /correct parameters must be provided/);
  await rejectsWith(h.client.send(new HeadObjectCommand({ Bucket: B, Key: 'small' })), undefined, 400);
  const other = customerKey();
  await rejectsWith(h.client.send(new GetObjectCommand({ Bucket: B, Key: 'small', ...ssec(other) })), 'AccessDenied', 403);
  await rejectsWith(h.client.send(new HeadObjectCommand({ Bucket: B, Key: 'small', ...ssec(other) })), undefined, 403);
  const listed = await h.client.send(new ListObjectsV2Command({ Bucket: B }));
  assert.equal(listed.Contents?.find((o) => o.Key === 'large')?.Size, 3 * MiB + 12345);
  const attrs = await h.client.send(new GetObjectAttributesCommand({ Bucket: B, Key: 'large', ObjectAttributes: ['ObjectSize'], ...ssec(k) }));
  assert.equal(attrs.ObjectSize, 3 * MiB + 12345);
});

test('SSE-C header errors: bad algorithm, bad key, MD5 mismatch, missing MD5, key on an unencrypted object', async () => {
  const k = customerKey();
  const put = (headers: Record<string, string>) => signedRequest(h.port, { method: 'PUT', path: `/${B}/bad`, headers, body: 'x' });
  const base = { 'x-amz-server-side-encryption-customer-algorithm': 'AES256', 'x-amz-server-side-encryption-customer-key': k.SSECustomerKey, 'x-amz-server-side-encryption-customer-key-md5': k.SSECustomerKeyMD5 };
  const badAlg = await put({ ...base, 'x-amz-server-side-encryption-customer-algorithm': 'AES128' });
  assert.equal(badAlg.status, 400);
  assert.equal(errorCode(badAlg.body), 'InvalidEncryptionAlgorithmError');
  const shortKey = randomBytes(16);
  const badKey = await put({ ...base, 'x-amz-server-side-encryption-customer-key': shortKey.toString('base64'), 'x-amz-server-side-encryption-customer-key-md5': md5b64(shortKey) });
  assert.equal(errorCode(badKey.body), 'InvalidArgument');
  const mismatch = await put({ ...base, 'x-amz-server-side-encryption-customer-key-md5': md5b64(randomBytes(32)) });
  assert.equal(errorCode(mismatch.body), 'InvalidArgument');
  assert.match(mismatch.body, /did not match the hash that was provided/);
  const { 'x-amz-server-side-encryption-customer-key-md5': _md5, ...noMd5 } = base;
  assert.equal(errorCode((await put(noMd5)).body), 'InvalidArgument');
  const both = await put({ ...base, 'x-amz-server-side-encryption': 'AES256' });
  assert.equal(errorCode(both.body), 'InvalidArgument');
  await h.client.send(new PutObjectCommand({ Bucket: B, Key: 'clear', Body: 'not encrypted' }));
  await rejectsWith(h.client.send(new GetObjectCommand({ Bucket: B, Key: 'clear', ...ssec(k) })), 'InvalidRequest', 400, /not applicable/);
  await rejectsWith(h.client.send(new HeadObjectCommand({ Bucket: B, Key: 'bad' })), 'NotFound', 404);
});

test('SSE-C needs TLS unless the peer is loopback (or the operator opted in)', async () => {
  const k = customerKey();
  const signed = await signRequest(h.port, {
    method: 'PUT', path: `/${B}/remote`, body: 'x',
    headers: { 'x-amz-server-side-encryption-customer-algorithm': 'AES256', 'x-amz-server-side-encryption-customer-key': k.SSECustomerKey, 'x-amz-server-side-encryption-customer-key-md5': k.SSECustomerKeyMD5 },
  });
  const remote = await h.app.inject({ method: 'PUT', url: signed.target, headers: signed.headers, payload: signed.body, remoteAddress: '192.0.2.10' });
  assert.equal(remote.statusCode, 400);
  assert.equal(errorCode(remote.body), 'InvalidRequest');
  assert.match(remote.body, /must be made over a secure connection/);
  const local = await h.app.inject({ method: 'PUT', url: signed.target, headers: signed.headers, payload: signed.body, remoteAddress: '127.0.0.1' });
  assert.equal(local.statusCode, 200);
});

test('SSE-C multipart: every part and the completion need the key; ranges cross parts', async () => {
  const k = customerKey();
  const key = 'mp/ssec';
  const parts = [secretData(5 * MiB), secretData(70_000)];
  const { UploadId } = await h.client.send(new CreateMultipartUploadCommand({ Bucket: B, Key: key, ...ssec(k), ChecksumAlgorithm: 'CRC32' }));
  await rejectsWith(h.client.send(new UploadPartCommand({ Bucket: B, Key: key, UploadId, PartNumber: 1, Body: parts[0] })), 'InvalidRequest', 400);
  await rejectsWith(h.client.send(new UploadPartCommand({ Bucket: B, Key: key, UploadId, PartNumber: 1, Body: parts[0], ...ssec(customerKey()) })), 'AccessDenied', 403);
  const uploaded = [];
  for (const [i, data] of parts.entries()) {
    const res = await h.client.send(new UploadPartCommand({ Bucket: B, Key: key, UploadId, PartNumber: i + 1, Body: data, ChecksumAlgorithm: 'CRC32', ...ssec(k) }));
    assert.equal(res.SSECustomerKeyMD5, k.SSECustomerKeyMD5);
    uploaded.push({ PartNumber: i + 1, ETag: res.ETag!, ChecksumCRC32: res.ChecksumCRC32! });
  }
  const listed = await h.client.send(new ListPartsCommand({ Bucket: B, Key: key, UploadId }));
  assert.deepEqual(listed.Parts?.map((p) => p.Size), [5 * MiB, 70_000]);
  await rejectsWith(h.client.send(new CompleteMultipartUploadCommand({ Bucket: B, Key: key, UploadId, MultipartUpload: { Parts: uploaded } })), 'InvalidRequest', 400);
  await h.client.send(new CompleteMultipartUploadCommand({ Bucket: B, Key: key, UploadId, MultipartUpload: { Parts: uploaded }, ...ssec(k) }));
  const whole = Buffer.concat(parts);
  assert.ok((await body(await h.client.send(new GetObjectCommand({ Bucket: B, Key: key, ...ssec(k) })))).equals(whole));
  const cross = await h.client.send(new GetObjectCommand({ Bucket: B, Key: key, Range: `bytes=${5 * MiB - 100}-${5 * MiB + 100}`, ...ssec(k) }));
  assert.ok((await body(cross)).equals(whole.subarray(5 * MiB - 100, 5 * MiB + 101)));
  const attrs = await h.client.send(new GetObjectAttributesCommand({ Bucket: B, Key: key, ObjectAttributes: ['ObjectParts', 'ObjectSize'], ...ssec(k) }));
  assert.equal(attrs.ObjectSize, whole.length);
  assert.deepEqual(attrs.ObjectParts?.Parts?.map((p) => p.Size), [5 * MiB, 70_000]);
  assert.equal(await onDisk(h, parts[1]!.subarray(0, MARKER_LENGTH)), false);
});

test('SSE-S3 multipart with a FULL_OBJECT CRC32C: the checksum is of the whole plaintext', async () => {
  const key = 'mp/full';
  const parts = [secretData(5 * MiB), secretData(1234)];
  const { UploadId, ServerSideEncryption } = await h.client.send(new CreateMultipartUploadCommand({
    Bucket: B, Key: key, ServerSideEncryption: 'AES256', ChecksumAlgorithm: 'CRC32C', ChecksumType: 'FULL_OBJECT',
  }));
  assert.equal(ServerSideEncryption, 'AES256');
  const uploaded = [];
  for (const [i, data] of parts.entries()) {
    const res = await h.client.send(new UploadPartCommand({ Bucket: B, Key: key, UploadId, PartNumber: i + 1, Body: data, ChecksumAlgorithm: 'CRC32C' }));
    uploaded.push({ PartNumber: i + 1, ETag: res.ETag!, ChecksumCRC32C: res.ChecksumCRC32C! });
  }
  const whole = Buffer.concat(parts);
  const done = await h.client.send(new CompleteMultipartUploadCommand({ Bucket: B, Key: key, UploadId, MultipartUpload: { Parts: uploaded }, MpuObjectSize: whole.length }));
  assert.equal(done.ChecksumCRC32C, computeChecksum('CRC32C', whole));
  assert.equal(done.ServerSideEncryption, 'AES256');
  const got = await h.client.send(new GetObjectCommand({ Bucket: B, Key: key, ChecksumMode: 'ENABLED' }));
  assert.equal(got.ChecksumCRC32C, computeChecksum('CRC32C', whole));
  assert.ok((await body(got)).equals(whole));
  assert.equal(await onDisk(h, parts[0]!.subarray(0, MARKER_LENGTH)), false);
});

test('copies: SSE-C source needs the copy-source key; the copy can be SSE-S3, SSE-C with another key or plain', async () => {
  const k = customerKey();
  const data = secretData(200_000);
  await h.client.send(new PutObjectCommand({ Bucket: B, Key: 'copy/src', Body: data, ...ssec(k) }));
  await rejectsWith(h.client.send(new CopyObjectCommand({ Bucket: B, Key: 'copy/dst', CopySource: `${B}/copy/src` })), 'InvalidRequest', 400);
  const s3 = await h.client.send(new CopyObjectCommand({ Bucket: B, Key: 'copy/s3', CopySource: `${B}/copy/src`, ...copySsec(k), ServerSideEncryption: 'AES256' }));
  assert.equal(s3.ServerSideEncryption, 'AES256');
  assert.equal(s3.CopyObjectResult?.ETag, `"${createHash('md5').update(data).digest('hex')}"`);
  assert.ok((await body(await h.client.send(new GetObjectCommand({ Bucket: B, Key: 'copy/s3' })))).equals(data));
  const k2 = customerKey();
  await h.client.send(new CopyObjectCommand({ Bucket: B, Key: 'copy/c2', CopySource: `${B}/copy/src`, ...copySsec(k), ...ssec(k2) }));
  assert.ok((await body(await h.client.send(new GetObjectCommand({ Bucket: B, Key: 'copy/c2', ...ssec(k2) })))).equals(data));
  await h.client.send(new CopyObjectCommand({ Bucket: B, Key: 'copy/plain', CopySource: `${B}/copy/src`, ...copySsec(k) }));
  const clear = await h.client.send(new GetObjectCommand({ Bucket: B, Key: 'copy/plain' }));
  assert.equal(clear.ServerSideEncryption, undefined);
  assert.ok((await body(clear)).equals(data));
  // Re-encrypting an object in place is a copy onto itself that changes its encryption.
  await h.client.send(new CopyObjectCommand({ Bucket: B, Key: 'copy/plain', CopySource: `${B}/copy/plain`, ServerSideEncryption: 'AES256' }));
  assert.equal((await h.client.send(new HeadObjectCommand({ Bucket: B, Key: 'copy/plain' }))).ServerSideEncryption, 'AES256');

  const { UploadId } = await h.client.send(new CreateMultipartUploadCommand({ Bucket: B, Key: 'copy/parts', ServerSideEncryption: 'AES256' }));
  const part = await h.client.send(new UploadPartCopyCommand({ Bucket: B, Key: 'copy/parts', UploadId, PartNumber: 1, CopySource: `${B}/copy/src`, CopySourceRange: 'bytes=100-70099', ...copySsec(k) }));
  await h.client.send(new CompleteMultipartUploadCommand({ Bucket: B, Key: 'copy/parts', UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.CopyPartResult!.ETag! }] } }));
  assert.ok((await body(await h.client.send(new GetObjectCommand({ Bucket: B, Key: 'copy/parts' })))).equals(data.subarray(100, 70100)));
});

test('SSE-S3: AES256 objects read back transparently, ETag is the plaintext MD5, Content-MD5 is checked', async () => {
  const data = secretData(150_000);
  const put = await h.client.send(new PutObjectCommand({ Bucket: B, Key: 's3/obj', Body: data, ServerSideEncryption: 'AES256' }));
  assert.equal(put.ServerSideEncryption, 'AES256');
  assert.equal(put.ETag, `"${createHash('md5').update(data).digest('hex')}"`);
  const got = await h.client.send(new GetObjectCommand({ Bucket: B, Key: 's3/obj' }));
  assert.equal(got.ServerSideEncryption, 'AES256');
  assert.equal(got.ETag, put.ETag);
  assert.ok((await body(got)).equals(data));
  assert.equal(await onDisk(h, data.subarray(0, MARKER_LENGTH)), false);
  const bad = await signedRequest(h.port, {
    method: 'PUT', path: `/${B}/s3/bad-md5`, body: 'hello', headers: { 'x-amz-server-side-encryption': 'AES256', 'content-md5': md5b64(Buffer.from('other')) },
  });
  assert.equal(bad.status, 400);
  assert.equal(errorCode(bad.body), 'BadDigest');
  await rejectsWith(h.client.send(new HeadObjectCommand({ Bucket: B, Key: 's3/bad-md5' })), 'NotFound', 404);
  // A body that fails its checksum while being encrypted is refused the same way, and nothing is stored.
  const badCrc = await signedRequest(h.port, {
    method: 'PUT', path: `/${B}/s3/bad-crc`, body: 'payload', headers: { 'x-amz-server-side-encryption': 'AES256', 'x-amz-checksum-crc32': 'AAAAAA==' },
  });
  assert.equal(badCrc.status, 400);
  assert.equal(errorCode(badCrc.body), 'BadDigest');
  await rejectsWith(h.client.send(new HeadObjectCommand({ Bucket: B, Key: 's3/bad-crc' })), 'NotFound', 404);
  await rejectsWith(h.client.send(new PutObjectCommand({ Bucket: B, Key: 's3/kms', Body: 'x', ServerSideEncryption: 'aws:kms' })), 'NotImplemented', 501);
});

test('POST forms: an x-amz-server-side-encryption field stores the upload SSE-S3', async () => {
  const data = secretData(4000);
  const res = await postForm(h.endpoint, B, {
    key: 'posted', 'x-amz-server-side-encryption': 'AES256',
    ...signedFields([{ bucket: B }, { key: 'posted' }, { 'x-amz-server-side-encryption': 'AES256' }]),
  }, data);
  assert.equal(res.status, 204);
  assert.equal(res.headers.get('x-amz-server-side-encryption'), 'AES256');
  assert.equal(res.headers.get('etag'), `"${createHash('md5').update(data).digest('hex')}"`);
  const head = await h.client.send(new HeadObjectCommand({ Bucket: B, Key: 'posted' }));
  assert.equal(head.ServerSideEncryption, 'AES256');
  assert.equal(head.ContentLength, 4000);
  assert.equal(await onDisk(h, data.subarray(0, MARKER_LENGTH)), false);
  assert.ok((await body(await h.client.send(new GetObjectCommand({ Bucket: B, Key: 'posted' })))).equals(data));
});

test('bucket default encryption: Put/Get/Delete, writes without headers become SSE-S3', async () => {
  await h.client.send(new CreateBucketCommand({ Bucket: 'sse-default' }));
  await rejectsWith(h.client.send(new GetBucketEncryptionCommand({ Bucket: 'sse-default' })), 'ServerSideEncryptionConfigurationNotFoundError', 404);
  await h.client.send(new PutBucketEncryptionCommand({
    Bucket: 'sse-default', ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
  }));
  const cfg = await h.client.send(new GetBucketEncryptionCommand({ Bucket: 'sse-default' }));
  assert.equal(cfg.ServerSideEncryptionConfiguration?.Rules?.[0]?.ApplyServerSideEncryptionByDefault?.SSEAlgorithm, 'AES256');
  const data = secretData(5000);
  const put = await h.client.send(new PutObjectCommand({ Bucket: 'sse-default', Key: 'k', Body: data }));
  assert.equal(put.ServerSideEncryption, 'AES256');
  assert.equal(await onDisk(h, data.subarray(0, MARKER_LENGTH)), false);
  assert.ok((await body(await h.client.send(new GetObjectCommand({ Bucket: 'sse-default', Key: 'k' })))).equals(data));
  await rejectsWith(h.client.send(new PutBucketEncryptionCommand({
    Bucket: 'sse-default', ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms' } }] },
  })), 'NotImplemented', 501);
  await h.client.send(new DeleteBucketEncryptionCommand({ Bucket: 'sse-default' }));
  await rejectsWith(h.client.send(new GetBucketEncryptionCommand({ Bucket: 'sse-default' })), 'ServerSideEncryptionConfigurationNotFoundError', 404);
  const after = await h.client.send(new PutObjectCommand({ Bucket: 'sse-default', Key: 'k2', Body: 'clear text' }));
  assert.equal(after.ServerSideEncryption, undefined);
});

test('without a KMS, SSE-S3 and default encryption fail with a clear 501; SSE-C still works', async () => {
  const res = await rejectsWith(plain.client.send(new PutObjectCommand({ Bucket: B, Key: 'x', Body: 'x', ServerSideEncryption: 'AES256' })), 'NotImplemented', 501);
  assert.match(res.message, /needs a KMS/);
  await rejectsWith(plain.client.send(new PutBucketEncryptionCommand({
    Bucket: B, ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
  })), 'NotImplemented', 501);
  const k = customerKey();
  await plain.client.send(new PutObjectCommand({ Bucket: B, Key: 'c', Body: 'customer', ...ssec(k) }));
  assert.equal(await (await plain.client.send(new GetObjectCommand({ Bucket: B, Key: 'c', ...ssec(k) }))).Body!.transformToString(), 'customer');
});
