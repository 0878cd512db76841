import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { startS3, type S3Harness } from './helpers/harness.js';
import { errorCode } from './helpers/raw.js';

let h: S3Harness;
const B = 'presign';
before(async () => {
  h = await startS3();
  await h.client.send(new CreateBucketCommand({ Bucket: B }));
});
after(async () => { await h.close(); });

test('presigned PUT then presigned GET', async () => {
  const putUrl = await getSignedUrl(h.client, new PutObjectCommand({ Bucket: B, Key: 'dir/pre signed' }), { expiresIn: 300 });
  const put = await fetch(putUrl, { method: 'PUT', body: 'presigned body' });
  assert.equal(put.status, 200, await put.clone().text());
  const getUrl = await getSignedUrl(h.client, new GetObjectCommand({ Bucket: B, Key: 'dir/pre signed', ResponseContentType: 'text/x-pre' }), { expiresIn: 300 });
  const get = await fetch(getUrl);
  assert.equal(get.status, 200);
  assert.equal(get.headers.get('content-type'), 'text/x-pre');
  assert.equal(await get.text(), 'presigned body');
});

test('an expired presigned URL is AccessDenied', async () => {
  await h.client.send(new PutObjectCommand({ Bucket: B, Key: 'old', Body: 'x' }));
  const url = await getSignedUrl(h.client, new GetObjectCommand({ Bucket: B, Key: 'old' }), {
    expiresIn: 60,
    signingDate: new Date(Date.now() - 3600_000),
  });
  const res = await fetch(url);
  assert.equal(res.status, 403);
  assert.equal(errorCode(await res.text()), 'AccessDenied');
  const fresh = await fetch(await getSignedUrl(h.client, new GetObjectCommand({ Bucket: B, Key: 'old' }), { expiresIn: 60 }));
  assert.equal(fresh.status, 200);
  assert.equal(await fresh.text(), 'x');
});

test('a tampered presigned URL is SignatureDoesNotMatch', async () => {
  const url = new URL(await getSignedUrl(h.client, new GetObjectCommand({ Bucket: B, Key: 'old' }), { expiresIn: 60 }));
  url.pathname = `/${B}/other`;
  const res = await fetch(url);
  assert.equal(res.status, 403);
  assert.equal(errorCode(await res.text()), 'SignatureDoesNotMatch');
});
