import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import {
  DiskNotFoundError, FileCorruptError, FileNotFoundError, InsufficientReadQuorumError, InsufficientWriteQuorumError, LocalDrive, forgetCachedMeta,
  openStorage, readBuffers,
} from '../storage/index.js';
import type { ChildState, Drive, Storage } from '../storage/index.js';
import { REMOTE_SPAN, RemoteDrive } from './remote-drive.js';
import { RpcClient, rpcPlugin } from './rpc/index.js';
import { removeRecord } from '../../test/helpers/drive-records.js';

const creds = { accessKey: 'cluster-root', secretKey: 'cluster-secret-key' };
const META = { system: {}, user: {} };

/** A deterministic body of `size` bytes. */
function body(size: number, seed: number): Buffer {
  const b = Buffer.allocUnsafe(size);
  let x = seed >>> 0;
  for (let i = 0; i < size; i++) { x = (x * 1103515245 + 12345) >>> 0; b[i] = x >>> 24; }
  return b;
}

async function read(st: Storage, key: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of (await st.openObject('bkt', key)).read()) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

const md5 = (b: Buffer): string => createHash('md5').update(b).digest('hex');

interface Node { app: FastifyInstance; client: RpcClient; drives: RemoteDrive[] }

/**
 * One set of 6 drives: 2 local to "this node", 2 on node A, 2 on node B (each a fastify instance serving LocalDrives
 * over rpcPlugin on 127.0.0.1:0). EC 4+2: read quorum 4, write quorum 4.
 */
async function cluster(t: { after(fn: () => Promise<void>): void }): Promise<{ open(): Promise<Storage>; a: Node; b: Node }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-remote-'));
  const opened: Storage[] = [];
  const nodes: Node[] = [];
  t.after(async () => {
    for (const s of opened) await s.close().catch(() => undefined);
    for (const n of nodes) { await n.client.close(); await n.app.close(); }
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  });
  const node = async (name: string): Promise<Node> => {
    const paths = [join(dir, `${name}1`), join(dir, `${name}2`)];
    for (const p of paths) await mkdir(p);
    const app = Fastify();
    await app.register(rpcPlugin, { credentials: creds, drives: new Map(paths.map((p) => [p, new LocalDrive(p)])) });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const client = new RpcClient({ origin: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, credentials: creds, timeoutMs: 2_000 });
    const n = { app, client, drives: paths.map((path) => new RemoteDrive({ client, path })) };
    nodes.push(n);
    return n;
  };
  const a = await node('a');
  const b = await node('b');
  const local = [join(dir, 'l1'), join(dir, 'l2')];
  for (const p of local) await mkdir(p);
  const drives: Drive[] = [new LocalDrive(local[0]!), a.drives[0]!, b.drives[0]!, new LocalDrive(local[1]!), a.drives[1]!, b.drives[1]!];
  return {
    a, b,
    async open() {
      const st = await openStorage({ sets: [drives.map((d) => d.endpoint)], drives: [drives], parity: 2, driveCheckIntervalMs: 3_600_000 });
      opened.push(st);
      return st;
    },
  };
}

test('RemoteDrive: errors keep their class; a dead peer is an offline drive (DiskNotFoundError)', async (t) => {
  const c = await cluster(t);
  const st = await c.open();
  await st.close();
  const d = c.a.drives[0]!;
  assert.equal(d.isLocal, false);
  assert.match(d.endpoint, /^http:\/\/127\.0\.0\.1:\d+\/.+a1$/);
  await assert.rejects(d.readMeta('nobucket', 'k'), FileNotFoundError);
  const reader = await d.openShardReader('nobucket', 'k', '0a1b2c3d-0000-4000-8000-000000000000', 'part.1');
  await assert.rejects(reader.read(0, 10), FileNotFoundError);
  await c.a.app.close();
  await assert.rejects(d.readFormat(), (err: unknown) => err instanceof DiskNotFoundError && err.message.includes(d.endpoint));
  const w = await d.createShardWriter('tmp/x/part.1');
  await assert.rejects(async () => { await w.write([Buffer.alloc(8)]); await w.close(); }, DiskNotFoundError);
  await w.abort();
});

