import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { RpcTokenSource, makeRpcToken } from '../rpc/index.js';
import { BUCKET_CHANGED_PATH, PeerNotifier, bucketChangedPlugin } from './index.js';

const creds = { accessKey: 'cluster-root', secretKey: 'cluster-secret-key' };

async function node(t: { after(fn: () => Promise<void>): void }, forgotten: string[]) {
  const app = Fastify();
  await app.register(bucketChangedPlugin, { credentials: creds, forget: (b) => { forgotten.push(b); } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  t.after(() => app.close());
  return { app, addr: `127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

test(`${BUCKET_CHANGED_PATH}: 403 and nothing dropped without a valid node token; 400 on a bad body`, async (t) => {
  const forgotten: string[] = [];
  const { app } = await node(t, forgotten);
  for (const authorization of [undefined, 'Bearer nope', `Bearer ${makeRpcToken({ ...creds, secretKey: 'other-secret-key' }, Date.now())}`]) {
    const r = await app.inject({ method: 'POST', url: BUCKET_CHANGED_PATH, payload: { bucket: 'b1' }, headers: authorization === undefined ? {} : { authorization } });
    assert.equal(r.statusCode, 403);
  }
  const authorization = new RpcTokenSource(creds).header();
  for (const payload of ['{}', '{"bucket":7}', '[]', '{"bucket":""}', 'not json']) {
    const r = await app.inject({ method: 'POST', url: BUCKET_CHANGED_PATH, payload, headers: { authorization, 'content-type': 'application/json' } });
    assert.equal(r.statusCode, 400, payload);
    assert.equal(r.json().error.code, 'ERR_RPC_PROTOCOL');
  }
  assert.deepEqual(forgotten, []);
});

test('PeerNotifier tells every live peer which bucket changed and reports a dead one without throwing', async (t) => {
  const a: string[] = [];
  const b: string[] = [];
  const [na, nb] = [await node(t, a), await node(t, b)];
  const failures: string[] = [];
  const notifier = new PeerNotifier({ peers: [na.addr, nb.addr, '127.0.0.1:1'], credentials: creds, timeoutMs: 2000, onFailure: (n) => failures.push(n) });
  const out = await notifier.post(BUCKET_CHANGED_PATH, { bucket: 'photos' });
  assert.deepEqual(out.map((o) => o.ok), [true, true, false]);
  assert.deepEqual([a, b, failures], [['photos'], ['photos'], ['127.0.0.1:1']]);
});
