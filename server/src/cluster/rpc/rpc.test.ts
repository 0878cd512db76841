import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { cp, mkdtemp, readdir, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { FileNotFoundError, LocalDrive, VolumeExistsError, VolumeNotFoundError, readBuffers } from '../../storage/index.js';
import { pinMetadataFileLayout } from '../../../test/helpers/drive-records.js';
import type { Drive } from '../../storage/index.js';
import { makeRpcToken } from './auth.js';
import { RpcClient } from './client.js';
import { RPC_PROTOCOL_VERSION, RPC_VERSION_HEADER, SHARD_READ, SHARD_WRITE, drivePath } from './protocol.js';
import { RpcAuthError, RpcProtocolError, RpcUnavailableError } from './rpc-errors.js';
import { rpcPlugin } from './server-plugin.js';

const creds = { accessKey: 'cluster-root', secretKey: 'cluster-secret-key' };

async function serve(t: { after(fn: () => Promise<void>): void }): Promise<{ app: FastifyInstance; origin: string; root: string }> {
  const root = await mkdtemp(join(tmpdir(), 'svc-rpc-'));
  const drive = new LocalDrive(root);
  await drive.writeFormat(Buffer.from('{"format":"test"}'));
  const app = Fastify();
  await app.register(rpcPlugin, { credentials: creds, drives: new Map([[root, drive]]) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  t.after(async () => { await app.close(); await rm(root, { recursive: true, force: true, maxRetries: 5 }); });
  return { app, origin: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, root };
}

test('without a valid node token every /svc/rpc/ route answers 403 with a JSON error and no data', async (t) => {
  const { origin, root } = await serve(t);
  const path = drivePath(root, 'readFormat');
  const wrong = `Bearer ${makeRpcToken({ ...creds, secretKey: 'another-secret' }, Date.now())}`;
  for (const [method, url, authorization] of [
    ['POST', path, undefined], ['POST', path, wrong], ['POST', path, 'Bearer junk'], ['GET', '/svc/rpc/anything', undefined],
    ['PUT', drivePath(root, SHARD_WRITE), wrong],
  ] as const) {
    const res = await request(`${origin}${url}`, {
      method, headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
      ...(method === 'GET' ? {} : { body: JSON.stringify({ args: [] }) }),
    });
    const body = await res.body.text();
    assert.equal(res.statusCode, 403, `${method} ${url}`);
    assert.deepEqual(JSON.parse(body), { error: { code: 'ERR_RPC_AUTH', message: 'a valid node token is required' } });
    assert.ok(!body.includes('test'), 'no drive data in the answer');
  }
  const other = new RpcClient({ origin, credentials: { ...creds, secretKey: 'another-secret' } });
  t.after(() => other.close());
  await assert.rejects(other.call(path, []), (err: unknown) => err instanceof RpcAuthError && /same root credentials/.test((err as Error).message));
});

test('a valid token with another protocol version is refused; unknown methods and drives are typed errors', async (t) => {
  const { origin, root } = await serve(t);
  const res = await request(`${origin}${drivePath(root, 'readFormat')}`, {
    method: 'POST', body: '{"args":[]}',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${makeRpcToken(creds, Date.now())}`, [RPC_VERSION_HEADER]: '0' },
  });
  assert.equal(res.statusCode, 400);
  assert.equal(((await res.body.json()) as { error: { code: string } }).error.code, 'ERR_RPC_PROTOCOL');
  const c = new RpcClient({ origin, credentials: creds });
  t.after(() => c.close());
  await assert.rejects(c.call(drivePath(root, 'constructor'), []), /unknown drive method constructor/);
  await assert.rejects(c.call(drivePath('/not/served', 'readFormat'), []), (err: Error) => err.name === 'DiskNotFoundError');
  assert.equal(RPC_PROTOCOL_VERSION, '2');
});

test('JSON calls round-trip values and buffers; drive errors come back as the same classes', async (t) => {
  const { origin, root } = await serve(t);
  const c = new RpcClient({ origin, credentials: creds });
  t.after(() => c.close());
  assert.deepEqual(await c.call(drivePath(root, 'readFormat'), []), Buffer.from('{"format":"test"}'));
  assert.equal(await c.call(drivePath(root, 'makeVolume'), ['bkt', Buffer.from([0, 1, 255])]), null);
  await assert.rejects(c.call(drivePath(root, 'makeVolume'), ['bkt', Buffer.alloc(0)]), VolumeExistsError);
  await assert.rejects(c.call(drivePath(root, 'statVolume'), ['nope']), (err: unknown) => err instanceof VolumeNotFoundError && /nope/.test((err as Error).message));
  assert.deepEqual(await c.call(drivePath(root, 'listVolumes'), []), [{ name: 'bkt', meta: Buffer.from([0, 1, 255]) }]);
  await assert.rejects(c.call(drivePath(root, 'readMeta'), ['bkt', 'missing/key']), FileNotFoundError);
  await assert.rejects(c.call(drivePath(root, 'readSysFile'), ['../../etc/passwd']), (err: Error) => err.name === 'InvalidDrivePathError');
});

test('shard data streams up and is read back by range', async (t) => {
  const { origin, root } = await serve(t);
  const c = new RpcClient({ origin, credentials: creds });
  t.after(() => c.close());
  const up = c.upload(`${drivePath(root, SHARD_WRITE)}?path=${encodeURIComponent('tmp/u1/part.1')}`);
  const block = Buffer.alloc(700 * 1024);
  for (let i = 0; i < 8; i++) {
    block.fill(i);
    await up.write([block.subarray(0, 100), block.subarray(100)]);
  }
  assert.equal(await up.finish(), null);
  const all = await c.call(drivePath(root, 'readSysFile'), ['tmp/u1/part.1']) as Buffer;
  assert.equal(all.length, 8 * 700 * 1024);
  for (let i = 0; i < 8; i++) assert.equal(all[i * 700 * 1024 + 5], i, 'each block kept its own bytes (written buffers were copied)');
  await c.call(drivePath(root, 'makeVolume'), ['bkt', Buffer.alloc(0)]);
  await c.call(drivePath(root, 'renameData'), ['bkt', 'k', Buffer.from('meta'), { srcDataPath: 'tmp/u1', dataDir: '0a1b2c3d-0000-4000-8000-000000000000' }]);
  const got = await c.fetchBytes(drivePath(root, SHARD_READ), ['bkt', 'k', '0a1b2c3d-0000-4000-8000-000000000000', 'part.1', 700 * 1024 * 3 - 2, 4]);
  assert.deepEqual([...got], [2, 2, 3, 3]);
  await assert.rejects(c.fetchBytes(drivePath(root, SHARD_READ), ['bkt', 'k', '0a1b2c3d-0000-4000-8000-000000000000', 'part.2', 0, 4]), FileNotFoundError);
  const refused = c.upload(`${drivePath(root, SHARD_WRITE)}?path=${encodeURIComponent('../escape')}`);
  await assert.rejects((async () => { await refused.write([Buffer.alloc(10)]); return refused.finish(); })(), (err: Error) => err.name === 'InvalidDrivePathError');
});

test('a shard read answered from a pooled read buffer hands the buffer back once the answer has finished', async (t) => {
  const sent = readBuffers.take(256 * 1024).fill(7);
  // Only what the shard-read route uses: a reader whose read answers from the pool, as LocalShardReader's direct reads do.
  const drive = { openShardReader: async () => ({ read: async () => sent, close: async () => undefined }) } as unknown as Drive;
  const app = Fastify();
  await app.register(rpcPlugin, { credentials: creds, drives: new Map([['/srv/pooled-drive', drive]]) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const c = new RpcClient({ origin: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, credentials: creds });
  t.after(async () => { await c.close(); await app.close(); });
  const before = readBuffers.freeBytes;
  const got = await c.fetchBytes(drivePath('/srv/pooled-drive', SHARD_READ), ['bkt', 'k', '0a1b2c3d-0000-4000-8000-000000000000', 'part.1', 0, sent.length]);
  assert.equal(got.length, sent.length);
  assert.ok(got.every((b) => b === 7));
  for (let i = 0; i < 100 && readBuffers.freeBytes === before; i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(readBuffers.freeBytes > before, 'the buffer went back to the pool');
  assert.equal(readBuffers.take(sent.length).buffer, sent.buffer, 'and is lent again');
});

test('a dead peer and a peer that never answers cost one deadline, as RpcUnavailableError', async (t) => {
  const sockets = new Set<Socket>();
  const silent: Server = createServer((s) => { sockets.add(s); s.on('error', () => undefined); });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  t.after(() => { for (const s of sockets) s.destroy(); silent.close(); });
  const hung = new RpcClient({ origin: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, credentials: creds, timeoutMs: 300 });
  t.after(() => hung.close());
  await assert.rejects(hung.call(drivePath('/d', 'readFormat'), []), (err: unknown) => err instanceof RpcUnavailableError && /within 300 ms/.test((err as Error).message));
  const up = hung.upload(`${drivePath('/d', SHARD_WRITE)}?path=x`);
  // The silent peer never reads: the socket buffers fill, then the write deadline fires.
  await assert.rejects((async () => {
    for (let i = 0; i < 1000; i++) await up.write([Buffer.alloc(1024 * 1024)]);
    return up.finish();
  })(), RpcUnavailableError);
  await up.abort();

  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const dead = new RpcClient({ origin: `http://127.0.0.1:${port}`, credentials: creds, timeoutMs: 300 });
  t.after(() => dead.close());
  await assert.rejects(dead.call(drivePath('/d', 'readFormat'), []), RpcUnavailableError);
  const deadUp = dead.upload(`${drivePath('/d', SHARD_WRITE)}?path=x`);
  await assert.rejects((async () => { await deadUp.write([Buffer.alloc(10)]); return deadUp.finish(); })(), RpcUnavailableError);
});

test("a peer's calls wait for the drive's commit-log replay (a node serves the RPC before it opens its drives)", async (t) => {
  // About the metadata-file layout's commit log and its replay: pinned to it on both passes of the suite (the key-index
  // layout has its own tests in storage/drive/key-index/ and indexed-objects.test.ts).
  pinMetadataFileLayout(t);
  const dirs: string[] = [];
  t.after(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true, maxRetries: 5 }); });
  const fresh = async (): Promise<string> => {
    const d = await mkdtemp(join(tmpdir(), 'svc-rpc-replay-'));
    dirs.push(d);
    return d;
  };
  const root = await fresh();
  const before = new LocalDrive(root);
  await before.writeFormat(Buffer.from('{}'));
  await before.cleanTemp();
  await before.makeVolume('b', Buffer.alloc(0));
  await before.renameData('b', 'k', Buffer.from('meta-k'), { srcDataPath: null, dataDir: null });
  assert.ok((await readdir(join(root, '.svc.sys', 'log'))).some((n) => n.endsWith('.log')), 'the record is still in a log');
  // Three crashed copies (the record in the log, the unsynced metadata file lost), served by a restarted node that
  // has not opened them (no cleanTemp, so no replay yet): two for the batch route, one for the single-call route.
  const copies: string[] = [];
  for (let i = 0; i < 3; i++) {
    const copy = await fresh();
    await cp(root, copy, { recursive: true });
    await unlink(join(copy, 'b', '+k', 'xl.meta'));
    copies.push(copy);
  }
  const app = Fastify();
  await app.register(rpcPlugin, { credentials: creds, drives: new Map(copies.map((d) => [d, new LocalDrive(d)])) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  t.after(() => app.close());
  const c = new RpcClient({ origin: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, credentials: creds });
  t.after(() => c.close());
  // Two drives in one tick: one batch request (call-batcher.ts).
  const batched = await Promise.all(copies.slice(0, 2).map((d) => c.driveCall(d, 'readMeta', ['b', 'k'])));
  assert.deepEqual(batched, [Buffer.from('meta-k'), Buffer.from('meta-k')]);
  assert.deepEqual(await c.call(drivePath(copies[2]!, 'readMeta'), ['b', 'k']), Buffer.from('meta-k'));
});

test('fetchBytes: an answer announcing more than a shard read holds is refused before anything is allocated', async (t) => {
  // A "peer" that announces 1 GiB (a broken or hostile node) and then sends a few bytes.
  const server = createServer((socket) => {
    socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ncontent-length: 1073741824\r\n\r\nabcd'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  const c = new RpcClient({ origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, credentials: creds, timeoutMs: 2_000 });
  t.after(() => c.close());
  let asked = 0;
  await assert.rejects(
    c.fetchBytes(drivePath('/srv/d1', SHARD_READ), ['bkt', 'k', 'd', 'part.1', 0, 4], (n) => { asked = n; return Buffer.alloc(n); }),
    (err: Error) => err instanceof RpcProtocolError && /announced 1073741824 bytes/.test(err.message),
  );
  assert.equal(asked, 0);
});
