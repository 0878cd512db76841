import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateBucketCommand, DeleteBucketCorsCommand, GetBucketCorsCommand, GetBucketTaggingCommand, PutBucketCorsCommand,
  PutBucketTaggingCommand, PutObjectCommand, type CORSRule,
} from '@aws-sdk/client-s3';
import { startS3, type S3Harness } from './helpers/harness.js';
import { rejectsWith } from './helpers/rejects.js';
import { errorCode, signedRequest } from './helpers/raw.js';

let h: S3Harness;
before(async () => {
  h = await startS3();
  for (const b of ['cors', 'bare']) await h.client.send(new CreateBucketCommand({ Bucket: b }));
  await h.client.send(new PutObjectCommand({ Bucket: 'cors', Key: 'dir/obj.txt', Body: 'hello' }));
});
after(async () => { await h.close(); });


const RULES: CORSRule[] = [
  {
    ID: 'app', AllowedOrigins: ['https://*.example.com'], AllowedMethods: ['PUT', 'POST', 'DELETE'],
    AllowedHeaders: ['Content-Type', 'x-amz-*'], ExposeHeaders: ['ETag', 'x-amz-request-id'], MaxAgeSeconds: 600,
  },
  { AllowedOrigins: ['*'], AllowedMethods: ['GET', 'HEAD'] },
];

const putCors = (bucket: string, rules: CORSRule[]) =>
  h.client.send(new PutBucketCorsCommand({ Bucket: bucket, CORSConfiguration: { CORSRules: rules } }));

