import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateBucketCommand, CreateMultipartUploadCommand,
  GetObjectCommand, HeadObjectCommand, ListMultipartUploadsCommand, ListPartsCommand, PutObjectCommand, UploadPartCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { computeChecksum } from '../../src/common/index.js';
import type { ObjectLayer } from '../../src/storage/index.js';
import { startS3, type S3Harness } from './helpers/harness.js';
import { rejectsWith } from './helpers/rejects.js';
import { errorCode, signedRequest } from './helpers/raw.js';

let h: S3Harness;
const B = 'multipart';
const MiB = 1024 * 1024;
before(async () => {
  h = await startS3();
  await h.client.send(new CreateBucketCommand({ Bucket: B }));
});
after(async () => { await h.close(); });

const md5 = (b: Buffer): Buffer => createHash('md5').update(b).digest();


test('create, upload parts, list, complete: ETag is md5-of-md5s-N and the composite CRC32 is returned', async () => {
  const key = 'big/object';
  const parts = [randomBytes(5 * MiB), randomBytes(5 * MiB), randomBytes(1234)];
  const create = await h.client.send(new CreateMultipartUploadCommand({
    Bucket: B, Key: key, ContentType: 'video/mp4', Metadata: { m: 'v' }, ChecksumAlgorithm: 'CRC32',
  }));
  const uploadId = create.UploadId!;
  assert.ok(uploadId);
  const uploaded = [];
  for (const [i, body] of parts.entries()) {
    const res = await h.client.send(new UploadPartCommand({ Bucket: B, Key: key, UploadId: uploadId, PartNumber: i + 1, Body: body, ChecksumAlgorithm: 'CRC32' }));
    assert.equal(res.ETag, `"${md5(body).toString('hex')}"`);
    assert.equal(res.ChecksumCRC32, computeChecksum('CRC32', body));
    uploaded.push({ PartNumber: i + 1, ETag: res.ETag!, ChecksumCRC32: res.ChecksumCRC32! });
  }
  const listed = await h.client.send(new ListPartsCommand({ Bucket: B, Key: key, UploadId: uploadId }));
  assert.deepEqual(listed.Parts?.map((p) => [p.PartNumber, p.Size, p.ETag, p.ChecksumCRC32]), uploaded.map((p, i) => [p.PartNumber, parts[i]!.length, p.ETag, p.ChecksumCRC32]));
  assert.equal(listed.ChecksumAlgorithm, 'CRC32');
  const paged = await h.client.send(new ListPartsCommand({ Bucket: B, Key: key, UploadId: uploadId, MaxParts: 2 }));
  assert.equal(paged.IsTruncated, true);
  assert.equal(paged.NextPartNumberMarker, '2');
  const rest = await h.client.send(new ListPartsCommand({ Bucket: B, Key: key, UploadId: uploadId, PartNumberMarker: '2' }));
  assert.deepEqual(rest.Parts?.map((p) => p.PartNumber), [3]);

  const uploads = await h.client.send(new ListMultipartUploadsCommand({ Bucket: B }));
  assert.ok(uploads.Uploads?.some((u) => u.UploadId === uploadId && u.Key === key));

  const done = await h.client.send(new CompleteMultipartUploadCommand({ Bucket: B, Key: key, UploadId: uploadId, MultipartUpload: { Parts: uploaded } }));
  const expectedEtag = createHash('md5').update(Buffer.concat(parts.map(md5))).digest('hex');
  assert.equal(done.ETag, `"${expectedEtag}-3"`);
  // COMPOSITE: CRC32 over the concatenated raw part CRC32s, suffixed with the part count.
  const rawParts = Buffer.concat(uploaded.map((p) => Buffer.from(p.ChecksumCRC32, 'base64')));
  assert.equal(done.ChecksumCRC32, `${computeChecksum('CRC32', rawParts)}-3`);

  const get = await h.client.send(new GetObjectCommand({ Bucket: B, Key: key, ChecksumMode: 'ENABLED' }));
  const body = Buffer.from(await get.Body!.transformToByteArray());
  assert.ok(body.equals(Buffer.concat(parts)));
  assert.equal(get.ContentType, 'video/mp4');
  assert.deepEqual(get.Metadata, { m: 'v' });
  assert.equal(get.ETag, `"${expectedEtag}-3"`);
  const after = await h.client.send(new ListMultipartUploadsCommand({ Bucket: B }));
  assert.ok(!(after.Uploads ?? []).some((u) => u.UploadId === uploadId));
});

