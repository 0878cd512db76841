import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { JobWorker } from '../../common/index.js';
import { LANE_MIN_BYTES, OffloadedMd5 } from './md5-offload.js';
import { compileMd5Module } from './md5-wasm.js';
import { MD5_WORKER_SOURCE } from './md5-worker-source.js';

function md5(parts: readonly Buffer[]): string {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest('hex');
}

/** A chunk that owns its ArrayBuffer, as node's HTTP parser hands them out. */
function owned(n: number): Buffer {
  return Buffer.from(new Uint8Array(randomBytes(n)).buffer);
}

test('interleaved uploads each get the MD5 of their own bytes, in push order', async () => {
  const bodies = [0, 1, 2, 3, 4, 5].map(() => [1 << 20, 12_345, 0, 777].map(owned));
  const expected = bodies.map(md5);
  const jobs = bodies.map(() => new OffloadedMd5(-1));
  for (let part = 0; part < 4; part++) await Promise.all(jobs.map((j, i) => j.push(bodies[i]![part]!)));
  const digests = await Promise.all(jobs.map((j) => j.digest()));
  digests.forEach((d, i) => assert.equal(d.toString('hex'), expected[i]));
});

test('pushed chunks stay with the caller: whole buffers, views into larger memory and shared memory are copied', async () => {
  // Chunks may be pooled buffers (a copy's source read from the drives) or a caller's own: taking their memory over
  // would empty them under their owner.
  const whole = owned(100_000);
  const big = randomBytes(3_000_000);
  const view = big.subarray(1000, 2_201_000);
  const shared = Buffer.from(new SharedArrayBuffer(5000)).fill(7);
  const copies = [whole, big, shared].map((b) => Buffer.from(b));
  const expected = md5([whole, view, shared]);
  const job = new OffloadedMd5(-1);
  await job.push(whole);
  await job.push(view);
  await job.push(shared);
  assert.equal((await job.digest()).toString('hex'), expected);
  [whole, big, shared].forEach((b, i) => assert.ok(b.equals(copies[i]!), `chunk ${i} intact`));
});

test('whole buffers handed over are hashed in order with pushed chunks, without a copy, and come back', async () => {
  const chunks = [owned(70_000), owned(1 << 20), owned(3), owned(1 << 20), owned(500_000)];
  const expected = md5([chunks[0]!, chunks[1]!.subarray(0, 1_000_000), chunks[2]!, chunks[3]!, chunks[4]!]);
  const job = new OffloadedMd5(64 << 20);
  const returned: ArrayBuffer[] = [];
  const copies = chunks.map((c) => Buffer.from(c));
  await job.push(chunks[0]!);
  const given = chunks[1]!.buffer as ArrayBuffer;
  await job.pushOwned(given, 1_000_000, (b) => returned.push(b));
  assert.equal(given.byteLength, 0, 'transferred, not copied');
  await job.push(chunks[2]!);
  await job.pushOwned(chunks[3]!.buffer as ArrayBuffer, 1 << 20, (b) => returned.push(b));
  await job.push(chunks[4]!);
  assert.equal((await job.digest()).toString('hex'), expected);
  assert.equal(returned.length, 2);
  assert.ok(Buffer.from(returned[0]!).equals(copies[1]!), 'handed back with its bytes');
  assert.ok(Buffer.from(returned[1]!).equals(copies[3]!));
});

test('an empty upload has the MD5 of nothing; an aborted one leaves the others intact', async () => {
  const empty = new OffloadedMd5(-1);
  const dropped = new OffloadedMd5(-1);
  const kept = new OffloadedMd5(-1);
  const data = randomBytes(4096);
  const expected = md5([data]);
  await Promise.all([dropped.push(Buffer.from(data)), kept.push(Buffer.from(data))]);
  dropped.abort();
  dropped.abort();
  assert.equal((await empty.digest()).toString('hex'), 'd41d8cd98f00b204e9800998ecf8427e');
  assert.equal((await kept.digest()).toString('hex'), expected);
});

test('many uploads at once, with odd chunk sizes, chunks of several batches and pauses, each get their own MD5', async () => {
  // More uploads than workers, chunks not multiples of 64 bytes, some spanning batches, pauses that interleave the
  // uploads' batches differently; aborted uploads must not disturb the others.
  const uploads = Array.from({ length: 11 }, async (_, u) => {
    const job = new OffloadedMd5(-1);
    const hash = createHash('md5');
    const count = 2 + (u % 7) * 3;
    for (let i = 0; i < count; i++) {
      const size = [0, 1, 63, 64, 65, 4097, 65_536, 1 << 20, (1 << 20) + 33, (2 << 20) + 7][(u * 7 + i * 3) % 10]!;
      const chunk = owned(size);
      hash.update(chunk);
      await job.push(chunk);
      if ((u + i) % 3 === 0) await new Promise((r) => setTimeout(r, 1 + (u % 4)));
    }
    if (u % 6 === 5) {
      job.abort();
      return;
    }
    assert.equal((await job.digest()).toString('hex'), hash.digest('hex'), `upload ${u}`);
  });
  await Promise.all(uploads);
});

