/**
 * A store whose drives are all full (each a 24 MiB tmpfs filled up with a ballast file) on a real API listener: a PUT
 * answers 503 ServiceUnavailable saying that storage is full and how to free it (engine/quorum-loss.ts), not "bring
 * drives back online" (the answer before, found when a benchmark filled this machine's disk); objects written before
 * still read back; once space is freed the same PUT succeeds. Mounting needs root, as the CI runs.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { buildApiApp } from '../../src/app.js';
import { openStorage, type Storage } from '../../src/storage/index.js';
import { ACCESS_KEY, REGION, SECRET_KEY, makeClient } from '../s3/helpers/harness.js';
import { rejectsWith } from '../s3/helpers/rejects.js';
import { bodyBytes } from '../helpers/s3-client.js';
import { fillFileSystem } from '../helpers/fill-disk.js';

const B = 'full';
let root: string;
let drives: string[] = [];
const mounted: string[] = [];
let storage: Storage;
let app: FastifyInstance;
let s3: S3Client;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-full-'));
  drives = [1, 2, 3, 4].map((i) => join(root, `d${i}`));
  for (const d of drives) {
    await mkdir(d);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', d]);
    mounted.push(d);
  }
  storage = await openStorage({ sets: [drives], parity: 2, driveCheckIntervalMs: 3_600_000 });
  app = await buildApiApp({
    logger: pino({ level: 'silent' }), objectLayer: storage, lookupSecret: async (ak) => (ak === ACCESS_KEY ? SECRET_KEY : undefined),
    region: REGION, domains: [], healthEnabled: true,
    healthSources: {
      storage: () => storage.health(), iamReady: () => true, lockReady: async () => true,
      version: 'test', startedAt: new Date(), maintenanceLosesQuorum: () => true,
    },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  s3 = makeClient(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
  await s3.send(new CreateBucketCommand({ Bucket: B }));
});

after(async () => {
  s3?.destroy();
  await app?.close();
  await storage?.close();
  for (const d of mounted) execFileSync('umount', ['-l', d]);
  await rm(root, { recursive: true, force: true, maxRetries: 5 });
});

test('every drive full: a PUT is 503 saying storage is full; earlier objects read back; freed space takes the PUT', async () => {
  const earlier = Buffer.alloc(1024 * 1024, 0x5a);
  await s3.send(new PutObjectCommand({ Bucket: B, Key: 'before', Body: earlier }));
  const ballasts = drives.map((d) => fillFileSystem(d, '.ballast'));
  const body = Buffer.alloc(2 * 1024 * 1024, 0xa5);
  await rejectsWith(s3.send(new PutObjectCommand({ Bucket: B, Key: 'k', Body: body })), 'ServiceUnavailable', 503,
    /^Storage is full: .*free space \(delete objects.*then retry\.$/);
  const got = await s3.send(new GetObjectCommand({ Bucket: B, Key: 'before' }));
  assert.ok((await bodyBytes(got.Body)).equals(earlier), 'a full store still serves what it holds');
  for (const b of ballasts) rmSync(b);
  await s3.send(new PutObjectCommand({ Bucket: B, Key: 'k', Body: body }));
  const back = await s3.send(new GetObjectCommand({ Bucket: B, Key: 'k' }));
  assert.ok((await bodyBytes(back.Body)).equals(body));
});