test('UploadPart with a streamed body (CRC32 trailer) stores the verified part checksum', async () => {
  const key = 'streamed/part';
  const { UploadId: uploadId } = await h.client.send(new CreateMultipartUploadCommand({ Bucket: B, Key: key, ChecksumAlgorithm: 'CRC32' }));
  const body = randomBytes(300_000);
  const res = await h.client.send(new UploadPartCommand({
    Bucket: B, Key: key, UploadId: uploadId, PartNumber: 1, Body: Readable.from([body]), ContentLength: body.length,
  }));
  assert.equal(res.ChecksumCRC32, computeChecksum('CRC32', body));
  const parts = await h.client.send(new ListPartsCommand({ Bucket: B, Key: key, UploadId: uploadId }));
  assert.equal(parts.Parts?.[0]?.ChecksumCRC32, res.ChecksumCRC32);
  // A part checksum of another algorithm than the upload declared is refused.
  await rejectsWith(h.client.send(new UploadPartCommand({
    Bucket: B, Key: key, UploadId: uploadId, PartNumber: 2, Body: body, ChecksumAlgorithm: 'SHA256',
  })), 'InvalidRequest', 400);
  // A client-listed part checksum that differs from the stored one is InvalidPart.
  await rejectsWith(h.client.send(new CompleteMultipartUploadCommand({
    Bucket: B, Key: key, UploadId: uploadId,
    MultipartUpload: { Parts: [{ PartNumber: 1, ETag: res.ETag!, ChecksumCRC32: computeChecksum('CRC32', Buffer.from('other')) }] },
  })), 'InvalidPart', 400);
  await h.client.send(new AbortMultipartUploadCommand({ Bucket: B, Key: key, UploadId: uploadId }));
});

