/**
 * issue 4: "`iam` is not ready until it has been loaded from a storage quorum". With 3 of 4 drives (EC:2) gone the
 * storage is below read quorum: the IAM store does not become ready and /health/ready answers 503 with
 * iam_not_ready; a store loaded while the quorum was there is ready.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import Fastify from 'fastify';
import { healthPlugin } from '../../src/http/health/index.js';
import { IamError, IamStore, objectLayerPersistence } from '../../src/iam/index.js';
import { InsufficientReadQuorumError, type StorageHealth } from '../../src/storage/index.js';
import { testCluster } from '../../src/storage/engine/testing.js';

const root = { accessKey: 'root-access', secretKey: 'root-secret-key' };

async function probe(iamReady: () => boolean, storage: () => Promise<StorageHealth>) {
  const app = Fastify();
  await app.register(healthPlugin, {
    enabled: true,
    sources: { storage, iamReady, lockReady: async () => true, version: 'test', startedAt: new Date(), maintenanceLosesQuorum: () => true },
  });
  const r = await app.inject({ url: '/health/ready' });
  await app.close();
  return r;
}

test('below read quorum the IAM store is not ready and /health/ready reports iam_not_ready', async (t) => {
  const cluster = await testCluster(1, 4, 2);
  t.after(() => cluster.cleanup());
  const storage = await cluster.open();
  const loadedBefore = new IamStore({ root, persistence: objectLayerPersistence(storage) });
  await loadedBefore.load();
  await loadedBefore.addUser('alice', 'alice-secret');
  const ok = await probe(() => loadedBefore.ready(), () => storage.health());
  assert.equal(ok.statusCode, 200);

  for (const drive of cluster.sets[0]!.slice(1)) await rm(drive, { recursive: true, force: true, maxRetries: 5 });
  const warnings: string[] = [];
  const late = new IamStore({ root, persistence: objectLayerPersistence(storage), logger: { info() {}, warn: (m) => warnings.push(m) } });
  t.after(() => late.close());
  await late.start();
  assert.equal(late.ready(), false);
  assert.match(warnings[0] ?? '', /IAM load failed, retrying in 2000 ms: IAM cannot be loaded: the storage lacks read quorum/);
  await assert.rejects(late.load(), InsufficientReadQuorumError);
  assert.equal(await late.lookupSecret('alice'), undefined, 'no user is known before a load succeeded');
  assert.equal(await late.lookupSecret(root.accessKey), root.secretKey, 'root still signs (the probes and the admin need it)');

  const r = await probe(() => late.ready(), () => storage.health());
  assert.equal(r.statusCode, 503);
  const body = r.json();
  assert.deepEqual(body.degradedReasons, ['storage_quorum_unavailable', 'iam_not_ready']);
  assert.equal(body.details.iam.ready, false);
  assert.equal(body.details.iam.status, 'disconnected');
  assert.equal(loadedBefore.ready(), true, 'a store loaded at quorum stays ready on its cache');
});

test('a cluster node whose storage is not open yet: IAM is not ready, and becomes ready once storage opens', async (t) => {
  const cluster = await testCluster(1, 4, 2);
  t.after(() => cluster.cleanup());
  let opened: Awaited<ReturnType<typeof cluster.open>> | undefined;
  const iam = new IamStore({ root, persistence: objectLayerPersistence(() => opened) });
  t.after(() => iam.close());
  await assert.rejects(iam.load(), (e: unknown) => e instanceof IamError && e.code === 'StorageNotOpen');
  assert.equal(iam.ready(), false);
  assert.equal((await probe(() => iam.ready(), async () => ({ writable: true, readable: true, writeQuorum: 3, readQuorum: 2, onlineDrives: 4, offlineDrives: 0, healingDrives: 0 }))).json().degradedReasons[0], 'iam_not_ready');
  opened = await cluster.open();
  await iam.start();
  assert.equal(iam.ready(), true);
});
