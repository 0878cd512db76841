/**
 * Must show 3 (issue 2): `kill -9` during a 200 MiB PUT over an existing key → after restart the old object is
 * intact, no partial object is listed, and temp files are cleaned.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { startSvc } from '../helpers/svc-process.js';
import { eventually, s3Client } from '../helpers/s3-client.js';
import { listFiles } from '../helpers/drive-files.js';

const SIZE = 200 * 1024 * 1024;

/** A deterministic body of SIZE bytes made of 1 MiB blocks filled with `seed`; calls onProgress with bytes sent. */
function body(seed: number, onProgress?: (sent: number) => void): Readable {
  let sent = 0;
  const block = Buffer.alloc(1 << 20, seed);
  return new Readable({
    read() {
      if (sent >= SIZE) { this.push(null); return; }
      sent += block.length;
      onProgress?.(sent);
      this.push(block);
    },
  });
}

function digestOf(seed: number): string {
  const h = createHash('sha256');
  const block = Buffer.alloc(1 << 20, seed);
  for (let i = 0; i < SIZE / block.length; i++) h.update(block);
  return h.digest('hex');
}

test('kill -9 during an overwriting 200 MiB PUT leaves the old object intact and no temp files', async (t) => {
  const first = await startSvc({ drives: 4 });
  const creds = { accessKey: first.accessKey, secretKey: first.secretKey };
  // One hook, in order: stop whichever server runs, then remove the drives (node:test runs `after` hooks in
  // registration order, so separate hooks removed the directories under a still-running second server).
  let second: Awaited<ReturnType<typeof startSvc>> | undefined;
  t.after(async () => {
    await first.kill9();
    await second?.stop();
    first.cleanup();
  });
  let s3 = s3Client(first.url, creds.accessKey, creds.secretKey);
  await s3.send(new CreateBucketCommand({ Bucket: 'crash' }));
  await s3.send(new PutObjectCommand({ Bucket: 'crash', Key: 'big.bin', Body: body(0x11), ContentLength: SIZE }));
  const before = await s3.send(new HeadObjectCommand({ Bucket: 'crash', Key: 'big.bin' }));

  let killed = false;
  const overwrite = s3.send(new PutObjectCommand({
    Bucket: 'crash', Key: 'big.bin', ContentLength: SIZE,
    Body: body(0x22, (sent) => { if (sent >= 120 * 1024 * 1024 && !killed) { killed = true; void first.kill9(); } }),
  }));
  await assert.rejects(overwrite, 'the interrupted PUT fails on the client');
  assert.ok(killed);
  s3.destroy();

  second = await startSvc({ drives: 4, dir: first.dir, credentials: creds });
  s3 = s3Client(second.url, creds.accessKey, creds.secretKey);
  t.after(() => s3.destroy());
  const after = await s3.send(new HeadObjectCommand({ Bucket: 'crash', Key: 'big.bin' }));
  assert.equal(after.ETag, before.ETag, 'the old object is still the current one');
  assert.equal(after.ContentLength, SIZE);
  const got = await s3.send(new GetObjectCommand({ Bucket: 'crash', Key: 'big.bin' }));
  const h = createHash('sha256');
  for await (const c of got.Body as AsyncIterable<Buffer>) h.update(c);
  assert.equal(h.digest('hex'), digestOf(0x11), 'the old bytes are intact');
  const list = await s3.send(new ListObjectsV2Command({ Bucket: 'crash' }));
  assert.deepEqual(list.Contents?.map((o) => [o.Key, o.Size]), [['big.bin', SIZE]], 'no partial object is listed');
  // Temp files of the interrupted write are removed at start (or shortly after, by the cleanup pass).
  const clean = await eventually(async () => second.drives.every((d) => listFiles(join(d, '.svc.sys', 'tmp')).length === 0), 15_000);
  assert.ok(clean, `no temp files remain: ${second.drives.flatMap((d) => listFiles(join(d, '.svc.sys', 'tmp'))).join(', ')}`);
});