test('openStorage over local + remote drives: put/get/list/multipart, then a node loss and a second one', async (t) => {
  const c = await cluster(t);
  const st = await c.open();
  await st.makeBucket('bkt');
  const small = body(1000, 1);
  const large = body(5 * 1024 * 1024 + 12345, 2);
  await st.putObject('bkt', 'dir/small', Readable.from([small]), { size: small.length, metadata: META });
  await st.putObject('bkt', 'dir/large', Readable.from([large]), { size: large.length, metadata: META });
  assert.equal(md5(await read(st, 'dir/small')), md5(small));
  assert.equal(md5(await read(st, 'dir/large')), md5(large));
  const ranged: Buffer[] = [];
  for await (const ch of (await st.openObject('bkt', 'dir/large')).read({ start: 1_000_000, end: 3_100_000 })) ranged.push(ch as Buffer);
  assert.ok(Buffer.concat(ranged).equals(large.subarray(1_000_000, 3_100_001)));

  const uploadId = await st.createMultipartUpload('bkt', 'mp', { metadata: META });
  const p1 = body(5 * 1024 * 1024, 3);
  const p2 = body(777, 4);
  const e1 = await st.putObjectPart('bkt', 'mp', uploadId, 1, Readable.from([p1]), { size: p1.length });
  const e2 = await st.putObjectPart('bkt', 'mp', uploadId, 2, Readable.from([p2]), { size: p2.length });
  await st.completeMultipartUpload('bkt', 'mp', uploadId, [{ partNumber: 1, etag: e1.etag }, { partNumber: 2, etag: e2.etag }]);
  assert.equal(md5(await read(st, 'mp')), md5(Buffer.concat([p1, p2])));
  const list = await st.listObjects('bkt', { prefix: '', delimiter: '/', startAfter: '', maxKeys: 1000 });
  assert.deepEqual([list.objects.map((o) => o.key), list.commonPrefixes], [['mp'], ['dir/']]);

  // Node A goes away: 4 of 6 drives left = read and write quorum. Reads decode from parity, writes still land.
  await c.a.app.close();
  assert.equal(md5(await read(st, 'dir/large')), md5(large));
  assert.equal(md5(await read(st, 'mp')), md5(Buffer.concat([p1, p2])));
  const during = body(2 * 1024 * 1024, 5);
  await st.putObject('bkt', 'during', Readable.from([during]), { size: during.length, metadata: META });
  assert.equal(md5(await read(st, 'during')), md5(during));
  const h = await st.health();
  assert.deepEqual([h.onlineDrives, h.offlineDrives, h.writable, h.readable], [4, 2, true, true]);

  // Node B too: 2 of 6 left, below both quorums: typed errors, promptly (connection refused, or the 2 s deadline).
  await c.b.app.close();
  await assert.rejects(read(st, 'dir/large'), InsufficientReadQuorumError);
  await assert.rejects(st.putObject('bkt', 'after', Readable.from([small]), { size: small.length, metadata: META }), InsufficientWriteQuorumError);
});

/** Records the shard reads a node's client sends: drive path and arguments. */
function recordShardReads(n: Node, stripUpTo = false): { path: string; args: unknown[] }[] {
  const seen: { path: string; args: unknown[] }[] = [];
  const client = n.client as unknown as { fetchBytes(path: string, args: readonly unknown[], alloc?: (length: number) => Buffer): Promise<Buffer> };
  const send = client.fetchBytes.bind(client);
  client.fetchBytes = (path, args, alloc) => {
    // stripUpTo: the node answers as one of an earlier version, which reads only the bytes asked for.
    const sent = stripUpTo ? args.slice(0, 6) : args;
    seen.push({ path, args: [...sent] });
    return send(path, sent, alloc);
  };
  return seen;
}

/** The test cluster with one object `bkt/big` of `size` bytes written through it. */
async function withBigObject(t: { after(fn: () => Promise<void>): void }, size: number, seed: number): Promise<{ c: Awaited<ReturnType<typeof cluster>>; st: Storage; big: Buffer }> {
  const c = await cluster(t);
  const st = await c.open();
  await st.makeBucket('bkt');
  const big = body(size, seed);
  await st.putObject('bkt', 'big', Readable.from([big]), { size: big.length, metadata: META });
  return { c, st, big };
}

