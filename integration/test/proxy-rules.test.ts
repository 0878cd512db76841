// Scenario 1 of issue 7: every SPEC §4 proxy rule observed on the wire, HAProxy + a PEM from `deploy-kit cert
// self-signed`, one svc node, started by `deploy-kit up` on loopback ports.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { GetObjectCommand, PutObjectCommand, CreateBucketCommand } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { docker, requireDocker, s3Client, startStack, wire } from './helpers/index.js';
import type { Stack } from './helpers/index.js';

let stack: Stack;

before(async () => {
  requireDocker();
  stack = await startStack({ name: 'rules' });
});

after(async () => {
  await stack?.destroy();
});

test('deploy-kit up printed the endpoints, where the credentials are and an rc alias line', () => {
  assert.match(stack.upOutput, new RegExp(`S3 API: +https://s3\\.svc\\.test:${stack.httpsPort}`));
  assert.match(stack.upOutput, /console: +https:\/\/console\.svc\.test:\d+\/svc\/console\//);
  assert.match(stack.upOutput, /credentials: .*\.env/);
  assert.match(stack.upOutput, /rc alias set svc https:\/\/s3\.svc\.test:\d+ "\$SVC_ACCESS_KEY" "\$SVC_SECRET_KEY"/);
  assert.doesNotMatch(stack.upOutput, new RegExp(stack.secretKey), 'the secret key is never printed');
});

test('rule 6: port 80 answers 301 to https with the same host and path (query kept)', async () => {
  for (const host of [stack.hosts.s3, stack.hosts.console]) {
    const r = await wire({ port: stack.httpPort, host, path: '/bucket/some/key?x=1' }, false);
    assert.equal(r.status, 301, host);
    assert.equal(r.headers.location, `https://${host}/bucket/some/key?x=1`);
  }
});

test('rule 6: an unknown host gets 404 on :80 and on :443', async () => {
  const plain = await wire({ port: stack.httpPort, host: 'other.example.test', path: '/' }, false);
  assert.equal(plain.status, 404);
  // Verification is off here: the certificate (rightly) does not cover the unknown name (DOCKER.md §2).
  const tls = await wire({ port: stack.httpsPort, host: 'other.example.test', path: '/' }, true);
  assert.equal(tls.status, 404);
  assert.match(tls.body, /unknown host/);
});

test('rule 2: one certificate, trusted through certs/ca.crt, is served for both names', async () => {
  const fingerprints = new Set<string>();
  for (const host of [stack.hosts.s3, stack.hosts.console]) {
    const r = await wire({ port: stack.httpsPort, host, path: host === stack.hosts.s3 ? '/health/ready' : '/svc/console/health', ca: stack.ca }, true);
    assert.equal(r.authorized, true, host);
    assert.equal(r.status, 200, host);
    assert.match(r.certificate?.subjectaltname ?? '', /DNS:s3\.svc\.test/);
    assert.match(r.certificate?.subjectaltname ?? '', /DNS:console\.svc\.test/);
    fingerprints.add(r.certificate?.fingerprint256 ?? '');
  }
  assert.equal(fingerprints.size, 1);
});

test('rule 3: SigV4 PUT, GET and a presigned GET through the S3 hostname (path style)', async () => {
  const s3 = s3Client({ s3Host: stack.hosts.s3, httpsPort: stack.httpsPort, ca: stack.ca, accessKey: stack.accessKey, secretKey: stack.secretKey });
  try {
    await s3.send(new CreateBucketCommand({ Bucket: 'wire' }));
    const body = randomBytes(100_000);
    await s3.send(new PutObjectCommand({ Bucket: 'wire', Key: 'dir/obj.bin', Body: body }));
    const got = await s3.send(new GetObjectCommand({ Bucket: 'wire', Key: 'dir/obj.bin' }));
    assert.deepEqual(Buffer.from(await got.Body!.transformToByteArray()), body);
    const url = new URL(await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'wire', Key: 'dir/obj.bin' }), { expiresIn: 300 }));
    // Host (signed, with the port) as the URL says; SNI is the bare name.
    const r = await wire({ port: stack.httpsPort, host: url.host, servername: url.hostname, path: url.pathname + url.search, ca: stack.ca }, true);
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-length'], String(body.length));
  } finally {
    s3.destroy();
  }
});