function preflight(path: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${h.endpoint}${path}`, { method: 'OPTIONS', headers });
}

test('Put/Get/DeleteBucketCors round-trip; NoSuchCORSConfiguration when absent; tags kept', async () => {
  await rejectsWith(h.client.send(new GetBucketCorsCommand({ Bucket: 'cors' })), 'NoSuchCORSConfiguration', 404);
  await h.client.send(new PutBucketTaggingCommand({ Bucket: 'cors', Tagging: { TagSet: [{ Key: 'env', Value: 'test' }] } }));
  const put = await putCors('cors', RULES);
  assert.equal(put.$metadata.httpStatusCode, 200);
  const got = await h.client.send(new GetBucketCorsCommand({ Bucket: 'cors' }));
  assert.deepEqual(got.CORSRules, RULES);
  assert.deepEqual((await h.client.send(new GetBucketTaggingCommand({ Bucket: 'cors' }))).TagSet, [{ Key: 'env', Value: 'test' }]);
  const del = await h.client.send(new DeleteBucketCorsCommand({ Bucket: 'cors' }));
  assert.equal(del.$metadata.httpStatusCode, 204);
  await rejectsWith(h.client.send(new GetBucketCorsCommand({ Bucket: 'cors' })), 'NoSuchCORSConfiguration', 404);
  await h.client.send(new DeleteBucketCorsCommand({ Bucket: 'cors' }));
  await rejectsWith(h.client.send(new GetBucketCorsCommand({ Bucket: 'missing' })), 'NoSuchBucket', 404);
  await rejectsWith(putCors('missing', RULES), 'NoSuchBucket', 404);
});

test('PutBucketCors validation errors follow AWS', async () => {
  await rejectsWith(putCors('bare', [{ AllowedOrigins: ['*'], AllowedMethods: ['PATCH'] }]), 'InvalidRequest', 400, /Unsupported method is PATCH/);
  await rejectsWith(putCors('bare', [{ AllowedOrigins: ['http://*.*.com'], AllowedMethods: ['GET'] }]), 'InvalidRequest', 400,
    /AllowedOrigin "http:\/\/\*\.\*\.com" can not have more than one wildcard/);
  await rejectsWith(putCors('bare', [{ AllowedOrigins: ['*'], AllowedMethods: ['GET'], AllowedHeaders: ['*-*'] }]), 'InvalidRequest', 400, /AllowedHeader/);
  await rejectsWith(putCors('bare', [{ AllowedOrigins: ['*'], AllowedMethods: ['GET'], ExposeHeaders: ['*'] }]), 'InvalidRequest', 400, /ExposeHeader/);
  await rejectsWith(putCors('bare', [{ AllowedOrigins: [], AllowedMethods: ['GET'] }]), 'MalformedXML', 400);
  await rejectsWith(putCors('bare', Array.from({ length: 101 }, () => ({ AllowedOrigins: ['*'], AllowedMethods: ['GET'] }))), 'MalformedXML', 400);
  await rejectsWith(h.client.send(new GetBucketCorsCommand({ Bucket: 'bare' })), 'NoSuchCORSConfiguration', 404);
  // Without Content-MD5 or a checksum the body cannot be trusted: AWS requires one.
  const body = '<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>';
  const raw = await signedRequest(h.port, { method: 'PUT', path: '/bare', query: { cors: '' }, body });
  assert.equal(raw.status, 400);
  assert.equal(errorCode(raw.body), 'InvalidRequest');
});

test('preflight OPTIONS is answered without authentication, per rule', async () => {
  await putCors('cors', RULES);
  const ok = await preflight('/cors/dir/obj.txt', {
    Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'content-type, X-Amz-Date',
  });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get('access-control-allow-origin'), 'https://app.example.com');
  assert.equal(ok.headers.get('access-control-allow-methods'), 'PUT, POST, DELETE');
  assert.equal(ok.headers.get('access-control-allow-headers'), 'content-type, x-amz-date');
  assert.equal(ok.headers.get('access-control-expose-headers'), 'ETag, x-amz-request-id');
  assert.equal(ok.headers.get('access-control-max-age'), '600');
  assert.equal(ok.headers.get('access-control-allow-credentials'), 'true');
  assert.match(ok.headers.get('vary') ?? '', /Origin/);
  assert.equal(await ok.text(), '');

  const anyOrigin = await preflight('/cors', { Origin: 'https://elsewhere.org', 'Access-Control-Request-Method': 'GET' });
  assert.equal(anyOrigin.status, 200);
  assert.equal(anyOrigin.headers.get('access-control-allow-origin'), '*');
  assert.equal(anyOrigin.headers.get('access-control-allow-methods'), 'GET, HEAD');
  assert.equal(anyOrigin.headers.get('access-control-allow-credentials'), null);
  await anyOrigin.text();

  const refusals: Array<Record<string, string>> = [
    { Origin: 'https://elsewhere.org', 'Access-Control-Request-Method': 'PUT' },
    { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'x-custom' },
    { Origin: 'https://app.example.com.evil.org', 'Access-Control-Request-Method': 'DELETE' },
  ];
  for (const headers of refusals) {
    const res = await preflight('/cors/dir/obj.txt', headers);
    assert.equal(res.status, 403, JSON.stringify(headers));
    const body = await res.text();
    assert.equal(errorCode(body), 'AccessForbidden');
    assert.match(body, /CORSResponse: This CORS request is not allowed/);
    assert.equal(res.headers.get('access-control-allow-origin'), null);
  }
  const noConfig = await preflight('/bare/x', { Origin: 'https://a.com', 'Access-Control-Request-Method': 'GET' });
  assert.equal(noConfig.status, 403);
  assert.match(await noConfig.text(), /CORSResponse: CORS is not enabled for this bucket/);
  const noOrigin = await preflight('/cors/x', { 'Access-Control-Request-Method': 'GET' });
  assert.equal(noOrigin.status, 400);
  assert.match(await noOrigin.text(), /Origin request header needed/);
  const noMethod = await preflight('/cors/x', { Origin: 'https://a.com' });
  assert.equal(noMethod.status, 400);
  assert.match(await noMethod.text(), /Invalid Access-Control-Request-Method: null/);
});

test('actual requests with Origin get CORS headers when a rule matches, errors included', async () => {
  await putCors('cors', RULES);
  const get = await signedRequest(h.port, { method: 'GET', path: '/cors/dir/obj.txt', headers: { origin: 'https://site.net' } });
  assert.equal(get.status, 200);
  assert.equal(get.body, 'hello');
  assert.equal(get.headers['access-control-allow-origin'], '*');
  assert.match(String(get.headers['vary']), /Origin/);

  const put = await signedRequest(h.port, { method: 'PUT', path: '/cors/dir/new.txt', body: 'x', headers: { origin: 'https://app.example.com' } });
  assert.equal(put.status, 200);
  assert.equal(put.headers['access-control-allow-origin'], 'https://app.example.com');
  assert.equal(put.headers['access-control-expose-headers'], 'ETag, x-amz-request-id');

  // No rule allows DELETE from this origin: the request runs, without CORS headers.
  const del = await signedRequest(h.port, { method: 'DELETE', path: '/cors/dir/new.txt', headers: { origin: 'https://site.net' } });
  assert.equal(del.status, 204);
  assert.equal(del.headers['access-control-allow-origin'], undefined);
  const noOrigin = await signedRequest(h.port, { method: 'GET', path: '/cors/dir/obj.txt' });
  assert.equal(noOrigin.headers['access-control-allow-origin'], undefined);

  // A refused request still carries the headers, so the page can read the error.
  const anon = await fetch(`${h.endpoint}/cors/dir/obj.txt`, { headers: { Origin: 'https://site.net' } });
  assert.equal(anon.status, 403);
  assert.equal(errorCode(await anon.text()), 'AccessDenied');
  assert.equal(anon.headers.get('access-control-allow-origin'), '*');
});
