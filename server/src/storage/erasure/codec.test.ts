import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ErasureCodec, UnsupportedErasureError } from './codec.js';

function* subsets(n: number, size: number, start = 0, acc: number[] = []): Generator<number[]> {
  if (acc.length === size) { yield [...acc]; return; }
  for (let i = start; i < n; i++) yield* subsets(n, size, i + 1, [...acc, i]);
}

for (const [k, m] of [[2, 1], [2, 2], [3, 2], [4, 2], [5, 3], [12, 4]] as const) {
  test(`${k}+${m}: every combination of ${m} missing shards is reconstructed`, async () => {
    const codec = new ErasureCodec(k, m);
    const chunk = 64;
    const data = randomBytes(k * chunk);
    const parity = Buffer.alloc(m * chunk);
    await codec.encode(data, parity, chunk);
    for (const missing of subsets(k + m, m)) {
      const d = Buffer.from(data);
      const p = Buffer.from(parity);
      for (const s of missing) (s < k ? d : p).fill(0xee, (s < k ? s : s - k) * chunk, ((s < k ? s : s - k) + 1) * chunk);
      const present = Array.from({ length: k + m }, (_, s) => !missing.includes(s));
      await codec.reconstruct(d, p, chunk, present, missing);
      assert.deepEqual(d, data, `data after losing ${missing.join(',')}`);
      assert.deepEqual(p, parity, `parity after losing ${missing.join(',')}`);
    }
  });
}

test('fewer than K shards cannot be reconstructed', async () => {
  const codec = new ErasureCodec(2, 1);
  await assert.rejects(codec.reconstruct(Buffer.alloc(16), Buffer.alloc(8), 8, [true, false, false], [1, 2]), UnsupportedErasureError);
});

test('parameters outside the codec limits are refused', () => {
  assert.throws(() => new ErasureCodec(0, 1), UnsupportedErasureError);
  assert.throws(() => new ErasureCodec(4, 7), UnsupportedErasureError);
});

test('M = 0 is a pass-through', async () => {
  const codec = new ErasureCodec(1, 0);
  await codec.encode(Buffer.alloc(8), Buffer.alloc(0), 8);
});
