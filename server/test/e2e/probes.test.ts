/**
 * Must show 5 (issue 2): every probe path's status and body/headers on a real server process, and the
 * SVC_HEALTH_ENDPOINT_ENABLE=false / SVC_CONSOLE_ENABLE=false switches. Also: the console listener.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startSvc } from '../helpers/svc-process.js';

async function get(url: string, method = 'GET') {
  const r = await fetch(url, { method, redirect: 'manual' });
  const body = await r.text();
  return { status: r.status, headers: r.headers, body };
}

test('probes on a healthy 4-drive server, without credentials', async (t) => {
  const svc = await startSvc({ drives: 4 });
  t.after(async () => { await svc.stop(); svc.cleanup(); });
  for (const path of ['/health', '/health/live', '/compat/health/live']) {
    const r = await get(svc.url + path);
    assert.equal(r.status, 200, path);
    assert.equal(JSON.parse(r.body).status, 'ok');
  }
  const head = await get(`${svc.url}/health`, 'HEAD');
  assert.equal(head.status, 200);
  assert.equal(head.body, '');
  for (const path of ['/health/ready', '/compat/health/ready', '/compat/health/cluster', '/compat/health/cluster/read']) {
    const r = await get(svc.url + path);
    assert.equal(r.status, 200, path);
    const b = JSON.parse(r.body);
    assert.equal(b.ready, true);
    assert.deepEqual(b.degradedReasons, []);
    assert.deepEqual(Object.keys(b.details).sort(), ['iam', 'lock', 'storage']);
  }
  const cluster = await get(`${svc.url}/minio/health/cluster`);
  assert.equal(cluster.status, 200);
  assert.equal(cluster.body, '');
  assert.equal(cluster.headers.get('x-minio-write-quorum'), '3', '4 drives EC:2 → K=2=M → write quorum K+1');
  const read = await get(`${svc.url}/minio/health/cluster/read`);
  assert.equal(read.headers.get('x-minio-read-quorum'), '2');
  assert.equal((await get(`${svc.url}/minio/health/live`)).status, 200);
  assert.equal((await get(`${svc.url}/minio/health/ready`)).status, 200);
  assert.equal((await get(`${svc.url}/minio/health/cluster?maintenance=true`)).status, 412);
  // Anything else needs authentication.
  const denied = await get(`${svc.url}/`);
  assert.equal(denied.status, 403);
  assert.match(denied.body, /<Code>AccessDenied<\/Code>/);
  // Console listener.
  assert.ok(svc.consoleUrl);
  const con = await get(`${svc.consoleUrl}/svc/console/health`);
  assert.equal(con.status, 200);
  const root = await get(`${svc.consoleUrl}/`);
  assert.equal(root.status, 302);
  assert.equal(root.headers.get('location'), '/svc/console/');
});

test('SVC_HEALTH_ENDPOINT_ENABLE=false removes the probes; SVC_CONSOLE_ENABLE=false opens no console listener', async (t) => {
  const svc = await startSvc({ drives: 1, env: { SVC_HEALTH_ENDPOINT_ENABLE: 'false' }, consoleEnabled: false });
  t.after(async () => { await svc.stop(); svc.cleanup(); });
  for (const path of ['/health', '/health/live', '/health/ready', '/compat/health/live', '/compat/health/ready',
    '/compat/health/cluster', '/compat/health/cluster/read', '/minio/health/live', '/minio/health/ready',
    '/minio/health/cluster', '/minio/health/cluster/read']) {
    assert.equal((await get(svc.url + path)).status, 404, path);
  }
  assert.equal(svc.consoleUrl, undefined);
  assert.match(svc.output(), /Console: disabled/);
});

test('the default console port is not opened when the console is disabled', async (t) => {
  const port = 19_000 + Math.floor(Math.random() * 200);
  const svc = await startSvc({ drives: 1, consoleEnabled: false, env: { SVC_CONSOLE_ADDRESS: `127.0.0.1:${port}` } });
  t.after(async () => { await svc.stop(); svc.cleanup(); });
  const refused = await new Promise<boolean>((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => { s.destroy(); resolve(false); });
    s.once('error', () => resolve(true));
  });
  assert.ok(refused, `nothing listens on ${port}`);
});
