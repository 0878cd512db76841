import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { ConfigError } from '../../config/index.js';
import { RpcTokenSource, makeRpcToken } from '../rpc/index.js';
import { parseTopology } from '../topology.js';
import type { Topology } from '../topology.js';
import {
  PeerMonitor, credentialsFingerprint, endpointsFingerprint, losesQuorumWithoutSelf, nodeQuorum, peerPlugin, setWriteQuorum, waitForPeers,
} from './index.js';

const creds = { accessKey: 'cluster-root', secretKey: 'cluster-secret-key' };

async function peer(t: { after(fn: () => Promise<void>): void }, info: () => object, credentials = creds): Promise<{ app: FastifyInstance; port: number }> {
  const app = Fastify();
  await app.register(peerPlugin, { credentials, info: info as never });
  await app.listen({ host: '127.0.0.1', port: 0 });
  t.after(() => app.close());
  return { app, port: (app.server.address() as AddressInfo).port };
}

function topo(ports: readonly number[], self: number, drives = 2): Topology {
  const args = ports.flatMap((p) => Array.from({ length: drives }, (_, i) => `http://127.0.0.1:${p}/srv/d${i + 1}`));
  return parseTopology(args, { port: self, hosts: ['127.0.0.1'] });
}

test('/svc/peer/*: 403 without a token or with a wrongly signed one; info with a valid token', async (t) => {
  const { app } = await peer(t, () => ({ node: 'x', deploymentId: '', endpoints: 'e', drives: 4, credentials: 'c', version: '0' }));
  for (const authorization of [undefined, 'Bearer nope', `Bearer ${makeRpcToken({ ...creds, secretKey: 'other-secret-key' }, Date.now())}`]) {
    for (const url of ['/svc/peer/info', '/svc/peer/lock/anything']) {
      const r = await app.inject({ url, headers: authorization === undefined ? {} : { authorization } });
      assert.equal(r.statusCode, 403, `${url} ${authorization}`);
      assert.equal(r.json().error.code, 'ERR_RPC_AUTH');
      assert.doesNotMatch(r.body, /endpoints/);
    }
  }
  const ok = await app.inject({ url: '/svc/peer/info', headers: { authorization: new RpcTokenSource(creds).header() } });
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.json().endpoints, 'e');
  assert.equal((await app.inject({ url: '/svc/peer/nothing', headers: { authorization: new RpcTokenSource(creds).header() } })).statusCode, 404);
});

test('waitForPeers: a peer with other credentials or another drive list is refused, naming the difference', async (t) => {
  // The peer's listen port must be known before its topology, so its info is computed lazily.
  let peerTopo: Topology | undefined;
  const good = await peer(t, () => ({ node: 'p', deploymentId: '', endpoints: endpointsFingerprint(peerTopo!), drives: peerTopo!.endpoints.length, credentials: credentialsFingerprint(creds), version: '0' }));
  const selfPort = good.port + 1;
  peerTopo = topo([selfPort, good.port], good.port);
  const ok = await waitForPeers({ topology: topo([selfPort, good.port], selfPort), credentials: creds, intervalMs: 50 });
  assert.deepEqual(ok, { reached: [`127.0.0.1:${good.port}`], missing: [] });

  await assert.rejects(waitForPeers({ topology: topo([selfPort, good.port], selfPort, 4), credentials: creds, intervalMs: 50 }),
    (err: unknown) => err instanceof ConfigError && new RegExp(`peer 127.0.0.1:${good.port} was started with a different drive list \\(4 drives, we have 8\\)`).test(err.message));
  await assert.rejects(waitForPeers({ topology: topo([selfPort, good.port], selfPort), credentials: { ...creds, secretKey: 'another-secret' }, intervalMs: 50 }),
    (err: unknown) => err instanceof ConfigError && /rejects our credentials: SVC_ACCESS_KEY\/SVC_SECRET_KEY differ/.test(err.message));
});

test('waitForPeers: goes on with a majority after the grace period, times out naming the missing nodes', async (t) => {
  let peerTopo: Topology | undefined;
  const good = await peer(t, () => ({ node: 'p', deploymentId: '', endpoints: endpointsFingerprint(peerTopo!), drives: 8, credentials: credentialsFingerprint(creds), version: '0' }));
  // Two ports nobody listens on (bound and closed again).
  const dead: number[] = [];
  for (let i = 0; i < 2; i++) {
    const a = Fastify();
    await a.listen({ host: '127.0.0.1', port: 0 });
    dead.push((a.server.address() as AddressInfo).port);
    await a.close();
  }
  const ports = [dead[0]!, good.port, dead[1]!];
  peerTopo = topo(ports, good.port);
  const missingOne = await waitForPeers({ topology: topo(ports, dead[0]!), credentials: creds, intervalMs: 50, graceMs: 200 });
  assert.deepEqual(missingOne.missing, [`127.0.0.1:${dead[1]}`]);
  const four = [...ports, dead[1]! + 1];
  peerTopo = topo(four, good.port);
  await assert.rejects(waitForPeers({ topology: topo(four, dead[0]!), credentials: creds, intervalMs: 50, graceMs: 0, timeoutMs: 300 }),
    /peers not reachable within 0 s: 127\.0\.0\.1:\d+, 127\.0\.0\.1:\d+/);
});

test('PeerMonitor: majority of nodes reachable; quorum arithmetic', async (t) => {
  const good = await peer(t, () => ({ node: 'p', deploymentId: '', endpoints: '', drives: 0, credentials: '', version: '0' }));
  const m3 = new PeerMonitor({ topology: topo([good.port + 1, good.port, 1], good.port + 1), credentials: creds });
  t.after(() => m3.stop());
  assert.equal(await m3.majorityReachable(), true, '2 of 3 nodes');
  assert.deepEqual([...m3.reachable()], [`127.0.0.1:${good.port}`]);
  const m4 = new PeerMonitor({ topology: topo([good.port + 1, good.port, 1, 2], good.port + 1), credentials: creds });
  t.after(() => m4.stop());
  assert.equal(await m4.majorityReachable(), false, '2 of 4 nodes');
  assert.deepEqual([1, 2, 3, 4, 5].map(nodeQuorum), [1, 2, 2, 3, 3]);
  assert.deepEqual([[16, 4], [4, 2], [6, 3], [5, 2]].map(([n, p]) => setWriteQuorum(n!, p!)), [12, 3, 4, 3]);
  // 4 nodes × 4 drives, one set of 16 EC:4: write quorum 12, this node holds 4.
  const t16 = parseTopology(['http://127.0.0.{1...4}:9000/srv/d{1...4}'], { port: 9000, hosts: ['127.0.0.2'] });
  assert.equal(losesQuorumWithoutSelf(t16, () => true), false);
  assert.equal(losesQuorumWithoutSelf(t16, (n) => n !== '127.0.0.1:9000'), true);
});
