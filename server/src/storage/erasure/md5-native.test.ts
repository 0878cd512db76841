import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { JobWorker } from '../../common/index.js';
import { loadNativeMd5, nativeMd5Path } from './md5-native.js';
import { compileMd5Module } from './md5-wasm.js';
import { MD5_WORKER_SOURCE } from './md5-worker-source.js';
import { MD5_INIT, md5Padded } from './md5-padding.fixture.js';

const avx512 = /\bavx512vl\b/.test(readFileSync('/proc/cpuinfo', 'utf8'));

/** `data` at an odd offset of a larger buffer: the addon reads where a view starts, aligned or not. */
function atOddOffset(data: Buffer, offset: number): Uint8Array {
  const big = Buffer.alloc(data.length + offset + 5, 0xee);
  data.copy(big, offset);
  return big.subarray(offset, offset + data.length);
}

test('the addon is built and runs on this CPU (scripts/build-native.sh, run by the setup); its vector lanes only with AVX-512VL', () => {
  const md5 = loadNativeMd5();
  assert.ok(nativeMd5Path() !== undefined && md5 !== undefined, 'addon built and loaded');
  assert.equal(md5.md5x4Avx512 !== undefined, avx512, `md5x4Avx512 exported: ${md5.md5x4Avx512 !== undefined}, AVX-512VL ${avx512}`);
  assert.ok(md5.lanes === 'scalar' || (avx512 && md5.lanes === 'avx512'), `lanes ${md5.lanes}`);
});

/** The digest of lane `lane` of a 16-word lanes state (A of lanes 0–3, then B, C, D). */
function laneDigest(state: Uint32Array, lane: number): string {
  const digest = Buffer.alloc(16);
  for (let w = 0; w < 4; w++) digest.writeUInt32LE(state[4 * w + lane]!, 4 * w);
  return digest.toString('hex');
}

test('md5x1, md5x2 and every way of md5x4 give the digests of node:crypto, from views at any offset, lanes of different data', () => {
  const md5 = loadNativeMd5()!;
  const fours = [['md5x4', md5.md5x4], ['md5x4Scalar', md5.md5x4Scalar], ['md5x4Avx512', md5.md5x4Avx512]] as const;
  for (const n of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 65_537]) {
    const data = [0, 1, 2, 3].map(() => randomBytes(n));
    const want = data.map((d) => createHash('md5').update(d).digest('hex'));
    const state1 = Uint32Array.from(MD5_INIT);
    const p = md5Padded(data[0]!);
    md5.md5x1(state1, atOddOffset(p, 3), p.length / 64);
    assert.equal(Buffer.from(state1.buffer).toString('hex'), want[0], `md5x1, length ${n}`);
    const views = data.map((d, lane) => atOddOffset(md5Padded(d), lane * 7));
    const fresh = (): Uint32Array => {
      const state = new Uint32Array(16);
      for (let lane = 0; lane < 4; lane++) for (let w = 0; w < 4; w++) state[4 * w + lane] = MD5_INIT[w]!;
      return state;
    };
    const state2 = fresh();
    state2.fill(7, 2, 4).fill(7, 6, 8).fill(7, 10, 12).fill(7, 14, 16);
    md5.md5x2(state2, views[0]!, views[1]!, p.length / 64);
    assert.deepEqual([laneDigest(state2, 0), laneDigest(state2, 1)], want.slice(0, 2), `md5x2, length ${n}`);
    assert.deepEqual([2, 3, 6, 7, 10, 11, 14, 15].map((i) => state2[i]), new Array(8).fill(7), `md5x2 leaves lanes 2 and 3, length ${n}`);
    for (const [name, fn] of fours) {
      if (fn === undefined) continue;
      const state4 = fresh();
      fn(state4, views[0]!, views[1]!, views[2]!, views[3]!, p.length / 64);
      assert.deepEqual([0, 1, 2, 3].map((lane) => laneDigest(state4, lane)), want, `${name}, length ${n}`);
    }
  }
});