test('rule 3: a 50 MiB multipart upload streams through the proxy and reads back intact', async () => {
  const s3 = s3Client({ s3Host: stack.hosts.s3, httpsPort: stack.httpsPort, ca: stack.ca, accessKey: stack.accessKey, secretKey: stack.secretKey });
  try {
    await s3.send(new CreateBucketCommand({ Bucket: 'big' }));
    const body = randomBytes(50 * 1024 * 1024);
    await new Upload({ client: s3, params: { Bucket: 'big', Key: 'fifty', Body: body }, partSize: 8 * 1024 * 1024, queueSize: 2 }).done();
    const got = await s3.send(new GetObjectCommand({ Bucket: 'big', Key: 'fifty' }));
    const back = Buffer.from(await got.Body!.transformToByteArray());
    assert.equal(back.length, body.length);
    assert.equal(createHash('sha256').update(back).digest('hex'), createHash('sha256').update(body).digest('hex'));
  } finally {
    s3.destroy();
  }
});

test('rules 1, 5, 11: the console on its hostname at /svc/console/, with the affinity cookie and its flags', async () => {
  const root = await wire({ port: stack.httpsPort, host: stack.hosts.console, path: '/', ca: stack.ca }, true);
  assert.equal(root.status, 302);
  assert.equal(root.headers.location, '/svc/console/');
  // The image carries the built front end: the app shell references its hashed assets (not the "not built" page).
  const shell = await wire({ port: stack.httpsPort, host: stack.hosts.console, path: '/svc/console/', ca: stack.ca }, true);
  assert.equal(shell.status, 200);
  assert.match(shell.body, /<script[^>]+src="\/svc\/console\/assets\/[^"]+\.js"/);
  const page = await wire({ port: stack.httpsPort, host: stack.hosts.console, path: '/svc/console/health', ca: stack.ca }, true);
  assert.equal(page.status, 200);
  const cookie = (page.headers['set-cookie'] ?? []).find((c) => c.startsWith('svc_console='));
  assert.ok(cookie, `affinity cookie set: ${JSON.stringify(page.headers['set-cookie'])}`);
  assert.match(cookie, /^svc_console=node1;/);
  assert.match(cookie, /; HttpOnly/i);
  assert.match(cookie, /; Secure/i);
  assert.match(cookie, /; SameSite=Lax/i);
  // The S3 hostname never gets the console's cookie (rule 11: console backend only).
  const s3 = await wire({ port: stack.httpsPort, host: stack.hosts.s3, path: '/health/ready', ca: stack.ca }, true);
  assert.equal(s3.headers['set-cookie'], undefined);
});

/** POST /svc/console/api/login through the proxy with the root keys; the session cookie (svc_session=…) it sets. */
async function consoleSession(): Promise<string> {
  const { request } = await import('node:https');
  const body = JSON.stringify({ accessKey: stack.accessKey, secretKey: stack.secretKey });
  const cookies = await new Promise<string[]>((resolve, reject) => {
    const r = request({
      host: '127.0.0.1', port: stack.httpsPort, servername: stack.hosts.console, ca: stack.ca, agent: false, method: 'POST',
      path: '/svc/console/api/login', headers: { host: stack.hosts.console, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(res.headers['set-cookie'] ?? []) : reject(new Error(`console login answered ${res.statusCode}`))));
    });
    r.on('error', reject);
    r.end(body);
  });
  const session = cookies.map((c) => c.split(';')[0]!).find((c) => c.startsWith('svc_session='));
  assert.ok(session !== undefined, `the console login sets svc_session (${cookies.join(' | ')})`);
  return session;
}

/** A raw WebSocket handshake to the console host through the proxy; resolves with what came back first. */
async function upgrade(cookie: string | undefined): Promise<string> {
  const { connect: tlsConnect } = await import('node:tls');
  return new Promise<string>((resolve, reject) => {
    const sock = tlsConnect({ host: '127.0.0.1', port: stack.httpsPort, servername: stack.hosts.console, ca: stack.ca, ALPNProtocols: ['http/1.1'] }, () => {
      sock.write(`GET /svc/console/ws HTTP/1.1\r\nHost: ${stack.hosts.console}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`
        + `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n${cookie === undefined ? '' : `Cookie: ${cookie}\r\n`}\r\n`);
    });
    let data = '';
    // After a 101 the server's first frame (unmasked text: the status report) follows the headers.
    const done = (): boolean => data.includes('\r\n\r\n') && (!data.startsWith('HTTP/1.1 101') || data.includes('"type":'));
    sock.setEncoding('latin1').on('data', (d: string) => { data += d; if (done()) { sock.destroy(); resolve(data); } });
    sock.on('error', reject);
    sock.setTimeout(15_000, () => { sock.destroy(); reject(new Error(`no complete answer to the upgrade: ${JSON.stringify(data.slice(0, 200))}`)); });
  });
}

