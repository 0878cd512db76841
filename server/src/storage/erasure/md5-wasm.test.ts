import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { instantiateMd5, RESERVED } from './md5-wasm.js';

const { memory, md5x1, md5x4 } = instantiateMd5();
memory.grow(8);

const INIT = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];

/** RFC 1321 §3.1–3.2 padding, so that the module's block functions give the whole digest. */
function padded(data: Buffer): Buffer {
  const out = Buffer.alloc((((data.length + 8) >> 6) + 1) * 64);
  data.copy(out);
  out[data.length] = 0x80;
  out.writeUInt32LE((data.length * 8) >>> 0, out.length - 8);
  return out;
}

test('md5x1 gives the digest of node:crypto for lengths around the block and padding edges', () => {
  const words = new Uint32Array(memory.buffer);
  for (const n of [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 65_537]) {
    const data = randomBytes(n);
    const p = padded(data);
    words.set(INIT, RESERVED / 4);
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
    const stride = padded(data[0]!).length;
    const base = RESERVED + 64;
    for (let lane = 0; lane < 4; lane++) {
      for (let w = 0; w < 4; w++) words[4 * w + lane] = INIT[w]!;
      heap.set(padded(data[lane]!), base + lane * stride);
    }
    md5x4(0, base, base + stride, base + 2 * stride, base + 3 * stride, stride / 64);
    for (let lane = 0; lane < 4; lane++) {
      const digest = Buffer.alloc(16);
      for (let w = 0; w < 4; w++) digest.writeUInt32LE(words[4 * w + lane]!, 4 * w);
      assert.equal(digest.toString('hex'), createHash('md5').update(data[lane]!).digest('hex'), `length ${n}, lane ${lane}`);
    }
  }
});
