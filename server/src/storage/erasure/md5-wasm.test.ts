import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { instantiateMd5, RESERVED } from './md5-wasm.js';
import { MD5_INIT, md5Padded } from './md5-padding.fixture.js';

const { memory, md5x1, md5x4 } = instantiateMd5();
memory.grow(8);

test('md5x1 gives the digest of node:crypto for lengths around the block and padding edges', () => {
  const words = new Uint32Array(memory.buffer);
  for (const n of [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 65_537]) {
    const data = randomBytes(n);
    const p = md5Padded(data);
    words.set(MD5_INIT, RESERVED / 4);
    new Uint8Array(memory.buffer).set(p, RESERVED + 64);
    md5x1(RESERVED, RESERVED + 64, p.length / 64);
    assert.equal(Buffer.from(memory.buffer, RESERVED, 16).toString('hex'), createHash('md5').update(data).digest('hex'), `length ${n}`);
  }
});

test('md5x4 hashes four different streams in its four lanes, each as node:crypto does', () => {
  const words = new Uint32Array(memory.buffer);
  const heap = new Uint8Array(memory.buffer);
  for (const n of [0, 3, 64, 4095, 20_000]) {
    const data = [0, 1, 2, 3].map(() => randomBytes(n));
    const stride = md5Padded(data[0]!).length;
    const base = RESERVED + 64;
    for (let lane = 0; lane < 4; lane++) {
      for (let w = 0; w < 4; w++) words[4 * w + lane] = MD5_INIT[w]!;
      heap.set(md5Padded(data[lane]!), base + lane * stride);
    }
    md5x4(0, base, base + stride, base + 2 * stride, base + 3 * stride, stride / 64);
    for (let lane = 0; lane < 4; lane++) {
      const digest = Buffer.alloc(16);
      for (let w = 0; w < 4; w++) digest.writeUInt32LE(words[4 * w + lane]!, 4 * w);
      assert.equal(digest.toString('hex'), createHash('md5').update(data[lane]!).digest('hex'), `length ${n}, lane ${lane}`);
    }
  }
});