test('a shard read in block order asks the peer for spans of whole chunks, not one request per chunk', async (t) => {
  // 10 blocks of 1 MiB on 4 data shards: chunks of 256 KiB back to back and their hashes after them (the trailing
  // bitrot layout), 4 chunks per REMOTE_SPAN.
  const { c, st, big } = await withBigObject(t, 9 * 1024 * 1024 + 4321, 6);
  const seen = [c.a, c.b].map((n) => recordShardReads(n));
  assert.equal(md5(await read(st, 'big')), md5(big));
  const perFile = new Map<string, number>();
  for (const r of seen.flat()) perFile.set(r.path, (perFile.get(r.path) ?? 0) + 1);
  // Two of the four data shards at least live on the remote nodes.
  assert.ok(perFile.size >= 2, JSON.stringify([...perFile]));
  // The first chunk alone (a first read never asks for more), the hash table, the second chunk alone (the table's read
  // came between), then spans from blocks 2 and 6: 5 requests, not 11.
  for (const [path, n] of perFile) assert.equal(n, 5, path);
  const spans = seen.flat().filter((r) => r.args.length === 7);
  assert.equal(spans.length, 2 * perFile.size);
  for (const r of spans) assert.equal(r.args[6], 4 * 256 * 1024);
  assert.ok(4 * 256 * 1024 <= REMOTE_SPAN);

  // A range inside the object: in order after its first chunk, and the bytes are the range's.
  const ranged: Buffer[] = [];
  for await (const ch of (await st.openObject('bkt', 'big')).read({ start: 2_500_000, end: 8_000_000 })) ranged.push(ch as Buffer);
  assert.ok(Buffer.concat(ranged).equals(big.subarray(2_500_000, 8_000_001)));
});

test('a peer that ignores spans still serves every read; a span stops at the end of the file, short of `length` it fails', async (t) => {
  const { c, st, big } = await withBigObject(t, 6 * 1024 * 1024 + 99, 7);
  // The shard file of node A's first drive, read through the RPC with and without upTo.
  const d = c.a.drives[0]!;
  const root = decodeURIComponent(new URL(d.endpoint).pathname);
  const part = (await readdir(join(root, 'bkt'), { recursive: true })).find((p) => p.endsWith('/part.1'))!;
  const file = await readFile(join(root, 'bkt', part));
  const args = ['bkt', 'big', basename(dirname(part)), 'part.1'];
  assert.ok((await d.readShardRange(args, 0, 10, 64)).equals(file.subarray(0, 64)));
  assert.ok((await d.readShardRange(args, file.length - 100, 50, REMOTE_SPAN)).equals(file.subarray(file.length - 100)));
  assert.ok((await d.readShardRange(args, 5, 40)).equals(file.subarray(5, 45)));
  await assert.rejects(d.readShardRange(args, file.length - 100, 200, REMOTE_SPAN), FileCorruptError);
  await assert.rejects(d.readShardRange(args, 0, 100, 99), /shard-read needs/);

  // Every chunk asked for on its own when the peers ignore upTo: 7 blocks, two remote data shards at least.
  const seen = [c.a, c.b].map((n) => recordShardReads(n, true));
  assert.equal(md5(await read(st, 'big')), md5(big));
  assert.ok(seen.flat().length >= 2 * 7, 'a chunk per request');
});

test('each read gets its own copy of its bytes, and a dropped span goes back to the read-buffer pool', async (t) => {
  // 4 blocks of 1 MiB on 4 data shards: chunks of 256 KiB + 32, read in order through node A's first drive.
  const { c } = await withBigObject(t, 4 * 1024 * 1024, 8);
  const d = c.a.drives[0]!;
  const root = decodeURIComponent(new URL(d.endpoint).pathname);
  const part = (await readdir(join(root, 'bkt'), { recursive: true })).find((p) => p.endsWith('/part.1'))!;
  const file = await readFile(join(root, 'bkt', part));
  const chunk = 256 * 1024 + 32;
  const reader = await d.openShardReader('bkt', 'big', basename(dirname(part)), 'part.1');
  // The first read asks for its own bytes; the next three come from one span of three chunks.
  const got: Buffer[] = [];
  for (let i = 0; i < 4; i++) got.push(await reader.read(i * chunk, chunk, true));
  await reader.close();
  for (let i = 0; i < 4; i++) assert.ok(got[i]!.equals(file.subarray(i * chunk, (i + 1) * chunk)), `chunk ${i}`);
  // No two reads share memory: a consumer hands each chunk's buffer back on its own (engine/recycling-stream.ts).
  assert.equal(new Set(got.map((b) => b.buffer)).size, 4);
  // The span went back to the pool at close: the next buffer of its size is its memory, still holding its bytes...
  const reused = readBuffers.take(3 * chunk);
  assert.ok(reused.equals(file.subarray(chunk, 4 * chunk)), 'the span\'s buffer is lent again');
  // ...and the reads handed out before do not change with it.
  reused.fill(0);
  for (let i = 0; i < 4; i++) assert.ok(got[i]!.equals(file.subarray(i * chunk, (i + 1) * chunk)), `chunk ${i} after reuse`);
  for (const b of got) readBuffers.recycle(b);
});

