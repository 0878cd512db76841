/**
 * Issue 4 on real node processes (4 nodes × 4 drives on 127.0.0.1–4, one pool, one set of 16, EC:4 → read and
 * write quorum 12; test/cluster/helpers/cluster.ts runs each node in its own mount namespace):
 * Must show 1 (any node serves the SDK, byte-exact, same listing), Must show 6 (403 on /svc/rpc and /svc/peer
 * without a valid node token), Must show 2 (one node lost: service and probes; two lost: fast 503s and
 * truthful readiness; both back: ready, intact, healed), Must show 5 (other credentials or drive list refused).
 * One cluster for the whole file: each test starts where the previous one left it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import {
  CreateBucketCommand, GetBucketVersioningCommand, GetObjectCommand, ListObjectsV2Command, PutBucketVersioningCommand, PutObjectCommand,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { RPC_PROTOCOL_VERSION, makeRpcToken } from '../../src/cluster/index.js';
import { readRecordOnDisk, readRecordsOnDisk } from '../helpers/drive-records.js';
import { bodyBytes, eventually } from '../helpers/s3-client.js';
import { nodeClients, startCluster, type TestCluster } from './helpers/cluster.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const BUCKET = 'cluster';

let c: TestCluster;
const clients = nodeClients(() => c);
const s3 = clients.s3;
const objects = new Map<string, string>();

async function put(i: number, key: string, body: Buffer): Promise<void> {
  await s3(i).send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
  objects.set(key, sha(body));
}

async function readSha(i: number, key: string): Promise<string> {
  return sha(await bodyBytes((await s3(i).send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))).Body));
}

async function listing(i: number): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const r = await s3(i).send(new ListObjectsV2Command({ Bucket: BUCKET, ContinuationToken: token, MaxKeys: 7 }));
    for (const o of r.Contents ?? []) keys.push(`${o.Key} ${o.Size} ${o.ETag}`);
    token = r.NextContinuationToken;
  } while (token !== undefined);
  return keys;
}

async function probe(i: number, path: string): Promise<{ status: number; body: string }> {
  const r = await fetch(`${c.nodes[i - 1]!.url}${path}`);
  return { status: r.status, body: await r.text() };
}

/** The S3 error an SDK call ends with. */
async function s3Failure(p: Promise<unknown>): Promise<S3ServiceException> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof S3ServiceException, `expected an S3 error, got ${String(err)}`);
    return err;
  }
  assert.fail('the request was expected to fail');
}

before(async () => {
  c = await startCluster({ nodes: 4, drivesPerNode: 4 });
});

after(async () => {
  clients.destroy();
  await c?.destroy();
});

test('Must show 1: written through node 1, read through node 3 byte-exact; the same listing from every node', async () => {
  await s3(1).send(new CreateBucketCommand({ Bucket: BUCKET }));
  await put(1, 'big/three-mib.bin', randomBytes(3 * 1024 * 1024 + 11));
  await put(1, 'small.txt', randomBytes(1000));
  for (let k = 0; k < 10; k++) await put(1 + (k % 4), `many/k${k}`, randomBytes(100 + k * 4000));
  for (const [key, digest] of objects) assert.equal(await readSha(3, key), digest, key);
  assert.equal(await readSha(2, 'big/three-mib.bin'), objects.get('big/three-mib.bin'));
  const first = await listing(1);
  assert.equal(first.length, objects.size);
  for (const i of [2, 3, 4]) assert.deepEqual(await listing(i), first, `listing through node ${i}`);
  // Each node holds 4 of the 16 shards of the large object on its own drives (a record on each, in either layout).
  for (let i = 1; i <= 4; i++) {
    for (let d = 1; d <= 4; d++) assert.ok(readRecordOnDisk(c.drive(i, d), BUCKET, 'big/three-mib.bin') !== null, `node ${i} d${d}`);
  }
});

