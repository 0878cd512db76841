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

test('the addon is built and runs wherever the CPU has AVX-512VL (scripts/build-native.sh, run by the setup)', () => {
  assert.equal(nativeMd5Path() !== undefined, avx512, `addon path ${nativeMd5Path()}, AVX-512VL ${avx512}`);
});

test('md5x1 and md5x4 give the digests of node:crypto, from views at any offset, lanes of different data', { skip: !avx512 && 'no AVX-512VL on this CPU: the WebAssembly build runs' }, () => {
  const md5 = loadNativeMd5()!;
  for (const n of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 65_537]) {
    const data = [0, 1, 2, 3].map(() => randomBytes(n));
    const state1 = Uint32Array.from(MD5_INIT);
    const p = md5Padded(data[0]!);
    md5.md5x1(state1, atOddOffset(p, 3), p.length / 64);
    assert.equal(Buffer.from(state1.buffer).toString('hex'), createHash('md5').update(data[0]!).digest('hex'), `md5x1, length ${n}`);
    const state4 = new Uint32Array(16);
    for (let lane = 0; lane < 4; lane++) for (let w = 0; w < 4; w++) state4[4 * w + lane] = MD5_INIT[w]!;
    const views = data.map((d, lane) => atOddOffset(md5Padded(d), lane * 7));
    md5.md5x4(state4, views[0]!, views[1]!, views[2]!, views[3]!, p.length / 64);
    for (let lane = 0; lane < 4; lane++) {
      const digest = Buffer.alloc(16);
      for (let w = 0; w < 4; w++) digest.writeUInt32LE(state4[4 * w + lane]!, 4 * w);
      assert.equal(digest.toString('hex'), createHash('md5').update(data[lane]!).digest('hex'), `md5x4, length ${n}, lane ${lane}`);
    }
  }
});

test('the addon refuses bad arguments with a TypeError instead of reading past the data', { skip: !avx512 && 'no AVX-512VL on this CPU' }, () => {
  const md5 = loadNativeMd5()!;
  const b = new Uint8Array(128);
  const s16 = new Uint32Array(16);
  assert.throws(() => md5.md5x4(s16, b, b, b, b, 3), TypeError, 'fewer bytes than blocks');
  assert.throws(() => md5.md5x4(new Uint32Array(15), b, b, b, b, 1), TypeError, 'short state');
  assert.throws(() => md5.md5x4(s16, b, b, new Uint16Array(64) as unknown as Uint8Array, b, 1), TypeError, 'wrong array type');
  assert.throws(() => md5.md5x4(s16, b, b, b, b, -1), TypeError, 'negative count');
  assert.throws(() => md5.md5x4(s16, b, b, b, b, 1.5), TypeError, 'fractional count');
  assert.throws(() => md5.md5x1(new Uint32Array(4), b, 3), TypeError);
  assert.throws(() => (md5.md5x1 as unknown as () => void)(), TypeError, 'no arguments');
  md5.md5x4(s16, b, b, b, b, 2); // exactly enough
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

test('the MD5 worker gives the same digests with the addon and with WebAssembly: blocks across updates, short tails', { skip: !avx512 && 'no AVX-512VL on this CPU' }, async () => {
  const sizes = [1, 63, 64, 65, 100, 4097, 65_536, 1 << 20, (1 << 20) + 33, 130_000, 0, 2 << 20];
  const bodies = [0, 1, 2, 3, 4].map((u) => Array.from({ length: 3 + u * 2 }, (_, i) => randomBytes(sizes[(u * 5 + i * 3) % sizes.length]!)));
  const expected = bodies.map((parts) => { const h = createHash('md5'); for (const p of parts) h.update(p); return h.digest('hex'); });
  assert.deepEqual(await digestsFrom(nativeMd5Path(), bodies), expected, 'addon');
  assert.deepEqual(await digestsFrom(undefined, bodies), expected, 'WebAssembly');
});
