import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { OffloadedMd5 } from './md5-offload.js';

function shared(n: number, seed: number): Buffer {
  const b = Buffer.from(new SharedArrayBuffer(n));
  for (let i = 0; i < n; i++) b[i] = (i * 13 + seed) & 0xff;
  return b;
}

test('interleaved uploads each get the MD5 of their own bytes, in update order', async () => {
  const bodies = [0, 1, 2, 3, 4, 5].map((s) => [shared(1 << 20, s), shared(12_345, s + 1), shared(0, 0), shared(777, s + 2)]);
  const jobs = bodies.map(() => new OffloadedMd5());
  for (let part = 0; part < 4; part++) await Promise.all(jobs.map((j, i) => j.update(bodies[i]![part]!)));
  const digests = await Promise.all(jobs.map((j) => j.digest()));
  digests.forEach((d, i) => assert.equal(d.toString('hex'), createHash('md5').update(Buffer.concat(bodies[i]!)).digest('hex')));
});

test('an empty upload has the MD5 of nothing; an aborted one leaves the others intact', async () => {
  const empty = new OffloadedMd5();
  const dropped = new OffloadedMd5();
  const kept = new OffloadedMd5();
  const data = shared(4096, 9);
  await Promise.all([dropped.update(data), kept.update(data)]);
  dropped.abort();
  dropped.abort();
  assert.equal((await empty.digest()).toString('hex'), 'd41d8cd98f00b204e9800998ecf8427e');
  assert.equal((await kept.digest()).toString('hex'), createHash('md5').update(data).digest('hex'));
});

test('an upload aborted before its first block leaves nothing holding the process open', () => {
  // In a fresh process (the workers are per process): before the fix a MessagePort stayed referenced and a test
  // file whose upload was cut early never exited.
  const script = `const { OffloadedMd5 } = await import(${JSON.stringify(new URL('./md5-offload.ts', import.meta.url).href)});
    new OffloadedMd5().abort();
    setImmediate(() => console.log(JSON.stringify(process.getActiveResourcesInfo())));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.ok(!JSON.parse(out.trim().split('\n').pop()!).includes('MessagePort'), out);
});
