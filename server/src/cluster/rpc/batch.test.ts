/**
 * Batched drive calls (protocol.ts `POST /svc/rpc/batch`, call-batcher.ts): calls made to one peer in the same tick
 * travel in one request, each keeps its own answer, and one hung drive is answered unavailable on its own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { request } from 'undici';
import { FileNotFoundError, LocalDrive, VolumeNotFoundError } from '../../storage/index.js';
import type { Drive } from '../../storage/index.js';
import { makeRpcToken } from './auth.js';
import { CallBatcher } from './call-batcher.js';
import type { BatchCall } from './protocol.js';
import { RpcClient } from './client.js';
import { MAX_BATCH_CALLS, RPC_BATCH_PATH, RPC_PROTOCOL_VERSION, RPC_VERSION_HEADER } from './protocol.js';
import { RpcProtocolError, RpcUnavailableError } from './rpc-errors.js';
import { rpcPlugin } from './server-plugin.js';

const creds = { accessKey: 'cluster-root', secretKey: 'cluster-secret-key' };

/** A node serving two real drives and one whose readFormat never answers; counts requests by URL. */
async function serve(t: { after(fn: () => Promise<void>): void }): Promise<{ origin: string; a: string; b: string; urls: string[] }> {
  const a = await mkdtemp(join(tmpdir(), 'svc-batch-a-'));
  const b = await mkdtemp(join(tmpdir(), 'svc-batch-b-'));
  const drives = new Map<string, Drive>([[a, new LocalDrive(a)], [b, new LocalDrive(b)]]);
  await drives.get(a)!.writeFormat(Buffer.from('format-a'));
  await drives.get(b)!.writeFormat(Buffer.from('format-b'));
  const hung = { readFormat: () => new Promise<Buffer>(() => undefined) } as unknown as Drive;
  drives.set('/hung', hung);
  const urls: string[] = [];
  const app = Fastify();
  app.addHook('onRequest', async (req) => { urls.push(req.url); });
  await app.register(rpcPlugin, { credentials: creds, drives });
  await app.listen({ host: '127.0.0.1', port: 0 });
  t.after(async () => {
    await app.close();
    await rm(a, { recursive: true, force: true, maxRetries: 5 });
    await rm(b, { recursive: true, force: true, maxRetries: 5 });
  });
  return { origin: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, a, b, urls };
}

test('calls made in the same tick go in one request; each gets its own value or typed error', async (t) => {
  const { origin, a, b, urls } = await serve(t);
  const c = new RpcClient({ origin, credentials: creds });
  t.after(() => c.close());
  const answers = await Promise.allSettled([
    c.driveCall(a, 'readFormat', []),
    c.driveCall(b, 'readFormat', []),
    c.driveCall(a, 'statVolume', ['nope']),
    c.driveCall(b, 'readMeta', ['bkt', 'missing']),
    c.driveCall('/not/served', 'readFormat', []),
  ]);
  // Two calls on drives a and b: the second ones go in a second request (one call per drive per request).
  assert.deepEqual(urls, [RPC_BATCH_PATH, RPC_BATCH_PATH]);
  assert.deepEqual(answers.slice(0, 2), [
    { status: 'fulfilled', value: Buffer.from('format-a') }, { status: 'fulfilled', value: Buffer.from('format-b') },
  ]);
  const reason = (i: number): unknown => (answers[i] as PromiseRejectedResult).reason;
  assert.ok(reason(2) instanceof VolumeNotFoundError);
  assert.ok(reason(3) instanceof FileNotFoundError, String(reason(3)));
  assert.equal((reason(4) as Error).name, 'DiskNotFoundError');
  // A lone call takes the single-call route.
  assert.deepEqual(await c.driveCall(a, 'readFormat', []), Buffer.from('format-a'));
  assert.equal(urls.length, 3);
  assert.match(urls[2]!, /\/svc\/rpc\/drive\/.*\/readFormat$/);
});

test('a hung drive is answered unavailable on its own, before the deadline of the whole request', async (t) => {
  const { origin, a } = await serve(t);
  const c = new RpcClient({ origin, credentials: creds, timeoutMs: 1_000 });
  t.after(() => c.close());
  const [hung, ok] = await Promise.allSettled([c.driveCall('/hung', 'readFormat', []), c.driveCall(a, 'readFormat', [])]);
  assert.deepEqual(ok, { status: 'fulfilled', value: Buffer.from('format-a') });
  const err = (hung as PromiseRejectedResult).reason as Error;
  assert.ok(err instanceof RpcUnavailableError, String(err));
  // The peer's own answer (our deadline would say "no answer to … within 1000 ms"): the other call was not held up.
  assert.match(err.message, /drive \/hung did not answer readFormat within 800 ms/);
});