test('a bucket configuration changed through one node applies at once through every other (cached records, peer notification)', async () => {
  const bucket = 'cfg-cache';
  await s3(1).send(new CreateBucketCommand({ Bucket: bucket }));
  const putVia = async (i: number): Promise<string | undefined> => (await s3(i).send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: `via ${i}` }))).VersionId;
  // Every node reads (and caches) the bucket's record: unversioned.
  for (const i of [1, 2, 3, 4]) assert.ok([undefined, 'null'].includes(await putVia(i)), `node ${i} before`);
  await s3(1).send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }));
  for (const i of [2, 3, 4]) {
    const v = await putVia(i);
    assert.ok(v !== undefined && v !== 'null', `node ${i} right after versioning was enabled through node 1: ${v}`);
  }
  await s3(3).send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Suspended' } }));
  assert.equal((await s3(4).send(new GetBucketVersioningCommand({ Bucket: bucket }))).Status, 'Suspended');
  for (const i of [1, 2, 4]) assert.equal(await putVia(i), 'null', `node ${i} right after versioning was suspended through node 3`);
});

test('Must show 6: /svc/rpc/* and /svc/peer/* answer 403 without a valid node token, and give no data', async () => {
  const url = c.nodes[1]!.url;
  const rpc = `${url}/svc/rpc/drive/${encodeURIComponent(`${c.mount}/d1`)}/readFormat`;
  const wrong = `Bearer ${makeRpcToken({ ...c.credentials, secretKey: 'not-the-cluster-secret' }, Date.now())}`;
  const stale = `Bearer ${makeRpcToken(c.credentials, Date.now() - 10 * 60_000)}`;
  for (const authorization of [undefined, 'Bearer v1.1.abc', wrong, stale, `AWS4-HMAC-SHA256 Credential=${c.credentials.accessKey}`]) {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-svc-rpc-version': RPC_PROTOCOL_VERSION, ...(authorization ? { authorization } : {}) };
    for (const [method, target, body] of [
      ['POST', rpc, '{"args":[]}'], ['POST', `${url}/svc/rpc/batch`, JSON.stringify({ deadlineMs: 1000, calls: [{ drive: `${c.mount}/d1`, method: 'readFormat', args: [] }] })],
      ['PUT', `${url}/svc/rpc/drive/x/shard-write?path=tmp/x`, 'data'], ['GET', `${url}/svc/peer/info`, undefined],
      ['POST', `${url}/svc/peer/lock/acquire`, '{}'],
    ] as const) {
      const r = await fetch(target, { method, headers, body });
      const text = await r.text();
      assert.equal(r.status, 403, `${method} ${target} with ${authorization}`);
      assert.doesNotMatch(text, /deploymentId|thisDrive|endpoints/);
    }
  }
  // The same calls with a valid token work (the 403s above are about the token, not the route).
  const good = `Bearer ${makeRpcToken(c.credentials, Date.now())}`;
  const ok = await fetch(rpc, { method: 'POST', headers: { authorization: good, 'content-type': 'application/json', 'x-svc-rpc-version': RPC_PROTOCOL_VERSION }, body: '{"args":[]}' });
  assert.equal(ok.status, 200);
  const info = await fetch(`${url}/svc/peer/info`, { headers: { authorization: good } });
  assert.equal(info.status, 200);
  assert.equal((await info.json() as { node: string }).node, `127.0.0.2:${c.port}`);
});

