/**
 * Issue 10 "secrets never appear in logs": a real server at the most verbose log level, writing to stdout and to a
 * log file, gets signed and presigned S3 requests, wrongly signed ones, admin calls that create a user and a service
 * account (secrets in the request bodies) and requests as that user; then neither the output nor the log file
 * contains the root secret, the user's or the service account's secret, or the day's SigV4 signing key.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { adminCall } from '../admin/admin-client.js';
import { s3Client } from '../helpers/s3-client.js';
import { startSvc, type SvcProcess } from '../helpers/svc-process.js';

let svc: SvcProcess;
const userSecret = `user-${randomBytes(12).toString('hex')}`;

const dir = mkdtempSync(join(tmpdir(), 'svc-logs-'));

before(async () => {
  svc = await startSvc({ dir, env: { SVC_OBS_LOGGER_LEVEL: 'trace', SVC_OBS_LOG_DIRECTORY: join(dir, 'logs') } });
});

after(async () => {
  await svc?.stop();
  svc?.cleanup();
});

/** The SigV4 signing key of today (derived from the secret): it must not leak either. */
function signingKey(secret: string): string {
  const date = new Date().toISOString().slice(0, 10).replace(/-/g, '');
  let k = createHmac('sha256', `AWS4${secret}`).update(date).digest();
  for (const part of ['us-east-1', 's3', 'aws4_request']) k = createHmac('sha256', k).update(part).digest();
  return k.toString('hex');
}

test('no secret in the logs after signed, presigned, wrongly signed, admin and user requests', async () => {
  const root = s3Client(svc.url, svc.accessKey, svc.secretKey);
  await root.send(new CreateBucketCommand({ Bucket: 'logs' }));
  await root.send(new PutObjectCommand({ Bucket: 'logs', Key: 'k', Body: 'hello' }));
  const url = await getSignedUrl(root, new GetObjectCommand({ Bucket: 'logs', Key: 'k' }), { expiresIn: 60 });
  assert.equal((await fetch(url)).status, 200);
  assert.equal((await fetch(url.replace(/X-Amz-Signature=[0-9a-f]+/, `X-Amz-Signature=${'0'.repeat(64)}`))).status, 403);
  const wrong = s3Client(svc.url, svc.accessKey, 'not-the-secret-key-at-all');
  await assert.rejects(wrong.send(new GetObjectCommand({ Bucket: 'logs', Key: 'k' })));
  assert.equal((await adminCall(svc.url, svc.accessKey, svc.secretKey, 'PUT', 'users/logger', { body: { secretKey: userSecret, policies: ['readwrite'] } })).status, 200);
  const sa = await adminCall(svc.url, svc.accessKey, svc.secretKey, 'PUT', 'service-accounts', { body: { parent: 'logger' } });
  assert.equal(sa.status, 200);
  const saSecret = (sa.json as { secretKey: string }).secretKey;
  const user = s3Client(svc.url, 'logger', userSecret);
  await user.send(new PutObjectCommand({ Bucket: 'logs', Key: 'u', Body: 'from the user' }));
  await assert.rejects(s3Client(svc.url, 'logger', `${userSecret}x`).send(new GetObjectCommand({ Bucket: 'logs', Key: 'u' })));
  for (const c of [root, wrong, user]) c.destroy();
  await svc.stop();

  const logDir = join(dir, 'logs');
  const files = readdirSync(logDir).map((f) => readFileSync(join(logDir, f), 'utf8'));
  const everything = [svc.output(), ...files].join('\n');
  assert.ok(files.join('').length > 0, 'the log file was written');
  assert.match(everything, /"level":(10|20|30|40|50)/, 'structured log lines at verbose levels are present');
  for (const [what, secret] of [['root secret', svc.secretKey], ['user secret', userSecret], ['service account secret', saSecret],
    ['root signing key', signingKey(svc.secretKey)], ['user signing key', signingKey(userSecret)]] as const) {
    assert.ok(!everything.includes(secret), `${what} appears in the logs`);
  }
});
