import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { generateSelfSigned } from '../certs/index.js';
import { ADMIN_INFO_PATH, createAdminInfoSource } from './admin-info.js';
import type { AdminInfoRequest } from './admin-info.js';

const HOST = 's3.example.test';
const KEYS = { accessKey: 'AKIADEPLOYKIT', secretKey: 'deploy-kit-secret-key-0123456789' };
const NOW = new Date();
const tls = generateSelfSigned({ hosts: [HOST], now: NOW, days: 1 });

/** The server side of SigV4: signs the received request again with the expected keys and compares. */
async function signatureMatches(req: IncomingMessage, region: string): Promise<boolean> {
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (m === null) return false;
  const signingDate = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!));
  const signer = new SignatureV4({
    service: 's3', region, sha256: Sha256, uriEscapePath: false, credentials: { accessKeyId: KEYS.accessKey, secretAccessKey: KEYS.secretKey },
  });
  const again = await signer.sign({
    method: req.method ?? '', protocol: 'https:', hostname: HOST, path: req.url ?? '', query: {},
    headers: { host: String(req.headers.host), 'x-amz-content-sha256': String(req.headers['x-amz-content-sha256']) },
  }, { signingDate });
  return again.headers['authorization'] === req.headers.authorization;
}

async function withServer(handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>, run: (port: number) => Promise<void>): Promise<void> {
  const server = createServer({ cert: tls.leafCertPem + tls.caCertPem, key: tls.leafKeyPem }, (req, res) => { void handler(req, res); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await run((server.address() as AddressInfo).port);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const request = (port: number, over: Partial<AdminInfoRequest> = {}): AdminInfoRequest => ({
  address: '127.0.0.1', port, host: HOST, ca: tls.caCertPem, ...KEYS, region: 'eu-west-3', timeoutMs: 5000, ...over,
});

test('GET /svc/admin/v3/info is signed (SigV4, s3, the region, Host with the port, body hash) and its JSON returned', async () => {
  const seen: string[] = [];
  await withServer(async (req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.host} ${req.headers['x-amz-content-sha256']}`);
    const ok = await signatureMatches(req, 'eu-west-3');
    res.writeHead(ok ? 200 : 403, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { version: 1, status: 'online' } : { code: 'SignatureDoesNotMatch', message: 'no' }));
  }, async (port) => {
    const answer = await createAdminInfoSource().info(request(port));
    assert.deepEqual(answer, { ok: true, report: { version: 1, status: 'online' } });
    assert.deepEqual(seen, [`GET ${ADMIN_INFO_PATH} ${HOST}:${port} e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855`]);
    // The same call with another secret does not verify: the test server really checks the signature.
    const wrong = await createAdminInfoSource().info(request(port, { secretKey: 'another-secret' }));
    assert.deepEqual(wrong, { ok: false, error: 'HTTP 403 SignatureDoesNotMatch: no' });
  });
});

test('errors come back as reasons, never thrown: error JSON, non-JSON, an untrusted certificate, nothing listening', async () => {
  await withServer((req, res) => {
    if (req.headers['x-amz-date'] === undefined) res.writeHead(500).end();
    else if (req.url === ADMIN_INFO_PATH) res.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
  }, async (port) => {
    assert.deepEqual(await createAdminInfoSource().info(request(port)), { ok: false, error: 'the answer is not JSON' });
    const untrusted = await createAdminInfoSource().info(request(port, { ca: undefined }));
    assert.equal(untrusted.ok, false);
  });
  await withServer((_req, res) => { res.writeHead(503, { 'content-type': 'application/json' }).end('{"code":"ServiceUnavailable"}'); }, async (port) => {
    assert.deepEqual(await createAdminInfoSource().info(request(port)), { ok: false, error: 'HTTP 503 ServiceUnavailable' });
  });
  let closedPort = 0;
  await withServer(() => undefined, async (port) => { closedPort = port; });
  const refused = await createAdminInfoSource().info(request(closedPort));
  assert.equal(refused.ok, false);
  if (!refused.ok) assert.match(refused.error, /ECONNREFUSED/);
});
