/**
 * Issue 10 "Resource limits" on a real API listener (buildApiApp as main.ts composes it, with short limits so the
 * test is quick): an oversized header section, a slowloris client trickling its headers, an upload whose body
 * stalls, an oversized XML body and part numbers beyond 10,000 each end with a clear S3 error or a closed
 * connection, and the server keeps serving everyone else. docs/limits.md lists the limits and their defaults.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import {
  CompleteMultipartUploadCommand, CreateBucketCommand, CreateMultipartUploadCommand, ListBucketsCommand,
  UploadPartCommand, type S3Client,
} from '@aws-sdk/client-s3';
import { buildApiApp } from '../../src/app.js';
import { ObjectNotFoundError, openStorage, type Storage } from '../../src/storage/index.js';
import { ACCESS_KEY, REGION, SECRET_KEY, makeClient } from '../s3/helpers/harness.js';
import { errorCode, rawRequest, signRequest, signedRequest } from '../s3/helpers/raw.js';
import { rejectsWith } from '../s3/helpers/rejects.js';

const B = 'limits';
const LIMITS = { maxHeaderBytes: 8 * 1024, headersTimeoutMs: 1_000, connectionsCheckIntervalMs: 200, idleTimeoutMs: 1_500 };
let root: string;
let storage: Storage;
let app: FastifyInstance;
let port: number;
let s3: S3Client;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-limits-'));
  const drives = [1, 2, 3, 4].map((i) => join(root, `d${i}`));
  for (const d of drives) await mkdir(d);
  storage = await openStorage({ sets: [drives], parity: 2, driveCheckIntervalMs: 3_600_000 });
  app = await buildApiApp({
    logger: pino({ level: 'silent' }), objectLayer: storage, lookupSecret: async (ak) => (ak === ACCESS_KEY ? SECRET_KEY : undefined),
    region: REGION, domains: [], healthEnabled: true, limits: LIMITS,
    healthSources: {
      storage: () => storage.health(), iamReady: () => true, lockReady: async () => true,
      version: 'test', startedAt: new Date(), maintenanceLosesQuorum: () => true,
    },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
  s3 = makeClient(`http://127.0.0.1:${port}`);
  await s3.send(new CreateBucketCommand({ Bucket: B }));
});

after(async () => {
  s3?.destroy();
  await app?.close();
  await storage?.close();
  await rm(root, { recursive: true, force: true, maxRetries: 5 });
});

/** The server still answers a normal signed request. */
async function stillServing(): Promise<void> {
  const res = await s3.send(new ListBucketsCommand({}));
  assert.ok(res.Buckets?.some((b) => b.Name === B));
}

/** Sends `data` one byte every `everyMs` until the server closes the connection; resolves with what it answered and how much was left unsent. */
function trickle(data: string, everyMs: number): Promise<{ answer: string; unsent: number }> {
  return new Promise((resolve) => {
    const sock: Socket = connect(port, '127.0.0.1');
    let answer = '';
    let i = 0;
    const timer = setInterval(() => { if (i < data.length && sock.writable) sock.write(data[i++]!); }, everyMs);
    sock.on('data', (d: Buffer) => { answer += d.toString(); });
    sock.on('error', () => undefined);
    sock.on('close', () => { clearInterval(timer); resolve({ answer, unsent: data.length - i }); });
  });
}

test('a header section beyond the limit is 400 RequestHeaderSectionTooLarge naming the limit', async () => {
  const res = await rawRequest(port, { method: 'GET', path: `/${B}`, headers: { 'x-big': 'b'.repeat(LIMITS.maxHeaderBytes + 100) } });
  assert.equal(res.status, 400);
  assert.equal(errorCode(res.body), 'RequestHeaderSectionTooLarge');
  assert.match(res.body, new RegExp(`<MaxSizeAllowed>${LIMITS.maxHeaderBytes}</MaxSizeAllowed>`));
  // Just under the limit is fine (an unsigned request: AccessDenied, i.e. it reached the S3 handler).
  const ok = await rawRequest(port, { method: 'GET', path: `/${B}`, headers: { 'x-big': 'b'.repeat(LIMITS.maxHeaderBytes - 1024) } });
  assert.equal(errorCode(ok.body), 'AccessDenied');
  await stillServing();
});

test('slowloris: a client sending its headers one byte at a time is answered RequestTimeout and cut off', async () => {
  const headers = `GET /${B} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Array.from({ length: 40 }, (_, i) => `x-slow-${i}: ${'s'.repeat(20)}\r\n`).join('')}\r\n`;
  const pending = trickle(headers, 50);
  // While it trickles, everyone else is served.
  await stillServing();
  const { answer, unsent } = await pending;
  assert.ok(unsent > 0, 'the server closed the connection before the header section was complete');
  assert.match(answer, /^HTTP\/1\.1 400 /);
  assert.equal(errorCode(answer.slice(answer.indexOf('<?xml'))), 'RequestTimeout');
  assert.match(answer, /Connection: close/i);
});

test('an upload whose body stalls is disconnected by the idle timeout and stores nothing', async () => {
  const { target, headers } = await signRequest(port, { method: 'PUT', path: `/${B}/stalled`, unsignedPayload: true, contentLength: 100_000 });
  const sock = connect(port, '127.0.0.1');
  sock.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => sock.on('close', () => resolve()));
  sock.write(`PUT ${target} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`);
  sock.write(Buffer.alloc(1000, 1));
  await closed;
  // Asked of the storage, not over HTTP: the 1.5 s idle limit applies to every connection of this server, and a HEAD
  // answered slower than that under CI load (twice, both times beside the fault run's cluster, on the key-index
  // layout) was cut as the stalled upload was ("socket hang up"). What this test is about is that nothing was stored.
  await assert.rejects(storage.getObjectInfo(B, 'stalled'), ObjectNotFoundError);
  await stillServing();
});

test('an XML body beyond the 2 MiB cap is 400 MaxMessageLengthExceeded', async () => {
  const objects = Array.from({ length: 3000 }, (_, i) => `<Object><Key>${String(i).padStart(700, 'k')}</Key></Object>`).join('');
  const body = `<Delete>${objects}</Delete>`;
  assert.ok(body.length > 2 * 1024 * 1024);
  const res = await signedRequest(port, { method: 'POST', path: `/${B}`, query: { delete: '' }, body, headers: { 'content-md5': createHash('md5').update(body).digest('base64') } });
  assert.equal(res.status, 400, res.body);
  assert.equal(errorCode(res.body), 'MaxMessageLengthExceeded');
  await stillServing();
});

test('part numbers beyond 10,000 are InvalidArgument, in UploadPart and in CompleteMultipartUpload', async () => {
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: B, Key: 'mpu' }));
  await rejectsWith(s3.send(new UploadPartCommand({ Bucket: B, Key: 'mpu', UploadId, PartNumber: 10_001, Body: 'x' })), 'InvalidArgument', 400);
  await rejectsWith(s3.send(new CompleteMultipartUploadCommand({
    Bucket: B, Key: 'mpu', UploadId, MultipartUpload: { Parts: [{ PartNumber: 10_001, ETag: '"e"' }] },
  })), 'InvalidArgument', 400, /between 1 and 10000/);
  await stillServing();
});