test('an upload aborted before its first chunk leaves nothing holding the process open', () => {
  // In a fresh process (the workers are per process): before the fix a MessagePort stayed referenced and a test
  // file whose upload was cut early never exited.
  const script = `const { OffloadedMd5 } = await import(${JSON.stringify(new URL('./md5-offload.ts', import.meta.url).href)});
    new OffloadedMd5(-1).abort();
    setImmediate(() => console.log(JSON.stringify(process.getActiveResourcesInfo())));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.ok(!JSON.parse(out.trim().split('\n').pop()!).includes('MessagePort'), out);
});

test('small uploads (node:crypto at once) and large ones (SIMD lanes) side by side each get their own MD5', async () => {
  const sizes = [0, 4097, 1 << 20, LANE_MIN_BYTES - 1, LANE_MIN_BYTES, (3 << 20) + 5, -1];
  const jobs = sizes.map(async (size, u) => {
    const job = new OffloadedMd5(size);
    const hash = createHash('md5');
    const total = size >= 0 ? size : (2 << 20) + 77;
    for (let off = 0; off < total;) {
      const chunk = owned(Math.min(total - off, 65_536 + u * 333));
      hash.update(chunk);
      await job.push(chunk);
      off += chunk.length;
    }
    assert.equal((await job.digest()).toString('hex'), hash.digest('hex'), `declared ${size}`);
  });
  await Promise.all(jobs);
});

test('an upload alone on its worker is hashed by node:crypto; those that start beside it, and declared large, share the lanes', async () => {
  const alone = new OffloadedMd5(-1);
  const second = new OffloadedMd5(-1);
  const large = new OffloadedMd5(LANE_MIN_BYTES);
  const small = new OffloadedMd5(LANE_MIN_BYTES - 1);
  assert.deepEqual([alone.inLanes, second.inLanes, large.inLanes, small.inLanes], [false, true, true, false]);
  const bodies = [alone, second, large, small].map(() => [owned(3 << 20), owned(5)]);
  for (let part = 0; part < 2; part++) await Promise.all([alone, second, large, small].map((j, i) => j.push(bodies[i]![part]!)));
  const digests = await Promise.all([alone, second, large, small].map((j) => j.digest()));
  digests.forEach((d, i) => assert.equal(d.toString('hex'), md5(bodies[i]!)));
  // Once they are done, the worker is free again: the next upload is alone on it.
  const next = new OffloadedMd5(-1);
  assert.equal(next.inLanes, false);
  next.abort();
});

test('an upload that never sends a chunk holds up the others by the lane wait at most', async () => {
  // The first upload on a worker takes node:crypto (it would be alone in the lanes): the two below share them.
  const first = new OffloadedMd5(-1);
  const idle = new OffloadedMd5(-1);
  await idle.push(owned(100));
  await idle.push(owned(1 << 20)); // posted: the worker knows it, then it goes quiet
  const busy = new OffloadedMd5(-1);
  const data = owned(8 << 20);
  const expected = md5([data]);
  const started = performance.now();
  await busy.push(data);
  assert.equal((await busy.digest()).toString('hex'), expected);
  // Eight rounds of 1 MiB, each waiting at most LANE_WAIT_MS for the idle upload's lane: well under 2 s.
  assert.ok(performance.now() - started < 2000, `${performance.now() - started} ms`);
  assert.equal(idle.inLanes && busy.inLanes, true);
  idle.abort();
  first.abort();
});

test('the worker answers a digest queued behind empty updates, with no other upload to wake it', async () => {
  // Driven with raw messages: OffloadedMd5 never posts an empty batch, but a digest must not wait for another message
  // when one does come (a first version of the worker left it queued, and the PUT never got its answer).
  const worker = new JobWorker(MD5_WORKER_SOURCE, { onExit: () => undefined, failure: (e) => e, workerData: { module: compileMd5Module() } });
  try {
    const empty = (): Promise<unknown> => worker.request({ op: 'update', id: 1, small: false, batch: new ArrayBuffer(64), length: 0 });
    const answers = Promise.all([empty(), empty(), worker.request({ op: 'digest', id: 1, small: false })]);
    const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('no answer within 5 s')), 5000).unref());
    const [, , digest] = (await Promise.race([answers, timeout])) as [unknown, unknown, { digest: Uint8Array }];
    assert.equal(Buffer.from(digest.digest).toString('hex'), 'd41d8cd98f00b204e9800998ecf8427e');
  } finally {
    worker.terminate();
  }
});
