/**
 * SSE-S3 through the real server process: SVC_KMS_SECRET_KEY configures the local KMS, readiness `details`
 * gains `kms` (SPEC §2), and an AES256 object is stored encrypted and read back; without the variable there is
 * no `details.kms`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { GetObjectCommand, CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startSvc, type SvcProcess } from '../helpers/svc-process.js';

let withKms: SvcProcess;
let without: SvcProcess;

before(async () => {
  [withKms, without] = await Promise.all([
    startSvc({ drives: 4, env: { SVC_KMS_SECRET_KEY: `svc-test:${randomBytes(32).toString('base64')}` } }),
    startSvc({ drives: 4 }),
  ]);
});

after(async () => {
  for (const svc of [withKms, without]) {
    await svc?.stop();
    svc?.cleanup();
  }
});

test('readiness details has kms only when SVC_KMS_SECRET_KEY is set', async () => {
  const ready = await (await fetch(`${withKms.url}/health/ready`)).json() as { details: Record<string, { ready: boolean; keyId?: string }> };
  assert.deepEqual(Object.keys(ready.details).sort(), ['iam', 'kms', 'lock', 'storage']);
  assert.equal(ready.details.kms?.ready, true);
  assert.equal(ready.details.kms?.keyId, 'svc-test');
  const plain = await (await fetch(`${without.url}/health/ready`)).json() as { details: Record<string, unknown> };
  assert.deepEqual(Object.keys(plain.details).sort(), ['iam', 'lock', 'storage']);
});

test('SSE-S3 works with the configured KMS and is refused without one', async () => {
  const client = (svc: SvcProcess): S3Client => new S3Client({
    endpoint: svc.url, region: 'us-east-1', forcePathStyle: true, maxAttempts: 1,
    credentials: { accessKeyId: svc.accessKey, secretAccessKey: svc.secretKey },
  });
  const c = client(withKms);
  await c.send(new CreateBucketCommand({ Bucket: 'enc' }));
  const put = await c.send(new PutObjectCommand({ Bucket: 'enc', Key: 'k', Body: 'sealed by the kms', ServerSideEncryption: 'AES256' }));
  assert.equal(put.ServerSideEncryption, 'AES256');
  const got = await c.send(new GetObjectCommand({ Bucket: 'enc', Key: 'k' }));
  assert.equal(await got.Body!.transformToString(), 'sealed by the kms');
  c.destroy();
  const n = client(without);
  await n.send(new CreateBucketCommand({ Bucket: 'enc' }));
  await assert.rejects(n.send(new PutObjectCommand({ Bucket: 'enc', Key: 'k', Body: 'x', ServerSideEncryption: 'AES256' })), (e: Error) => e.name === 'NotImplemented');
  n.destroy();
});
