/**
 * GET bodies read shards into reused buffers (storage/drive/buffer-pool.ts, engine/recycling-stream.ts): a
 * buffer goes back to the pool once the response socket has its bytes. These tests put that under the conditions
 * that would expose a buffer reused too early — many GETs of different objects at once, clients that read slowly,
 * clients that go away mid-body, ranges — and compare every byte with what was written.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { readBuffers } from '../../src/storage/drive/index.js';
import { startS3, type S3Harness } from './helpers/harness.js';

const MiB = 1024 * 1024;
const B = 'buffer-reuse';
let h: S3Harness;
const objects = new Map<string, Buffer>();

before(async () => {
  h = await startS3();
  await h.client.send(new CreateBucketCommand({ Bucket: B }));
  // Sizes with short last blocks and a one-block object; random bytes so that a chunk of another object is visible.
  const sizes = [3 * MiB + 5, 5 * MiB + 77_777, MiB, 2 * MiB + 1, 7 * MiB, 4 * MiB - 3];
  for (const [i, size] of sizes.entries()) {
    const data = randomBytes(size);
    objects.set(`obj-${i}`, data);
    await h.client.send(new PutObjectCommand({ Bucket: B, Key: `obj-${i}`, Body: data }));
  }
});
after(async () => { await h.close(); });

/** Reads a body; `slow` pauses every ~256 KiB so the server's socket buffer fills and its writes queue. */
async function readBody(body: Readable, slow: boolean): Promise<Buffer> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const piece of body as AsyncIterable<Buffer>) {
    parts.push(piece);
    n += piece.length;
    if (slow && n % (256 * 1024) < piece.length) await sleep(3);
  }
  return Buffer.concat(parts);
}

async function getChecked(key: string, slow: boolean, range?: [number, number]): Promise<void> {
  const expected = objects.get(key)!;
  const res = await h.client.send(new GetObjectCommand({ Bucket: B, Key: key, ...(range ? { Range: `bytes=${range[0]}-${range[1]}` } : {}) }));
  const got = await readBody(res.Body as Readable, slow);
  const want = range ? expected.subarray(range[0], range[1] + 1) : expected;
  assert.equal(got.length, want.length, key);
  assert.ok(got.equals(want), `${key}${range ? ` bytes ${range[0]}-${range[1]}` : ''}: body differs from what was written`);
}

test('24 whole-object GETs at once, a third of them read slowly: every body is byte-for-byte what was written', async () => {
  const keys = [...objects.keys()];
  await Promise.all(Array.from({ length: 24 }, (_, i) => getChecked(keys[i % keys.length]!, i % 3 === 0)));
  // The reads went through the pool (buffers came back), so later reads reused buffers of earlier ones.
  assert.ok(readBuffers.freeBytes > 0);
});

test('range GETs across block boundaries, mixed with GETs whose clients go away mid-body', async () => {
  const keys = [...objects.keys()];
  const jobs: Promise<void>[] = [];
  for (let i = 0; i < 30; i++) {
    const key = keys[i % keys.length]!;
    const size = objects.get(key)!.length;
    if (i % 5 === 4) {
      jobs.push((async () => {
        const res = await h.client.send(new GetObjectCommand({ Bucket: B, Key: key }));
        const body = res.Body as Readable;
        await new Promise<void>((resolve) => body.once('data', () => resolve()));
        body.destroy();
      })());
    } else {
      const start = (i * 700_001) % size;
      const end = Math.min(size - 1, start + ((i * 1_300_003) % (3 * MiB)));
      jobs.push(getChecked(key, i % 2 === 0, [start, end]));
    }
  }
  await Promise.all(jobs);
  // The server keeps serving correct bodies after the aborted ones.
  await Promise.all(keys.map((k) => getChecked(k, false)));
});
