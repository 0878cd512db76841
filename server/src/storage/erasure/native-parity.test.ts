import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomFillSync } from 'node:crypto';
import { ErasureCodec } from './codec.js';
import { codecEncode, LAYOUTS } from './codec.fixture.js';
import { chunkLength } from './layout.js';
import { loadAddon } from '../../common/index.js';
import { NativeParity, nativeParityEncodes } from './native-parity.js';
import { SMALL_PARITY_MAX } from './small-parity.js';

interface ParityAddon {
  encode(rows: Int32Array, w: number, packet: number, data: Uint8Array, parity: Uint8Array, chunkLen: number, k: number, m: number): void;
}

test('the parity addon is built and loads (scripts/build-native.sh, run by the setup)', () => {
  assert.ok(loadAddon('parity') !== undefined);
});

test('for every layout, the addon\'s parity is the codec\'s bit for bit: the chunks of 1 MiB, 4 MiB and odd blocks', async () => {
  let used = 0;
  for (const [k, m] of LAYOUTS) {
    const { w, encode } = codecEncode(k, m);
    const parity = await NativeParity.create(k, m, w, encode);
    const lengths = [1 << 20, 4 << 20, 2 * SMALL_PARITY_MAX + 4096, 3 << 20].map((block) => chunkLength(block, k));
    if (parity === null) {
      // Only layouts none of whose large blocks the addon takes: K = 3, 5, 6, 7 cut 1 MiB into packets of odd sizes.
      assert.ok([3, 5, 6, 7].includes(k), `${k}+${m}: the addon did not match the codec`);
      continue;
    }
    for (const len of lengths) {
      if (!parity.fits(len)) continue;
      // Views at odd offsets (the addon reads where they start); parity buffers start with garbage, as reused ones do.
      for (const [dataAt, parityAt] of [[0, 0], [3, 5]]) {
        const data = randomFillSync(Buffer.alloc(k * len + dataAt)).subarray(dataAt);
        const want = Buffer.alloc(m * len);
        const got = randomFillSync(Buffer.alloc(m * len + parityAt)).subarray(parityAt);
        await encode(data, want, len);
        parity.encode(data, got, len);
        assert.ok(got.equals(want), `${k}+${m} (w ${w}), chunks of ${len}, offsets ${dataAt}/${parityAt}`);
        used++;
      }
    }
  }
  assert.ok(used >= 2 * 9, `${used} checks`);
});

test('the addon refuses bad arguments with a clear error, before writing anything', () => {
  const addon = loadAddon('parity')!.exports as ParityAddon;
  const w = 8;
  const rows = Int32Array.from(Array.from({ length: 2 * w }, () => [1, 0, 0]).flat());
  const data = Buffer.alloc(2 * 1024);
  const parity = Buffer.alloc(2 * 1024, 7);
  addon.encode(rows, w, 128, data, parity, 1024, 2, 2); // well formed
  assert.ok(parity.equals(Buffer.alloc(2 * 1024)), 'parity of zeros');
  parity.fill(7);
  const bad: [string, () => void, RegExp][] = [
    ['short data', () => addon.encode(rows, w, 128, data.subarray(1), parity, 1024, 2, 2), /data k and parity m chunks/],
    ['short parity', () => addon.encode(rows, w, 128, data, parity.subarray(8), 1024, 2, 2), /data k and parity m chunks/],
    ['packet not a multiple of 8', () => addon.encode(rows, w, 12, data, parity, 1024, 2, 2), /multiple of w × packet/],
    ['chunk not whole regions', () => addon.encode(rows, w, 64, data, parity, 1000, 2, 2), /multiple of w × packet/],
    ['too few rows', () => addon.encode(rows.subarray(0, 3 * w), w, 128, data, parity, 1024, 2, 2), /fewer rows/],
    ['source outside the data', () => addon.encode(Int32Array.from([1, 2, 0, ...rows.subarray(3)]), w, 128, data, parity, 1024, 2, 2), /outside the data/],
    ['a row past the end', () => addon.encode(Int32Array.from([...rows.subarray(0, rows.length - 3), 9, 0, 0]), w, 128, data, parity, 1024, 2, 2), /runs past/],
    ['wrong types', () => (addon.encode as unknown as (...a: unknown[]) => void)([1], w, 128, data, parity, 1024, 2, 2), /Int32Array/],
    ['too few arguments', () => (addon.encode as unknown as (...a: unknown[]) => void)(rows, w), /encode\(rows/],
  ];
  for (const [what, call, message] of bad) assert.throws(call, message, what);
  assert.ok(parity.equals(Buffer.alloc(2 * 1024, 7)), 'nothing written');
});

test('ErasureCodec encodes large blocks with the addon once it is checked, with the codec\'s parity', async () => {
  const before = nativeParityEncodes();
  for (const [k, m] of [[2, 2], [4, 2], [12, 4]] as [number, number][]) {
    const codec = new ErasureCodec(k, m);
    const { encode } = codecEncode(k, m);
    // The first encode starts the check (in the background); later ones take the addon once it passed.
    for (let round = 0; round < 3; round++) {
      const len = chunkLength(1 << 20, k);
      const data = randomFillSync(Buffer.alloc(k * len));
      const want = Buffer.alloc(m * len);
      const got = Buffer.alloc(m * len);
      await encode(data, want, len);
      await codec.encode(data, got, len);
      assert.ok(got.equals(want), `${k}+${m}, round ${round}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  assert.ok(nativeParityEncodes() - before >= 3, `${nativeParityEncodes() - before} encodes by the addon`);
});