test('RemoteDrive: the listing calls (scanDir, readChildren) answer as the drive itself, one round trip per batch', async (t) => {
  const c = await cluster(t);
  const st = await c.open();
  await st.makeBucket('bkt');
  const keys = Array.from({ length: 45 }, (_, i) => `p/${String(i).padStart(2, '0')}`).concat('p/07/sub', `p/${'q'.repeat(300)}`);
  for (const k of keys) await st.putObject('bkt', k, Readable.from([Buffer.from(k)]), { size: k.length, metadata: META });
  const remote = c.a.drives[0]!;
  const local = new LocalDrive(remote.endpoint.slice(c.a.client.origin.length));
  const names = ['00', '07', 'q'.repeat(300), 'missing'];
  // Stamps carry the time they were taken: the answers are compared without them.
  const unstamped = (cs: ChildState[]): ChildState[] => cs.map(({ stamp: _stamp, ...c }) => c);
  const answered = await remote.readChildren('bkt', 'p/', names, true);
  assert.deepEqual(unstamped(answered), unstamped(await local.readChildren('bkt', 'p/', names, true)));
  // A stamp travels back over the RPC and is honoured there: unchanged children are not sent again.
  const again = await remote.readChildren('bkt', 'p/', names, true, answered.map((x) => x.stamp ?? null));
  assert.deepEqual(again.map((x) => [x.same === true, x.meta]), names.map(() => [true, null]));
  await assert.rejects(remote.readChildren('bkt', 'p/', names, true, ['x']), (err: unknown) => (err as Error).name === 'InvalidDrivePathError');
  assert.deepEqual((await remote.readChildren('bkt', 'p/', names, false)).map((x) => x.children), [false, true, false, false]);
  const scan = await remote.scanDir('bkt', 'p/', null);
  assert.deepEqual(scan.names?.sort(), (await local.listDir('bkt', 'p/')).sort());
  await assert.rejects(remote.readChildren('bkt', 'p/', ['a/b'], true), (err: unknown) => (err as Error).name === 'InvalidDrivePathError');
  const seen: string[] = [];
  let startAfter = '';
  for (;;) {
    const page = await st.listObjects('bkt', { prefix: 'p/', delimiter: '', startAfter, maxKeys: 10 });
    seen.push(...page.objects.map((o) => o.key));
    if (!page.isTruncated) break;
    startAfter = page.nextMarker!;
  }
  assert.deepEqual(seen, [...keys].sort());
  assert.equal(seen.length, 47);
});

test('a cached read travels to the drive owner: changes through any node show at once, the owner answers repeats from memory', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'svc-remote-cache-'));
  const owner = new LocalDrive(root);
  await owner.writeFormat(Buffer.from('{}'));
  await owner.makeVolume('bkt', Buffer.alloc(0));
  const app = Fastify();
  await app.register(rpcPlugin, { credentials: creds, drives: new Map([[root, owner]]) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const clients = [new RpcClient({ origin, credentials: creds }), new RpcClient({ origin, credentials: creds })];
  t.after(async () => {
    for (const c of clients) await c.close();
    await app.close();
    await rm(root, { recursive: true, force: true, maxRetries: 5 });
  });
  const [here, there] = clients.map((client) => new RemoteDrive({ client, path: root })) as [RemoteDrive, RemoteDrive];
  const noData = { srcDataPath: null, dataDir: null };
  assert.equal(await there.renameData('bkt', 'k', Buffer.from('v1'), { ...noData, returnPrevious: true }), null);
  assert.deepEqual(await there.renameData('bkt', 'k', Buffer.from('v1'), { ...noData, returnPrevious: true }), Buffer.from('v1'), 'the replaced record comes back over the RPC');
  assert.equal(await there.renameData('bkt', 'k', Buffer.from('v1'), noData), null);
  assert.deepEqual(await here.readMeta('bkt', 'k', { cached: true }), Buffer.from('v1'));
  await there.renameData('bkt', 'k', Buffer.from('v2'), noData);
  assert.deepEqual(await here.readMeta('bkt', 'k', { cached: true }), Buffer.from('v2'), "another node's overwrite");
  // Removed behind the owner's back: its cache still answers a cached read, a plain read goes to the disk.
  await removeRecord(root, 'bkt', 'k');
  assert.deepEqual(await here.readMeta('bkt', 'k', { cached: true }), Buffer.from('v2'));
  await assert.rejects(here.readMeta('bkt', 'k'), FileNotFoundError);
  forgetCachedMeta();
  await assert.rejects(here.readMeta('bkt', 'k', { cached: true }), FileNotFoundError);
});
