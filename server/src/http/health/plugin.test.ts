import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { healthPlugin, type HealthSources } from './index.js';
import type { ProbeStorageState } from './readiness.js';

const healthy: ProbeStorageState = { writable: true, readable: true, writeQuorum: 3, readQuorum: 2, onlineDrives: 4, offlineDrives: 0, healingDrives: 0 };

async function appWith(state: { storage: ProbeStorageState | 'hang'; iam?: boolean; lock?: boolean; cluster?: boolean }, enabled = true) {
  const sources: HealthSources = {
    storage: () => state.storage === 'hang' ? new Promise(() => {}) : Promise.resolve(state.storage),
    iamReady: () => state.iam ?? true,
    lockReady: async () => state.lock ?? true,
    version: '0.1.0-test',
    startedAt: new Date(),
    deadlineMs: 200,
    maintenanceLosesQuorum: () => true,
    readyNeedsLock: state.cluster ?? false,
  };
  const app = Fastify();
  await app.register(healthPlugin, { enabled, sources });
  return app;
}

test('liveness paths answer 200 on GET and HEAD, HEAD without a body', async () => {
  const app = await appWith({ storage: healthy });
  for (const url of ['/health', '/health/live', '/compat/health/live']) {
    const get = await app.inject({ method: 'GET', url });
    assert.equal(get.statusCode, 200, url);
    assert.equal(get.json().status, 'ok');
    const head = await app.inject({ method: 'HEAD', url });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
  }
});

test('ready: 200 ready:true with details when storage and IAM are ready', async () => {
  const app = await appWith({ storage: healthy });
  for (const url of ['/health/ready', '/compat/health/ready']) {
    const r = await app.inject({ url });
    assert.equal(r.statusCode, 200);
    const b = r.json();
    assert.equal(b.ready, true);
    assert.deepEqual(b.degradedReasons, []);
    assert.deepEqual(Object.keys(b.details).sort(), ['iam', 'lock', 'storage']);
    assert.equal(b.details.storage.status, 'connected');
  }
});

test('ready: 503 with storage_quorum_unavailable and iam_not_ready', async () => {
  const app = await appWith({ storage: { ...healthy, writable: false, onlineDrives: 1, offlineDrives: 3 }, iam: false });
  const r = await app.inject({ url: '/health/ready' });
  assert.equal(r.statusCode, 503);
  const b = r.json();
  assert.equal(b.ready, false);
  assert.deepEqual(b.degradedReasons, ['storage_quorum_unavailable', 'iam_not_ready']);
  assert.equal(b.details.storage.ready, false);
  assert.equal(b.details.iam.status, 'disconnected');
});

test('a storage that never answers makes the probe degraded after its deadline, not hang', async () => {
  const app = await appWith({ storage: 'hang' });
  const r = await app.inject({ url: '/health/ready' });
  assert.equal(r.statusCode, 503);
  assert.deepEqual(r.json().degradedReasons, ['storage_quorum_unavailable']);
});

test('cluster probes also need lock quorum; read probe needs only read quorum', async () => {
  const noLock = await appWith({ storage: healthy, lock: false });
  const w = await noLock.inject({ url: '/compat/health/cluster' });
  assert.equal(w.statusCode, 503);
  assert.deepEqual(w.json().degradedReasons, ['lock_quorum_unavailable']);
  assert.equal((await noLock.inject({ url: '/health/ready' })).statusCode, 200);
  const readOnly = await appWith({ storage: { ...healthy, writable: false } });
  assert.equal((await readOnly.inject({ url: '/compat/health/cluster' })).statusCode, 503);
  assert.equal((await readOnly.inject({ url: '/compat/health/cluster/read' })).statusCode, 200);
});

test('MinIO aliases: empty bodies, quorum headers, 412 for maintenance on a single node', async () => {
  const app = await appWith({ storage: healthy });
  const live = await app.inject({ url: '/minio/health/live' });
  assert.equal(live.statusCode, 200);
  assert.equal(live.body, '');
  const cluster = await app.inject({ url: '/minio/health/cluster' });
  assert.equal(cluster.statusCode, 200);
  assert.equal(cluster.body, '');
  assert.equal(cluster.headers['x-minio-write-quorum'], '3');
  assert.equal(cluster.headers['x-minio-read-quorum'], undefined);
  const read = await app.inject({ method: 'HEAD', url: '/minio/health/cluster/read' });
  assert.equal(read.statusCode, 200);
  assert.equal(read.headers['x-minio-read-quorum'], '2');
  assert.equal((await app.inject({ url: '/minio/health/cluster?maintenance=true' })).statusCode, 412);
  const down = await appWith({ storage: { ...healthy, writable: false, readable: false } });
  assert.equal((await down.inject({ url: '/minio/health/cluster' })).statusCode, 503);
  assert.equal((await down.inject({ url: '/minio/health/ready' })).statusCode, 503);
  assert.equal((await down.inject({ url: '/minio/health/live' })).statusCode, 200);
});

test('SVC_HEALTH_ENDPOINT_ENABLE=false: every probe path is 404', async () => {
  const app = await appWith({ storage: healthy }, false);
  for (const url of ['/health', '/health/live', '/health/ready', '/compat/health/live', '/compat/health/ready',
    '/compat/health/cluster', '/compat/health/cluster/read', '/minio/health/live', '/minio/health/ready',
    '/minio/health/cluster', '/minio/health/cluster/read']) {
    assert.equal((await app.inject({ url })).statusCode, 404, url);
  }
});

test('a cluster node is ready only with lock quorum (a majority of its peers)', async () => {
  const app = await appWith({ storage: { ...healthy, writable: false }, lock: false, cluster: true });
  const r = await app.inject({ url: '/health/ready' });
  assert.equal(r.statusCode, 503);
  assert.deepEqual(r.json().degradedReasons, ['storage_quorum_unavailable', 'lock_quorum_unavailable']);
  assert.equal(r.json().details.lock.ready, false);
  assert.equal((await (await appWith({ storage: healthy, lock: true, cluster: true })).inject({ url: '/health/ready' })).statusCode, 200);
});

test('a cluster node stays ready while its lock and storage checks wait on a frozen peer, from their last answers', { timeout: 10_000 }, async () => {
  let frozen = false;
  const hang = new Promise<never>(() => {});
  const sources: HealthSources = {
    storage: () => (frozen ? hang : Promise.resolve(healthy)),
    iamReady: () => true,
    lockReady: () => (frozen ? hang : Promise.resolve(true)),
    readyNeedsLock: true,
    version: '0.1.0-test',
    startedAt: new Date(),
    // Waiting the deadline would fail the test by its timeout.
    deadlineMs: 3_600_000,
    answerWithinMs: 20,
    maintenanceLosesQuorum: () => false,
  };
  const app = Fastify();
  await app.register(healthPlugin, { enabled: true, sources });
  assert.equal((await app.inject({ url: '/health/ready' })).statusCode, 200);
  frozen = true;
  const r = await app.inject({ url: '/health/ready' });
  assert.equal(r.statusCode, 200);
  assert.equal(r.json().details.lock.ready, true);
  assert.equal((await app.inject({ url: '/compat/health/cluster' })).statusCode, 200);
});
