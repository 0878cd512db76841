/**
 * SSE-S3 through the real server process: SVC_KMS_SECRET_KEY configures the local KMS, readiness `details`
 * gains `kms` (SPEC §2), and an AES256 object is stored encrypted and read back; without the variable there is
 * no `details.kms`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createHash } from 'node:crypto';
import { GetObjectCommand, CreateBucketCommand, PutBucketEncryptionCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
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

test('the console reads and writes as S3 clients see objects: bucket default encryption applies to its uploads, SSE-S3 downloads decrypt, SSE-C is refused', async () => {
  const c = new S3Client({
    endpoint: withKms.url, region: 'us-east-1', forcePathStyle: true, maxAttempts: 1,
    credentials: { accessKeyId: withKms.accessKey, secretAccessKey: withKms.secretKey },
  });
  await c.send(new CreateBucketCommand({ Bucket: 'dflt' }));
  await c.send(new PutBucketEncryptionCommand({
    Bucket: 'dflt', ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
  }));
  const base = `${withKms.consoleUrl!}/svc/console/api`;
  const origin = new URL(withKms.consoleUrl!).origin;
  const login = await fetch(`${base}/login`, {
    method: 'POST', headers: { 'content-type': 'application/json', origin }, body: JSON.stringify({ accessKey: withKms.accessKey, secretKey: withKms.secretKey }),
  });
  assert.equal(login.status, 200);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  const { csrfToken } = await login.json() as { csrfToken: string };
  const body = randomBytes(200_000);
  const up = await fetch(`${base}/buckets/dflt/upload?key=from-console`, {
    method: 'PUT', headers: { cookie, origin, 'x-csrf-token': csrfToken, 'content-type': 'application/octet-stream' }, body,
  });
  assert.equal(up.status, 200, await up.clone().text());
  const uploaded = await up.json() as { size: number; etag: string };
  assert.equal(uploaded.size, body.length);
  assert.equal(uploaded.etag, createHash('md5').update(body).digest('hex'));
  // Stored encrypted (the bucket default), read back in clear by S3 and by the console.
  const got = await c.send(new GetObjectCommand({ Bucket: 'dflt', Key: 'from-console' }));
  assert.equal(got.ServerSideEncryption, 'AES256');
  assert.ok(Buffer.from(await got.Body!.transformToByteArray()).equals(body));
  const down = await fetch(`${base}/buckets/dflt/download?key=from-console`, { headers: { cookie } });
  assert.equal(down.status, 200);
  assert.ok(Buffer.from(await down.arrayBuffer()).equals(body));
  const listed = await (await fetch(`${base}/buckets/dflt/objects`, { headers: { cookie } })).json() as { objects: Array<{ key: string; size: number }> };
  assert.deepEqual(listed.objects.map((o) => [o.key, o.size]), [['from-console', body.length]]);
  const raw = randomBytes(32);
  await c.send(new PutObjectCommand({
    Bucket: 'dflt', Key: 'customer', Body: 'only with the key',
    SSECustomerAlgorithm: 'AES256', SSECustomerKey: raw.toString('base64'), SSECustomerKeyMD5: createHash('md5').update(raw).digest('base64'),
  }));
  const refused = await fetch(`${base}/buckets/dflt/download?key=customer`, { headers: { cookie } });
  assert.equal(refused.status, 400);
  assert.match(((await refused.json()) as { message: string }).message, /customer-provided key/);
  c.destroy();
});