test('the addon refuses bad arguments with a TypeError instead of reading past the data', () => {
  const md5 = loadNativeMd5()!;
  const b = new Uint8Array(128);
  const s16 = new Uint32Array(16);
  assert.throws(() => md5.md5x4(s16, b, b, b, b, 3), TypeError, 'fewer bytes than blocks');
  assert.throws(() => md5.md5x4Scalar(s16, b, b, b, new Uint8Array(64), 2), TypeError, 'one lane short');
  assert.throws(() => md5.md5x4(new Uint32Array(15), b, b, b, b, 1), TypeError, 'short state');
  assert.throws(() => md5.md5x4(s16, b, b, new Uint16Array(64) as unknown as Uint8Array, b, 1), TypeError, 'wrong array type');
  assert.throws(() => md5.md5x4(s16, b, b, b, b, -1), TypeError, 'negative count');
  assert.throws(() => md5.md5x4(s16, b, b, b, b, 1.5), TypeError, 'fractional count');
  assert.throws(() => md5.md5x2(s16, b, new Uint8Array(64), 2), TypeError, 'md5x2: second lane short');
  assert.throws(() => md5.md5x2(new Uint32Array(4), b, b, 1), TypeError, 'md5x2: short state');
  assert.throws(() => md5.md5x1(new Uint32Array(4), b, 3), TypeError);
  assert.throws(() => md5.md5x1(new Uint32Array(3), b, 1), TypeError, 'md5x1: short state');
  assert.throws(() => (md5.md5x1 as unknown as () => void)(), TypeError, 'no arguments');
  md5.md5x4(s16, b, b, b, b, 2); // exactly enough
  md5.md5x2(s16, b, b, 2);
});

/** Drives one MD5 worker with raw messages: the same uploads, updates of odd sizes, interleaved. */
async function digestsFrom(native: string | undefined, bodies: Buffer[][]): Promise<string[]> {
  const worker = new JobWorker(MD5_WORKER_SOURCE, { onExit: () => undefined, failure: (e) => e, workerData: { module: compileMd5Module(), native } });
  try {
    const pending: Promise<unknown>[] = [];
    const parts = Math.max(...bodies.map((b) => b.length));
    for (let part = 0; part < parts; part++) {
      bodies.forEach((body, id) => {
        const chunk = body[part];
        if (chunk === undefined) return;
        const batch = new ArrayBuffer(chunk.length + 100);
        new Uint8Array(batch).set(chunk);
        pending.push(worker.request({ op: 'update', id, small: false, batch, length: chunk.length }, [batch]));
      });
    }
    const digests = await Promise.all(bodies.map((_, id) => worker.request({ op: 'digest', id, small: false })));
    await Promise.all(pending);
    return digests.map((d) => Buffer.from(d.digest as Uint8Array).toString('hex'));
  } finally {
    worker.terminate();
  }
}

test('the MD5 worker gives the same digests with the addon and with WebAssembly: blocks across updates, short tails', async () => {
  const sizes = [1, 63, 64, 65, 100, 4097, 65_536, 1 << 20, (1 << 20) + 33, 130_000, 0, 2 << 20];
  const bodies = [0, 1, 2, 3, 4].map((u) => Array.from({ length: 3 + u * 2 }, (_, i) => randomBytes(sizes[(u * 5 + i * 3) % sizes.length]!)));
  const expected = bodies.map((parts) => { const h = createHash('md5'); for (const p of parts) h.update(p); return h.digest('hex'); });
  assert.deepEqual(await digestsFrom(nativeMd5Path(), bodies), expected, 'addon');
  assert.deepEqual(await digestsFrom(undefined, bodies), expected, 'WebAssembly');
  // Two uploads alone: rounds of two lanes (md5x2), then one.
  assert.deepEqual(await digestsFrom(nativeMd5Path(), bodies.slice(3)), expected.slice(3), 'addon, two uploads');
});