test('completion errors: InvalidPart, InvalidPartOrder, EntityTooSmall, NoSuchUpload, MalformedXML', async () => {
  const key = 'bad/complete';
  const { UploadId: uploadId } = await h.client.send(new CreateMultipartUploadCommand({ Bucket: B, Key: key }));
  const small1 = await h.client.send(new UploadPartCommand({ Bucket: B, Key: key, UploadId: uploadId, PartNumber: 1, Body: randomBytes(1000) }));
  const small2 = await h.client.send(new UploadPartCommand({ Bucket: B, Key: key, UploadId: uploadId, PartNumber: 2, Body: randomBytes(1000) }));
  const complete = (parts: Array<{ PartNumber: number; ETag: string }>) =>
    h.client.send(new CompleteMultipartUploadCommand({ Bucket: B, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
  await rejectsWith(complete([{ PartNumber: 1, ETag: '"0123456789abcdef0123456789abcdef"' }]), 'InvalidPart', 400);
  await rejectsWith(complete([{ PartNumber: 3, ETag: small1.ETag! }]), 'InvalidPart', 400);
  await rejectsWith(complete([{ PartNumber: 2, ETag: small2.ETag! }, { PartNumber: 1, ETag: small1.ETag! }]), 'InvalidPartOrder', 400);
  await rejectsWith(complete([{ PartNumber: 1, ETag: small1.ETag! }, { PartNumber: 2, ETag: small2.ETag! }]), 'EntityTooSmall', 400);
  const malformed = await signedRequest(h.port, { method: 'POST', path: `/${B}/bad/complete`, query: { uploadId: uploadId! }, body: '<CompleteMultipartUpload><Part>' });
  assert.equal(malformed.status, 400);
  assert.equal(errorCode(malformed.body), 'MalformedXML');
  // A single small part is fine: the last part may be of any size.
  const ok = await complete([{ PartNumber: 2, ETag: small2.ETag! }]);
  assert.match(ok.ETag!, /-1"$/);
  await rejectsWith(complete([{ PartNumber: 1, ETag: small1.ETag! }]), 'NoSuchUpload', 404);
  await rejectsWith(h.client.send(new UploadPartCommand({ Bucket: B, Key: key, UploadId: 'not-an-upload', PartNumber: 1, Body: 'x' })), 'NoSuchUpload', 404);
});

test('part numbers outside 1..10000 are InvalidArgument; abort removes the upload', async () => {
  const key = 'aborted';
  const { UploadId: uploadId } = await h.client.send(new CreateMultipartUploadCommand({ Bucket: B, Key: key }));
  for (const n of ['0', '10001']) {
    const res = await signedRequest(h.port, { method: 'PUT', path: `/${B}/${key}`, query: { partNumber: n, uploadId: uploadId! }, body: 'x' });
    assert.equal(res.status, 400, n);
    assert.equal(errorCode(res.body), 'InvalidArgument', n);
  }
  await h.client.send(new UploadPartCommand({ Bucket: B, Key: key, UploadId: uploadId, PartNumber: 10000, Body: 'last' }));
  const abort = await h.client.send(new AbortMultipartUploadCommand({ Bucket: B, Key: key, UploadId: uploadId }));
  assert.equal(abort.$metadata.httpStatusCode, 204);
  await rejectsWith(h.client.send(new ListPartsCommand({ Bucket: B, Key: key, UploadId: uploadId })), 'NoSuchUpload', 404);
  await rejectsWith(h.client.send(new HeadObjectCommand({ Bucket: B, Key: key })), 'NotFound', 404);
});

test('lib-storage Upload streams a 40 MiB body as a multipart upload', async () => {
  const size = 40 * MiB;
  const hash = createHash('sha256');
  let sent = 0;
  const source = new Readable({
    read() {
      if (sent >= size) { this.push(null); return; }
      const chunk = randomBytes(Math.min(MiB, size - sent));
      sent += chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
  const upload = new Upload({ client: h.client, params: { Bucket: B, Key: 'lib/storage.bin', Body: source }, partSize: 8 * MiB, queueSize: 2 });
  const res = await upload.done();
  assert.match(res.ETag ?? '', /-5"$/);
  const expected = hash.digest('hex');
  const get = await h.client.send(new GetObjectCommand({ Bucket: B, Key: 'lib/storage.bin' }));
  assert.equal(get.ContentLength, size);
  const got = createHash('sha256');
  for await (const chunk of get.Body as Readable) got.update(chunk as Buffer);
  assert.equal(got.digest('hex'), expected);
});

test('UploadPart and UploadPartCopy look the upload up without listing its parts (each part would cost every earlier one again)', async (t) => {
  const calls: string[] = [];
  const counted = await startS3({
    wrapLayer: (layer: ObjectLayer): ObjectLayer => new Proxy(layer, {
      get(target, prop) {
        const v: unknown = Reflect.get(target, prop, target);
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => { calls.push(String(prop)); return (v as (...a: unknown[]) => unknown).apply(target, args); };
      },
    }),
  });
  t.after(() => counted.close());
  const c = counted.client;
  await c.send(new CreateBucketCommand({ Bucket: B }));
  await c.send(new PutObjectCommand({ Bucket: B, Key: 'src', Body: randomBytes(5 * MiB) }));
  const { UploadId } = await c.send(new CreateMultipartUploadCommand({ Bucket: B, Key: 'counted', ChecksumAlgorithm: 'CRC32' }));
  const uploaded = [];
  for (let n = 1; n <= 3; n++) {
    const res = await c.send(new UploadPartCommand({ Bucket: B, Key: 'counted', UploadId, PartNumber: n, Body: randomBytes(5 * MiB), ChecksumAlgorithm: 'CRC32' }));
    uploaded.push({ PartNumber: n, ETag: res.ETag!, ChecksumCRC32: res.ChecksumCRC32! });
  }
  const copied = await c.send(new UploadPartCopyCommand({ Bucket: B, Key: 'counted', UploadId, PartNumber: 4, CopySource: `${B}/src` }));
  uploaded.push({ PartNumber: 4, ETag: copied.CopyPartResult!.ETag!, ChecksumCRC32: copied.CopyPartResult!.ChecksumCRC32! });
  assert.equal(calls.filter((m) => m === 'listParts').length, 0);
  assert.equal(calls.filter((m) => m === 'getMultipartInfo').length, 4, 'three parts and one copy');
  await c.send(new CompleteMultipartUploadCommand({ Bucket: B, Key: 'counted', UploadId, MultipartUpload: { Parts: uploaded } }));
  // The completion reads the upload, then (its algorithm declared) the parts' checksums once, for the composite.
  assert.equal(calls.filter((m) => m === 'getMultipartInfo').length, 5);
  assert.equal(calls.filter((m) => m === 'listParts').length, 1);
  assert.equal((await c.send(new HeadObjectCommand({ Bucket: B, Key: 'counted' }))).ContentLength, 20 * MiB);
  // An upload that is not there is still NoSuchUpload, before any byte is read.
  await rejectsWith(c.send(new UploadPartCommand({ Bucket: B, Key: 'counted', UploadId, PartNumber: 5, Body: Buffer.from('x') })), 'NoSuchUpload', 404);
});
