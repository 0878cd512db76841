import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomFillSync } from 'node:crypto';
import { ErasureCodec } from './codec.js';
import { SMALL_PARITY_MAX, SmallParity, dotChunkSize, probeBitmatrix, type NativeEncode } from './small-parity.js';
import { codecEncode as native, LAYOUTS } from './codec.fixture.js';

test('the small encoder computes the native codec\'s parity bit for bit, for every layout and chunk length', async () => {
  for (const [k, m] of LAYOUTS) {
    const { w, encode } = native(k, m);
    const small = await SmallParity.create(k, m, w, encode);
    assert.ok(small !== null, `${k}+${m}: the probed encoder did not match`);
    const lengths = [8, 16, 40, 256, 512 + 8, 2048, 4096, 8192 + 64, Math.floor(SMALL_PARITY_MAX / k / 8) * 8];
    for (const len of lengths) {
      // Word by word (buffers of their own, as the erasure layer's pooled blocks are) and byte by byte (views at odd
      // offsets, the fallback); parity buffers start with garbage, as reused ones do.
      for (const [dataAt, parityAt] of [[0, 0], [3, 5]]) {
        const data = randomFillSync(Buffer.alloc(k * len + dataAt)).subarray(dataAt);
        const want = Buffer.alloc(m * len);
        const got = randomFillSync(Buffer.alloc(m * len + parityAt)).subarray(parityAt);
        await encode(data, want, len);
        small.encode(data, got, len);
        assert.ok(got.equals(want), `${k}+${m} (w ${w}), chunks of ${len}, offsets ${dataAt}/${parityAt}`);
      }
    }
  }
});

test('the probe reads a bitmatrix with a bit per (shard, packet) pair; a codec it cannot read is refused', async () => {
  const { w, encode } = native(4, 2);
  const rows = await probeBitmatrix(4, 2, w, encode);
  assert.equal(rows.length, 2 * w);
  for (const row of rows) for (const [i, c] of row) assert.ok(i >= 0 && i < 4 && c >= 0 && c < w);
  // A "codec" whose output is not a bitmatrix code (it adds instead of XORing) fails the probe or the check.
  const wrong: NativeEncode = async (data, parity, len) => {
    for (let b = 0; b < 2 * len; b++) parity[b] = (data[b % (4 * len)]! + data[(b * 7) % (4 * len)]!) & 0xff;
  };
  assert.equal(await SmallParity.create(4, 2, w, wrong).catch(() => null), null);
});

test('packets of large shards are halved as the codec halves them', () => {
  assert.equal(dotChunkSize(8, 12, 2048), 256);
  assert.equal(dotChunkSize(8, 12, 1024 * 1024), 8192);
  assert.equal(dotChunkSize(2, 1, 8), 4);
});

test('ErasureCodec: small blocks and large ones encode to the same parity as the native codec', async () => {
  for (const [k, m] of [[2, 2], [12, 4]] as [number, number][]) {
    const codec = new ErasureCodec(k, m);
    const { encode } = native(k, m);
    // The first encode starts the probe; later ones take the small path once it is checked.
    for (let round = 0; round < 3; round++) {
      for (const len of [2048, 344, Math.floor((2 * SMALL_PARITY_MAX) / k / 8) * 8]) {
        const data = randomFillSync(Buffer.alloc(k * len));
        const want = Buffer.alloc(m * len);
        const got = Buffer.alloc(m * len);
        await encode(data, want, len);
        await codec.encode(data, got, len);
        assert.ok(got.equals(want), `${k}+${m}, chunks of ${len}, round ${round}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }
});