test('a malformed batch is refused with ERR_RPC_PROTOCOL; unknown methods fail alone', async (t) => {
  const { origin, a } = await serve(t);
  const post = async (body: unknown): Promise<{ status: number; json: unknown }> => {
    const res = await request(`${origin}${RPC_BATCH_PATH}`, {
      method: 'POST', body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${makeRpcToken(creds, Date.now())}`, [RPC_VERSION_HEADER]: RPC_PROTOCOL_VERSION },
    });
    return { status: res.statusCode, json: await res.body.json() };
  };
  const call = { drive: a, method: 'readFormat', args: [] };
  for (const bad of [
    {}, { deadlineMs: 1000, calls: [] }, { deadlineMs: 1000, calls: Array.from({ length: MAX_BATCH_CALLS + 1 }, () => call) },
    { deadlineMs: 0, calls: [call] }, { deadlineMs: 1e9, calls: [call] }, { deadlineMs: 1000, calls: [{ drive: a }] }, { deadlineMs: 1000, calls: [null] },
  ]) {
    const r = await post(bad);
    assert.equal(r.status, 400, JSON.stringify(bad));
    assert.equal((r.json as { error: { code: string } }).error.code, 'ERR_RPC_PROTOCOL');
  }
  const mixed = await post({ deadlineMs: 1000, calls: [call, { drive: a, method: 'constructor', args: [] }] });
  assert.equal(mixed.status, 200);
  assert.deepEqual(mixed.json, { results: [
    { value: { $b: Buffer.from('format-a').toString('base64') } },
    { error: { code: 'ERR_RPC_PROTOCOL', message: 'unknown drive method constructor' } },
  ] });
});

test('CallBatcher: one request per tick, groups of at most MAX_BATCH_CALLS, a transport failure fails its group', async () => {
  const sent: BatchCall[][] = [];
  const singles: BatchCall[] = [];
  let fail = false;
  const b = new CallBatcher({
    single: async (c) => { singles.push(c); return `single ${c.method}`; },
    batch: async (calls) => {
      sent.push([...calls]);
      if (fail) throw new RpcUnavailableError('peer', 'down');
      return calls.map((c) => (c.method === 'bad' ? { ok: false as const, error: new RpcProtocolError('bad') } : { ok: true as const, value: c.drive }));
    },
  });
  const many = Array.from({ length: MAX_BATCH_CALLS + 2 }, (_, i) => b.call({ drive: `d${i}`, method: i === 3 ? 'bad' : 'readFormat', args: [] }));
  const res = await Promise.allSettled(many);
  assert.deepEqual(sent.map((g) => g.length), [MAX_BATCH_CALLS, 2]);
  assert.equal(singles.length, 0);
  assert.deepEqual(res[0], { status: 'fulfilled', value: 'd0' });
  assert.ok((res[3] as PromiseRejectedResult).reason instanceof RpcProtocolError);
  assert.deepEqual(res[MAX_BATCH_CALLS + 1], { status: 'fulfilled', value: `d${MAX_BATCH_CALLS + 1}` });
  // Several calls to one drive in a tick: the k-th call of each drive in the k-th request, in order.
  sent.length = 0;
  const perDrive = await Promise.all(['x', 'y', 'x', 'x', 'y'].map((drive, i) => b.call({ drive, method: 'readFormat', args: [i] })));
  assert.deepEqual(perDrive, ['x', 'y', 'x', 'single readFormat', 'y']);
  assert.deepEqual(sent.map((g) => g.map((c) => `${c.drive}${String(c.args[0])}`)), [['x0', 'y1'], ['x2', 'y4']]);
  assert.deepEqual(singles.map((c) => `${c.drive}${String(c.args[0])}`), ['x3']);
  singles.length = 0;
  sent.length = 0;
  // Calls of a later tick make a new request; a lone call goes alone.
  assert.equal(await b.call({ drive: 'x', method: 'diskInfo', args: [] }), 'single diskInfo');
  fail = true;
  const down = await Promise.allSettled([b.call({ drive: 'p', method: 'readFormat', args: [] }), b.call({ drive: 'q', method: 'readFormat', args: [] })]);
  assert.ok(down.every((r) => r.status === 'rejected' && r.reason instanceof RpcUnavailableError));
  assert.equal(sent.length, 1);
  assert.deepEqual(singles.map((c) => c.drive), ['x']);
});