test('Must show 2: one node lost, then two, then both back', async () => {
  assert.equal((await probe(2, '/minio/health/cluster?maintenance=true')).status, 200, 'all up: node 2 may go down');
  await c.kill9(4);
  // Reads and writes continue through every surviving node.
  for (const [key, digest] of objects) assert.equal(await readSha(2, key), digest, key);
  const whileDown = ['down/a.bin', 'down/b.txt', 'down/c.bin'];
  await put(1, whileDown[0]!, randomBytes(2 * 1024 * 1024));
  await put(2, whileDown[1]!, randomBytes(500));
  await put(3, whileDown[2]!, randomBytes(300_000));
  assert.equal(await readSha(3, whileDown[0]!), objects.get(whileDown[0]!));
  const cluster = await probe(1, '/compat/health/cluster');
  assert.equal(cluster.status, 200, cluster.body);
  assert.equal(JSON.parse(cluster.body).details.storage.onlineDrives, 12);
  assert.equal((await probe(1, '/minio/health/cluster')).status, 200);
  // 12 drives left = write quorum: taking node 2 down as well would lose it.
  assert.equal((await probe(2, '/minio/health/cluster?maintenance=true')).status, 412);

  await c.kill9(3);
  const putErr = await s3Failure(s3(1).send(new PutObjectCommand({ Bucket: BUCKET, Key: 'lost.txt', Body: 'x' })));
  assert.equal(putErr.$metadata.httpStatusCode, 503);
  assert.equal(putErr.name, 'ServiceUnavailable');
  assert.match(putErr.message, /write quorum/);
  const getErr = await s3Failure(s3(2).send(new GetObjectCommand({ Bucket: BUCKET, Key: 'small.txt' })));
  assert.equal(getErr.$metadata.httpStatusCode, 503);
  assert.match(getErr.message, /read quorum/);
  const ready = await probe(1, '/health/ready');
  assert.equal(ready.status, 503);
  const body = JSON.parse(ready.body) as { degradedReasons: string[]; details: { lock: { ready: boolean } } };
  assert.deepEqual(body.degradedReasons, ['storage_quorum_unavailable', 'lock_quorum_unavailable']);
  assert.equal(body.details.lock.ready, false);
  assert.equal((await probe(1, '/compat/health/cluster/read')).status, 503);

  const restarted = Date.now();
  await Promise.all([c.start(3), c.start(4)]);
  const allReady = async (): Promise<boolean> => {
    for (let i = 1; i <= 4; i++) if ((await probe(i, '/health/ready')).status !== 200) return false;
    return true;
  };
  assert.ok(await eventually(allReady, 60_000), 'every node ready again');
  process.stdout.write(`# both nodes restarted and every node ready after ${((Date.now() - restarted) / 1000).toFixed(1)} s\n`);
  for (const [key, digest] of objects) assert.equal(await readSha(4, key), digest, key);
  // The objects written while node 4 (and later 3) was down are healed onto their drives.
  const healed = async (): Promise<boolean> => [3, 4].every((i) =>
    [1, 2, 3, 4].every((d) => readRecordsOnDisk(c.drive(i, d), BUCKET, whileDown).every((rec) => rec !== null)));
  assert.ok(await eventually(healed, 60_000), 'objects written while down are on the restarted nodes\' drives');
  await put(4, 'after.txt', randomBytes(64));
  assert.equal(await readSha(1, 'after.txt'), objects.get('after.txt'));
});

test('Must show 5: a node with other credentials or another drive list is refused and does not join', async () => {
  await c.kill9(4);
  const badCreds = c.spawn(4, { credentials: { accessKey: c.credentials.accessKey, secretKey: 'another-secret-key-123' } });
  assert.equal(await badCreds.exited, 2, badCreds.output());
  assert.match(badCreds.output(), new RegExp(`svc: peer 127\\.0\\.0\\.1:${c.port} rejects our credentials: SVC_ACCESS_KEY/SVC_SECRET_KEY differ`));
  const badDrives = c.spawn(4, { args: [`http://127.0.0.{1...4}:${c.port}${c.mount}/d{1...2}`] });
  assert.equal(await badDrives.exited, 2, badDrives.output());
  assert.match(badDrives.output(), new RegExp(`svc: peer 127\\.0\\.0\\.1:${c.port} was started with a different drive list \\(16 drives, we have 8\\)`));
  // The same 16 drives listed node by node: another order, so other erasure-set positions.
  const nodeMajor = [1, 2, 3, 4].flatMap((i) => [1, 2, 3, 4].map((d) => `http://127.0.0.${i}:${c.port}${c.mount}/d${d}`));
  const reordered = c.spawn(4, { args: nodeMajor });
  assert.equal(await reordered.exited, 2, reordered.output());
  assert.match(reordered.output(), /different drive list \(the same number of drives \(16\) in another order or layout\)/);
  // The cluster did not take them in: node 4's drives are still offline as seen from node 1.
  const seen = JSON.parse((await probe(1, '/compat/health/cluster')).body) as { details: { storage: { onlineDrives: number } } };
  assert.equal(seen.details.storage.onlineDrives, 12);
  // Started right, it joins again.
  await c.start(4);
  assert.ok(await eventually(async () => (await probe(4, '/health/ready')).status === 200, 60_000));
  assert.equal(await readSha(4, 'small.txt'), objects.get('small.txt'));
});