test('WebSocket: the console /svc/console/ws upgrades through the proxy (101 and a status frame); without a session the backend refuses', async () => {
  const refused = await upgrade(undefined);
  // 401 is the console's own answer (HAProxy answers 400/502/503 itself): the Upgrade request reached the backend.
  assert.match(refused.split('\r\n')[0]!, /^HTTP\/1\.1 401 /, refused.split('\r\n')[0]);
  const answer = await upgrade(await consoleSession());
  assert.match(answer.split('\r\n')[0]!, /^HTTP\/1\.1 101 /, answer.split('\r\n')[0]);
  assert.match(answer, /^upgrade: websocket$/im);
  assert.match(answer, /"type":"(status|error)"/, 'a WebSocket frame came through the upgraded connection');
  const logs = docker(['logs', '--tail', '50', stack.container('proxy')], 30_000);
  assert.match(logs, /console\/node1 .*"GET \/svc\/console\/ws HTTP\/1\.1"/, 'HAProxy routed the upgrade to the console backend');
});

test('rules 7-9: health checks as rendered, and only the proxy publishes ports, only 80/443, on the host', async () => {
  const node = JSON.parse(docker(['inspect', stack.container('node1')])) as [{ Config: { Healthcheck?: { Test: string[]; Interval: number } }; HostConfig: { PortBindings: Record<string, unknown> | null } }];
  const hc = node[0].Config.Healthcheck;
  assert.ok(hc !== undefined, 'node container has a health check');
  assert.equal(hc.Test[0], 'CMD');
  assert.equal(hc.Test[1], 'node');
  assert.match(hc.Test[3] ?? '', /127\.0\.0\.1:9000\/health\/ready/);
  assert.match(hc.Test[3] ?? '', /127\.0\.0\.1:9001\/svc\/console\/health/);
  assert.equal(hc.Interval, 10_000_000_000);
  assert.deepEqual(Object.keys(node[0].HostConfig.PortBindings ?? {}), [], 'nodes publish nothing');
  const proxy = JSON.parse(docker(['inspect', stack.container('proxy')])) as [{ HostConfig: { PortBindings: Record<string, { HostIp: string; HostPort: string }[]> } }];
  assert.deepEqual(Object.keys(proxy[0].HostConfig.PortBindings).sort(), ['443/tcp', '80/tcp']);
  // HAProxy spreads each server's first check over the interval (10 s as rendered), so right after start a server can
  // still be "UP 1/3" with check status INI; wait until both have passed a real check (bounded, not timed).
  const stat = () => docker(['exec', stack.container('proxy'), 'bash', '-c', 'exec 3<>/dev/tcp/127.0.0.1/9999; echo "show stat" >&3; cat <&3'], 30_000);
  let state = stat();
  for (let i = 0; i < 60 && !(/^s3,node1,.*,UP,.*,L7OK,/m.test(state) && /^console,node1,.*,UP,.*,L7OK,/m.test(state)); i++) {
    await new Promise((r) => setTimeout(r, 500));
    state = stat();
  }
  assert.match(state, /^s3,node1,.*,UP,.*,L7OK,/m);
  assert.match(state, /^console,node1,.*,UP,.*,L7OK,/m);
});

test('deploy-kit status reports UP servers, readiness, the served certificate and the admin API cluster summary', async () => {
  const r = await stack.kit(['status']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /healthy/);
  assert.match(r.stdout, /s3\/node1 +UP/);
  assert.match(r.stdout, /console\/node1 +UP/);
  assert.match(r.stdout, /certificate: s3\.svc\.test, console\.svc\.test;.*\(8\d days left\)/);
  // GET /svc/admin/v3/info, SigV4-signed with .env's keys, through the proxy to the S3 hostname.
  assert.match(r.stdout, /^cluster: online, servers 1\/1 online, drives 1\/1 online, [\d.]+ [KMGT]?i?B used of [\d.]+ [KMGTP]iB \([\d.]+%\)$/m);
});

test('the runtime API port is not reachable from the host', async () => {
  const reached = await new Promise<boolean>((resolve) => {
    const s = connect({ host: '127.0.0.1', port: 9999 }, () => { s.destroy(); resolve(true); });
    s.on('error', () => resolve(false));
  });
  assert.equal(reached, false);
});
