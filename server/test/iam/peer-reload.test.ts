/**
 * issue 4 "IAM … cached on every node, reloaded through peer calls when changed": two IAM stores over one shared
 * storage, each behind a real listener with the peer routes and node-token auth; a change on one is visible on
 * the other as soon as the mutation resolves (its peer call completed), with no sleep and no timer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { IAM_RELOAD_PATH, IamReloadNotifier, iamReloadPlugin, makeRpcToken, peerPlugin } from '../../src/cluster/index.js';
import { IamStore, objectLayerPersistence } from '../../src/iam/index.js';
import type { Storage } from '../../src/storage/index.js';
import { testCluster } from '../../src/storage/engine/testing.js';

const creds = { accessKey: 'cluster-root', secretKey: 'cluster-secret-key' };

interface Node {
  app: FastifyInstance;
  addr: string;
  iam: IamStore;
  reloads: number;
}

/** A node: an IAM store whose changes go to `peers()`, behind the peer routes as app.ts registers them. */
async function node(t: { after(fn: () => Promise<void> | void): void }, storage: Storage, peers: () => string[]): Promise<Node> {
  const n = { reloads: 0 } as Node;
  n.iam = new IamStore({
    root: creds, persistence: objectLayerPersistence(storage),
    notify: async (changes) => {
      const outcomes = await new IamReloadNotifier({ peers: peers(), credentials: creds }).notify(changes);
      assert.ok(outcomes.every((o) => o.ok), JSON.stringify(outcomes));
    },
  });
  await n.iam.load();
  n.app = Fastify();
  await n.app.register(peerPlugin, { credentials: creds, info: () => ({ node: 'n', deploymentId: '', endpoints: '', drives: 0, credentials: '', version: '0' }) });
  await n.app.register(iamReloadPlugin, { credentials: creds, reload: async (items) => { n.reloads++; await n.iam.reload(items); } });
  await n.app.listen({ host: '127.0.0.1', port: 0 });
  n.addr = `127.0.0.1:${(n.app.server.address() as AddressInfo).port}`;
  t.after(async () => { n.iam.close(); await n.app.close(); });
  return n;
}

test('a change on node A is visible on node B once A\'s mutation resolved, and back', async (t) => {
  const cluster = await testCluster(1, 4, 2);
  t.after(() => cluster.cleanup());
  const storage = await cluster.open();
  const nodes: Node[] = [];
  const a = await node(t, storage, () => [nodes[1]!.addr]);
  const b = await node(t, storage, () => [nodes[0]!.addr]);
  nodes.push(a, b);

  await a.iam.addUser('alice', 'alice-secret', { policies: ['readonly'] });
  assert.equal(b.reloads, 1);
  assert.equal(await b.iam.lookupSecret('alice'), 'alice-secret');
  assert.equal(b.iam.decide('alice', { action: 's3:GetObject', resource: 'arn:aws:s3:::b/k', context: {} }), 'allow');

  await b.iam.putPolicy('puts', JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 's3:PutObject', Resource: 'arn:aws:s3:::b/*' }] }));
  assert.ok(a.iam.getPolicy('puts'), 'B → A');
  await a.iam.attachPolicies('alice', ['puts']);
  assert.equal(b.iam.decide('alice', { action: 's3:PutObject', resource: 'arn:aws:s3:::b/k', context: {} }), 'allow');

  const sa = await a.iam.addServiceAccount({ parent: 'alice' });
  assert.equal(await b.iam.lookupSecret(sa.accessKey), sa.secretKey);
  await a.iam.setUserStatus('alice', 'disabled');
  assert.equal(await b.iam.lookupSecret('alice'), undefined);
  assert.equal(await b.iam.lookupSecret(sa.accessKey), undefined, 'a disabled parent stops its service accounts on B too');
  await a.iam.removeUser('alice');
  assert.equal(b.iam.getUser('alice'), undefined);
  assert.equal(b.iam.getServiceAccount(sa.accessKey), undefined, 'the cascade reached B');
});

test(`${IAM_RELOAD_PATH} with the peer routes registered: 403 and no reload without a valid node token`, async (t) => {
  const cluster = await testCluster(1, 4, 2);
  t.after(() => cluster.cleanup());
  const storage = await cluster.open();
  const n = await node(t, storage, () => []);
  const bad = [undefined, 'Bearer nope', `Bearer ${makeRpcToken({ ...creds, secretKey: 'other-secret-key' }, Date.now())}`];
  for (const authorization of bad) {
    const res = await fetch(`http://${n.addr}${IAM_RELOAD_PATH}`, {
      method: 'POST', body: '{}', headers: { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) },
    });
    assert.equal(res.status, 403);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'ERR_RPC_AUTH');
  }
  assert.equal(n.reloads, 0);
});
