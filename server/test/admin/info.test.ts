/**
 * `GET /svc/admin/v3/info` and `heal-status` on a single path-mode node (a real `svc` process), and the JSON
 * errors of the admin API: unsigned, badly signed, unknown key, unknown path, bad body.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rename, statfs } from 'node:fs/promises';
import { CreateBucketCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { startSvc, type SvcProcess } from '../helpers/svc-process.js';
import { s3Client } from '../helpers/s3-client.js';
import { adminCall, obj } from './admin-client.js';

let svc: SvcProcess;
let s3: S3Client;

before(async () => {
  svc = await startSvc({ drives: 4, consoleEnabled: false });
  s3 = s3Client(svc.url, svc.accessKey, svc.secretKey);
  for (const b of ['alpha', 'beta']) await s3.send(new CreateBucketCommand({ Bucket: b }));
  for (const k of ['a', 'b', 'c/d']) await s3.send(new PutObjectCommand({ Bucket: 'alpha', Key: k, Body: `body ${k}` }));
});
after(async () => {
  s3?.destroy();
  await svc?.stop();
  svc?.cleanup();
});

const root = (method: string, path: string, body?: unknown) => adminCall(svc.url, svc.accessKey, svc.secretKey, method, path, body === undefined ? {} : { body });

test('info reports the single node, its four drives with statfs figures, and the contents', async () => {
  const r = await root('GET', 'info');
  assert.equal(r.status, 200);
  assert.match(r.contentType, /^application\/json/);
  const info = obj(r);
  const host = new URL(svc.url).host;
  assert.equal(info['version'], 1);
  assert.equal(info['status'], 'online');
  assert.equal(typeof info['serverVersion'], 'string');
  assert.match(String(info['deploymentId']), /^[0-9a-f-]{36}$/);
  assert.equal(info['region'], 'us-east-1');
  assert.deepEqual(info['backend'], {
    type: 'Erasure', onlineDrives: 4, offlineDrives: 0, standardParity: 2,
    pools: [{ pool: 1, sets: 1, drivesPerSet: 4, parity: 2, readQuorum: 2, writeQuorum: 3 }],
  });
  const servers = info['servers'] as Array<Record<string, unknown>>;
  assert.equal(servers.length, 1);
  const server = servers[0]!;
  assert.equal(server['endpoint'], host);
  assert.equal(server['state'], 'online');
  assert.equal(server['version'], info['serverVersion']);
  assert.ok(Number.isInteger(server['uptimeSeconds']) && (server['uptimeSeconds'] as number) >= 0);
  assert.deepEqual(server['pools'], [1]);
  assert.deepEqual(server['network'], {});
  const drives = info['drives'] as Array<Record<string, unknown>>;
  assert.deepEqual(server['drives'], drives);
  assert.deepEqual(drives.map((d) => [d['path'], d['endpoint'], d['server'], d['state'], d['pool'], d['set'], d['index'], d['healing']]),
    svc.drives.map((p, i) => [p, p, host, 'ok', 1, 1, i + 1, false]));
  assert.equal(new Set(drives.map((d) => d['uuid'])).size, 4);
  for (const d of drives) assert.match(String(d['uuid']), /^[0-9a-f-]{36}$/);
  // Every drive is a directory of one file system: each reports that file system's statfs figures.
  const fs = await statfs(svc.drives[0]!);
  const total = fs.blocks * fs.bsize;
  for (const d of drives) assert.equal(d['totalBytes'], total);
  const usage = info['usage'] as Record<string, number>;
  assert.equal(usage['totalBytes'], 4 * total);
  assert.equal(usage['usedBytes'], drives.reduce((a, d) => a + (d['usedBytes'] as number), 0));
  assert.equal(usage['availableBytes'], drives.reduce((a, d) => a + (d['availableBytes'] as number), 0));
  assert.equal(usage['usedPercent'], Math.round((usage['usedBytes']! / usage['totalBytes']!) * 1000) / 10);
  assert.ok(usage['usedBytes']! > 0 && usage['availableBytes']! > 0 && usage['usedBytes']! + usage['availableBytes']! <= usage['totalBytes']!);
  assert.deepEqual(info['buckets'], { count: 2 });
  assert.deepEqual(info['objects'], { count: 3 });
});

test('heal-status answers the storage heal status', async () => {
  const r = await root('GET', 'heal-status');
  assert.equal(r.status, 200);
  const h = obj(r);
  assert.deepEqual(Object.keys(h).sort(), ['drives', 'queue', 'scanner']);
  assert.equal(typeof (h['scanner'] as Record<string, unknown>)['cycle'], 'number');
  assert.ok(Array.isArray(h['drives']));
});

function assertJsonError(r: { status: number; json: unknown; contentType: string }, status: number, code: string): void {
  assert.equal(r.status, status);
  assert.match(r.contentType, /^application\/json/);
  const e = r.json as Record<string, unknown>;
  assert.equal(e['code'], code);
  assert.equal(typeof e['message'], 'string');
  assert.ok(String(e['message']).length > 0);
  assert.equal(typeof e['requestId'], 'string');
}

test('unsigned and badly signed calls are refused with a 403 JSON error, and nothing is revealed', async () => {
  const unsigned = await adminCall(svc.url, svc.accessKey, svc.secretKey, 'GET', 'info', { unsigned: true });
  assertJsonError(unsigned, 403, 'AccessDenied');
  assert.equal(obj(unsigned)['deploymentId'], undefined);
  assertJsonError(await adminCall(svc.url, svc.accessKey, svc.secretKey, 'GET', 'info', { signSecret: 'not-the-secret-key' }), 403, 'SignatureDoesNotMatch');
  assertJsonError(await adminCall(svc.url, 'NOSUCHKEY', 'whatever-secret', 'GET', 'info'), 403, 'InvalidAccessKeyId');
  // A body that does not match its signed hash is a bad signature too.
  const bad = await adminCall(svc.url, svc.accessKey, svc.secretKey, 'PUT', 'users/mallory', { body: { secretKey: 'mallory-secret' }, signSecret: 'x'.repeat(20) });
  assertJsonError(bad, 403, 'SignatureDoesNotMatch');
  const users = await root('GET', 'users');
  assert.deepEqual(obj(users)['users'], []);
});

test('an unknown admin path or method is a 404 JSON error, a bad JSON body a 400', async () => {
  assertJsonError(await root('GET', 'no-such-call'), 404, 'NotFound');
  assertJsonError(await root('POST', 'info'), 404, 'NotFound');
  assertJsonError(await root('GET', 'users/a/b/c'), 404, 'NotFound');
  assertJsonError(await root('PUT', 'users/bob', '{"secretKey": '), 400, 'InvalidRequest');
  assertJsonError(await root('PUT', 'users/bob', '[1, 2]'), 400, 'InvalidRequest');
  assertJsonError(await root('PUT', 'users/bob', { secretKey: 42 }), 400, 'InvalidArgument');
  assertJsonError(await root('PUT', 'policies/p1', 'not json'), 400, 'MalformedPolicy');
  assert.equal((await root('GET', 'users/bob')).status, 404);
});

test('a drive whose directory vanished is reported missing with capacity 0, and the node degraded', async () => {
  const moved = `${svc.drives[3]!}.away`;
  await rename(svc.drives[3]!, moved);
  try {
    const info = obj(await root('GET', 'info'));
    assert.equal(info['status'], 'degraded');
    const drives = info['drives'] as Array<Record<string, unknown>>;
    assert.deepEqual(drives.map((d) => d['state']), ['ok', 'ok', 'ok', 'missing']);
    assert.deepEqual([drives[3]!['totalBytes'], drives[3]!['usedBytes'], drives[3]!['availableBytes']], [0, 0, 0]);
    assert.deepEqual([(info['backend'] as Record<string, unknown>)['onlineDrives'], (info['backend'] as Record<string, unknown>)['offlineDrives']], [3, 1]);
  } finally {
    await rename(moved, svc.drives[3]!);
  }
});
