import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { RpcAuthError, RpcClient, makeRpcToken } from '../rpc/index.js';
import { createClusterLocking } from './cluster-locking.js';
import type { ClusterLocking, ClusterLockingOptions } from './cluster-locking.js';
import { LockLostError, LockQuorumError } from './lock-errors.js';
import { remoteLockerPeer } from './locker-peers.js';
import { lockPath } from './lock-protocol.js';

const creds = { accessKey: 'cluster-root', secretKey: 'cluster-secret-key' };
/** Fast back-off so contention tests take milliseconds; refresh effectively off unless a test turns it on. */
const FAST = { backoff: { baseMs: 2, jitterMs: 10, capMs: 50 }, acquireCallTimeoutMs: 2_000, refreshIntervalMs: 3_600_000 };

interface Node {
  id: string;
  origin: string;
  http: Server;
  app: FastifyInstance;
  locking: ClusterLocking;
  clients: RpcClient[];
  stop(): Promise<void>;
}

type Extra = Omit<ClusterLockingOptions, 'self' | 'peers' | 'credentials'>;

/** Starts `n` nodes on 127.0.0.1:0, each serving its lock table and locking over all of them. */
async function cluster(t: { after(fn: () => Promise<void>): void }, n: number, extra: Extra = {}): Promise<Node[]> {
  const servers = await Promise.all(Array.from({ length: n }, async () => {
    const http = createServer();
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    return http;
  }));
  const origins = servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`);
  const nodes: Node[] = [];
  for (const [i, http] of servers.entries()) {
    const clients = origins.filter((_, j) => j !== i).map((origin) => new RpcClient({ origin, credentials: creds, timeoutMs: 2_000 }));
    const peers = clients.map((client) => ({ id: client.origin, client }));
    const locking = createClusterLocking({ self: origins[i]!, peers, credentials: creds, ...extra, timing: { ...FAST, ...extra.timing } });
    const app = Fastify({ serverFactory: (handler) => http.on('request', handler) });
    await app.register(locking.plugin);
    await app.ready();
    let stopped = false;
    const stop = async (): Promise<void> => {
      if (stopped) return;
      stopped = true;
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    };
    nodes.push({ id: origins[i]!, origin: origins[i]!, http, app, locking, clients, stop });
  }
  t.after(async () => {
    for (const node of nodes) {
      await node.locking.close();
      await Promise.all(node.clients.map((c) => c.close()));
      await node.stop();
      await node.app.close();
    }
  });
  return nodes;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(what: string, cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000; i++) {
    if (cond()) return;
    await sleep(5);
  }
  assert.fail(`timed out waiting for ${what}`);
}

test('4 nodes: writers on every node never interleave inside the critical section', async (t) => {
  const nodes = await cluster(t, 4);
  let counter = 0;
  let inside = 0;
  let overlaps = 0;
  const worker = async (node: Node): Promise<void> => {
    for (let i = 0; i < 8; i++) {
      const unlock = await node.locking.locker.lock('bkt/contended');
      inside++;
      if (inside > 1) overlaps++;
      const seen = counter;
      await sleep(1);
      await new Promise((r) => setImmediate(r));
      counter = seen + 1;
      inside--;
      unlock();
    }
  };
  // Two workers per node: contention inside a node and across nodes.
  await Promise.all(nodes.flatMap((node) => [worker(node), worker(node)]));
  assert.equal(overlaps, 0);
  assert.equal(counter, 64, 'no increment lost');
  await until('every unlock delivered', () => nodes.every((n) => n.locking.server.entries().length === 0));
});

test('read locks are shared across nodes, write locks exclusive against readers and writers', async (t) => {
  const [a, b, c, d] = await cluster(t, 4);
  const r1 = await a!.locking.locker.rlock('bkt/k');
  const r2 = await b!.locking.locker.rlock('bkt/k');
  await assert.rejects(c!.locking.locker.acquire('bkt/k', { mode: 'write', timeoutMs: 150 }), LockQuorumError);
  r1();
  r2();
  const w = await c!.locking.locker.acquire('bkt/k', { mode: 'write', timeoutMs: 5_000 });
  await assert.rejects(d!.locking.locker.acquire('bkt/k', { mode: 'read', timeoutMs: 150 }), LockQuorumError);
  await assert.rejects(a!.locking.locker.acquire('bkt/k', { mode: 'write', timeoutMs: 150 }), (err: unknown) =>
    err instanceof LockQuorumError && err.code === 'ERR_WRITE_QUORUM' && /not granted by 3 of 4 lockers within 150 ms/.test(err.message));
  const other = await d!.locking.locker.lock('bkt/other');
  other();
  w.unlock();
  (await d!.locking.locker.rlock('bkt/k'))();
});

test('a dead locker: write locks granted by 3 of 4; with 2 of 4 they fail fast and lockReady is false', async (t) => {
  const nodes = await cluster(t, 4);
  const [a] = nodes;
  assert.equal(await a!.locking.lockReady(), true);
  await nodes[3]!.stop();
  assert.equal(await a!.locking.lockReady(), true);
  assert.deepEqual(await a!.locking.lockStatus(), { lockers: 4, online: 3, writeQuorum: 3, readQuorum: 2, ready: true });
  const unlock = await a!.locking.locker.lock('bkt/k');
  await assert.rejects(nodes[1]!.locking.locker.acquire('bkt/k', { timeoutMs: 150 }), LockQuorumError, 'still exclusive');
  unlock();
  await nodes[2]!.stop();
  assert.equal(await a!.locking.lockReady(), false);
  assert.equal(await nodes[1]!.locking.lockReady(), false);
  await assert.rejects(a!.locking.locker.lock('bkt/k2'), (err: unknown) =>
    err instanceof LockQuorumError && /lock quorum unavailable: 2 of 4 lockers reachable, 3 needed/.test(err.message));
  assert.deepEqual(a!.locking.server.entries(), [], 'the partial grant was released');
  const read = await a!.locking.locker.rlock('bkt/k2');
  read();
});

test('a hung locker costs one call deadline, never a hang: locks, unlocks and lockReady go on with 3 of 4', async (t) => {
  const nodes = await cluster(t, 4, { timing: { acquireCallTimeoutMs: 1_500, refreshCallTimeoutMs: 1_500, unlockCallTimeoutMs: 2_000 } });
  const [a, b] = nodes;
  const hung = nodes[3]!.http;
  hung.removeAllListeners('request');
  hung.on('request', () => undefined);
  const lease = await a!.locking.locker.acquire('bkt/k');
  assert.deepEqual(await a!.locking.lockStatus(), { lockers: 4, online: 3, writeQuorum: 3, readQuorum: 2, ready: true });
  await assert.rejects(b!.locking.locker.acquire('bkt/k', { timeoutMs: 2_000 }), LockQuorumError);
  lease.unlock();
  (await b!.locking.locker.lock('bkt/k'))();
  await until('unlocks delivered to the live lockers', () => nodes.slice(0, 3).every((n) => n.locking.server.entries().length === 0));
});

test('a lock whose holder stops refreshing expires after the validity; refreshing keeps it alive', async (t) => {
  const clock = { now: 1_000_000 };
  const nodes = await cluster(t, 4, { now: () => clock.now, timing: { refreshIntervalMs: 10 } });
  const [a, b] = nodes;
  const lease = await a!.locking.locker.acquire('bkt/refreshed');
  const held = (): number[] => nodes.flatMap((n) => n.locking.server.entries().map((e) => e.writer?.refreshed ?? 0));
  for (let step = 1; step <= 3; step++) {
    clock.now += 50_000;
    const now = clock.now;
    await until(`refresh ${step}`, () => held().filter((r) => r === now).length >= 3);
    for (const n of nodes) n.locking.server.expire();
  }
  assert.equal(lease.signal.aborted, false);
  await assert.rejects(b!.locking.locker.acquire('bkt/refreshed', { timeoutMs: 100 }), LockQuorumError, 'alive after 150 s of clock');
  lease.unlock();

  // A holder that vanished (granted directly on the tables, never refreshed) blocks until the validity has passed.
  for (const n of nodes) n.locking.server.lock({ resource: 'bkt/orphan', uid: 'dead-node-uid', owner: 'node-gone' });
  await assert.rejects(b!.locking.locker.acquire('bkt/orphan', { timeoutMs: 100 }), LockQuorumError);
  clock.now += 59_000;
  await assert.rejects(b!.locking.locker.acquire('bkt/orphan', { timeoutMs: 100 }), LockQuorumError);
  clock.now += 2_000;
  for (const n of nodes) assert.equal(n.locking.server.expire(), 1);
  (await b!.locking.locker.lock('bkt/orphan'))();
});

test('lock loss: gone on one locker is tolerated, on two of four the lease signal aborts and the callback runs', async (t) => {
  const clock = { now: 1_000_000 };
  const lost: [string, string, unknown][] = [];
  const nodes = await cluster(t, 4, { now: () => clock.now, timing: { refreshIntervalMs: 10 }, onLockLost: (r, m, e) => lost.push([r, m, e]) });
  const [a] = nodes;
  const lease = await a!.locking.locker.acquire('bkt/lost');
  const refreshedAt = (now: number): number => nodes.filter((n) => n.locking.server.entries()[0]?.writer?.refreshed === now).length;
  await until('granted on every locker', () => nodes.every((n) => n.locking.server.entries().length === 1));
  assert.equal(await nodes[3]!.locking.locker.forceUnlock('nothing/here'), 0);
  assert.equal(nodes[3]!.locking.server.forceUnlock('bkt/lost'), true);
  for (let cycle = 0; cycle < 3; cycle++) {
    clock.now += 1_000;
    const now = clock.now;
    await until('a refresh cycle', () => refreshedAt(now) === 3);
  }
  assert.equal(lease.signal.aborted, false, 'not found on 1 of 4 ≤ n − quorum');
  assert.equal(nodes[2]!.locking.server.forceUnlock('bkt/lost'), true);
  await until('lock loss', () => lease.signal.aborted);
  assert.ok(lease.signal.reason instanceof LockLostError);
  assert.match((lease.signal.reason as Error).message, /"bkt\/lost" was lost: 2 of 4 lockers no longer hold it/);
  assert.equal(lost.length, 1);
  assert.deepEqual(lost[0]!.slice(0, 2), ['bkt/lost', 'write']);
  lease.unlock();
  await until('unlock delivered', () => nodes.every((n) => n.locking.server.entries().length === 0));
  assert.equal(await a!.locking.locker.forceUnlock('bkt/lost'), 0);
  // The storage engine's port: the unlock function carries the lease's signal (checked before every commit).
  const unlock = await a!.locking.locker.lock('bkt/port');
  assert.ok(unlock.signal instanceof AbortSignal);
  assert.equal(unlock.signal.aborted, false);
  unlock();
});

test('without a valid node token the lock routes answer 403 and the lock table does not change', async (t) => {
  const [a] = await cluster(t, 2);
  const wrong = `Bearer ${makeRpcToken({ ...creds, secretKey: 'another-secret' }, Date.now())}`;
  for (const op of ['lock', 'rlock', 'unlock', 'runlock', 'refresh', 'force-unlock', 'health'] as const) {
    for (const authorization of [undefined, wrong, 'Bearer junk']) {
      const res = await request(`${a!.origin}${lockPath(op)}`, {
        method: 'POST', body: JSON.stringify({ args: ['bkt/k', 'uid-1', 'intruder'] }),
        headers: { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) },
      });
      assert.equal(res.statusCode, 403, `${op} with ${authorization ?? 'no token'}`);
      assert.deepEqual(await res.body.json(), { error: { code: 'ERR_RPC_AUTH', message: 'a valid node token is required' } });
    }
  }
  assert.deepEqual(a!.locking.server.entries(), []);
  const intruder = new RpcClient({ origin: a!.origin, credentials: { ...creds, secretKey: 'another-secret' } });
  t.after(() => intruder.close());
  await assert.rejects(remoteLockerPeer('a', intruder).lock({ resource: 'bkt/k', uid: 'u', owner: 'x' }), RpcAuthError);
  assert.deepEqual(a!.locking.server.entries(), []);

  const peer = new RpcClient({ origin: a!.origin, credentials: creds });
  t.after(() => peer.close());
  await assert.rejects(peer.call(lockPath('lock'), ['bkt/k']), /lock needs \{"args":\[…\]\} with 3 values/);
  await assert.rejects(peer.call(lockPath('unlock'), ['', 'u']), /resource must be a non-empty string/);
  await assert.rejects(peer.call('/svc/peer/lock/steal', []), /unknown lock RPC route/);
  assert.equal(await remoteLockerPeer('a', peer).lock({ resource: 'bkt/k', uid: 'u', owner: 'x' }), true);
  assert.equal(a!.locking.server.entries()[0]?.writer?.owner, 'x');
});

test('a single node locks in-process like LocalLocker: FIFO writers, shared readers, no lock table traffic', async (t) => {
  const [solo] = await cluster(t, 1);
  const locker = solo!.locking.locker;
  assert.equal(await solo!.locking.lockReady(), true);
  const order: number[] = [];
  const first = await locker.lock('bkt/k');
  const waiters = [1, 2, 3].map((i) => locker.lock('bkt/k').then((unlock) => { order.push(i); unlock(); }));
  await sleep(5);
  assert.deepEqual(order, []);
  assert.deepEqual(solo!.locking.server.entries(), []);
  first();
  await Promise.all(waiters);
  assert.deepEqual(order, [1, 2, 3]);
  const [r1, r2] = await Promise.all([locker.rlock('bkt/k'), locker.rlock('bkt/k')]);
  await assert.rejects(locker.acquire('bkt/k', { timeoutMs: 50 }), LockQuorumError);
  r1!();
  r2!();
  (await locker.lock('bkt/k'))();
});
