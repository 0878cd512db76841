import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { RpcTokenSource, makeRpcToken } from '../rpc/index.js';
import { IAM_RELOAD_PATH, IamReloadNotifier, iamReloadPlugin, parseReloadBody } from './index.js';
import type { IamReloadItem } from './index.js';

const creds = { accessKey: 'cluster-root', secretKey: 'cluster-secret-key' };

async function node(t: { after(fn: () => Promise<void>): void }, reload: (items: readonly IamReloadItem[] | undefined) => Promise<void>) {
  const app = Fastify();
  await app.register(iamReloadPlugin, { credentials: creds, reload });
  await app.listen({ host: '127.0.0.1', port: 0 });
  t.after(() => app.close());
  return { app, addr: `127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

test(`${IAM_RELOAD_PATH}: 403 and no reload without a valid node token`, async (t) => {
  let calls = 0;
  const { app } = await node(t, async () => { calls++; });
  for (const authorization of [undefined, 'Bearer nope', `Bearer ${makeRpcToken({ ...creds, secretKey: 'other-secret-key' }, Date.now())}`]) {
    const r = await app.inject({ method: 'POST', url: IAM_RELOAD_PATH, payload: {}, headers: authorization === undefined ? {} : { authorization } });
    assert.equal(r.statusCode, 403);
    assert.equal(r.json().error.code, 'ERR_RPC_AUTH');
  }
  assert.equal(calls, 0);
});

test(`${IAM_RELOAD_PATH}: named records, full reload on an empty body, 400 on a bad body, 503 when the reload fails`, async (t) => {
  const seen: Array<readonly IamReloadItem[] | undefined> = [];
  let fail = false;
  const { app } = await node(t, async (items) => {
    if (fail) throw new Error('storage lacks read quorum');
    seen.push(items);
  });
  const authorization = new RpcTokenSource(creds).header();
  const post = (payload: string | undefined, contentType = 'application/json') => app.inject({
    method: 'POST', url: IAM_RELOAD_PATH, headers: { authorization, ...(payload !== undefined ? { 'content-type': contentType } : {}) }, ...(payload !== undefined ? { payload } : {}),
  });
  const named = await post(JSON.stringify({ changes: [{ kind: 'user', name: 'alice' }, { kind: 'policy', name: 'p1' }] }));
  assert.equal(named.statusCode, 200);
  assert.deepEqual(named.json(), { reloaded: 2 });
  assert.deepEqual((await post(undefined)).json(), { reloaded: 'all' });
  assert.deepEqual((await post('')).json(), { reloaded: 'all' });
  assert.deepEqual((await post('{}')).json(), { reloaded: 'all' });
  assert.deepEqual(seen, [[{ kind: 'user', name: 'alice' }, { kind: 'policy', name: 'p1' }], undefined, undefined, undefined]);
  for (const bad of ['{', '[]', '{"changes":{}}', '{"changes":[{"kind":"role","name":"g"}]}', '{"changes":[{"kind":"user","name":""}]}']) {
    const r = await post(bad);
    assert.equal(r.statusCode, 400, bad);
    assert.equal(r.json().error.code, 'ERR_RPC_PROTOCOL');
  }
  assert.equal(seen.length, 4, 'a refused body reloads nothing');
  fail = true;
  const failed = await post('{}');
  assert.equal(failed.statusCode, 503);
  assert.match(failed.json().error.message, /IAM reload failed: storage lacks read quorum/);
});

test('parseReloadBody caps the number of records', () => {
  const many = Array.from({ length: 1001 }, (_, i) => ({ kind: 'user', name: `u${i}` }));
  assert.throws(() => parseReloadBody({ changes: many }), /at most 1000/);
  assert.equal(parseReloadBody({ changes: many.slice(0, 1000) })?.length, 1000);
});

test('IamReloadNotifier: every peer is called; a dead, a hanging and a refusing peer are reported, never thrown', async (t) => {
  const got: Array<readonly IamReloadItem[] | undefined> = [];
  const live = await node(t, async (items) => { got.push(items); });
  // A port nobody listens on.
  const closed = Fastify();
  await closed.listen({ host: '127.0.0.1', port: 0 });
  const dead = `127.0.0.1:${(closed.server.address() as AddressInfo).port}`;
  await closed.close();
  // A peer that accepts the connection and never answers.
  const hanging = createServer(() => {});
  await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => { hanging.closeAllConnections(); hanging.close(() => r()); }));
  const slow = `127.0.0.1:${(hanging.address() as AddressInfo).port}`;
  // A peer with other credentials.
  const other = Fastify();
  await other.register(iamReloadPlugin, { credentials: { ...creds, secretKey: 'another-secret' }, reload: async () => {} });
  await other.listen({ host: '127.0.0.1', port: 0 });
  t.after(() => other.close());
  const refusing = `127.0.0.1:${(other.server.address() as AddressInfo).port}`;

  const failures: string[] = [];
  const notifier = new IamReloadNotifier({ peers: [live.addr, dead, slow, refusing], credentials: creds, timeoutMs: 300, onFailure: (n, why) => failures.push(`${n} ${why}`) });
  const outcomes = await notifier.notify([{ kind: 'service-account', name: 'sa1' }]);
  assert.deepEqual(got, [[{ kind: 'service-account', name: 'sa1' }]]);
  assert.deepEqual(outcomes.map((o) => [o.node, o.ok]), [[live.addr, true], [dead, false], [slow, false], [refusing, false]]);
  assert.match(failures.join('\n'), new RegExp(`${dead} ECONNREFUSED`));
  assert.match(failures.join('\n'), new RegExp(`${slow} no answer within 300 ms`));
  assert.match(failures.join('\n'), new RegExp(`${refusing} HTTP 403: a valid node token is required`));
  await notifier.notify();
  assert.deepEqual(got[1], undefined, 'no items: a full reload');
  assert.equal(got.length, 2);
});
