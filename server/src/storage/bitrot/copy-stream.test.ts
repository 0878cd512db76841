import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadAddon } from '../../common/index.js';
import { addonStreams, copyingStream, isAddonStream } from './copy-stream.js';
import { BITROT_KEY, loadBitrotHasher } from './hasher.js';

const avx2 = /\bavx2\b/.test(readFileSync('/proc/cpuinfo', 'utf8'));

interface BitrotAddon {
  stateBytes: number;
  init(state: Uint8Array, key: Uint8Array): void;
  append(state: Uint8Array, data: Uint8Array): void;
  copyIn(state: Uint8Array, src: Uint8Array, dst: Uint8Array): void;
  digest(state: Uint8Array, out: Uint8Array): void;
}

test('the bitrot addon is built, runs wherever the CPU has AVX2, and passed its check against highwayhasher', async () => {
  const hasher = await loadBitrotHasher();
  const streams = addonStreams(BITROT_KEY, (d) => hasher.hash(d));
  assert.equal(streams !== undefined, avx2);
  // And it is what the hasher hands out (the encoder's streams) wherever it runs.
  assert.equal(isAddonStream(hasher.stream()), avx2);
});

test('copied and appended pieces of any size hash as highwayhasher hashes the whole; copies are exact', { skip: !avx2 && 'no AVX2 on this CPU' }, async () => {
  const hasher = await loadBitrotHasher();
  for (const size of [0, 1, 31, 32, 33, 63, 64, 65, 1000, 262_144, 262_144 + 8, 1 << 20]) {
    const data = randomBytes(size);
    for (const pieces of [1, 3, 17, 1000]) {
      const s = hasher.stream();
      const block = Buffer.alloc(size + 64, 0xee);
      let off = 0;
      for (let i = 0; off < size; i++) {
        const len = Math.min(size - off, 1 + Math.floor(Math.random() * Math.max(1, (2 * size) / pieces)));
        if (i % 3 === 2) {
          block.set(data.subarray(off, off + len), 32 + off);
          s.append(data.subarray(off, off + len));
        } else s.copyIn(data.subarray(off, off + len), block.subarray(32 + off));
        off += len;
      }
      assert.ok(s.digest().equals(hasher.hash(data)), `${size} bytes in ~${pieces} pieces`);
      assert.ok(block.subarray(32, 32 + size).equals(data), 'copied bytes');
      assert.ok(block.subarray(0, 32).equals(Buffer.alloc(32, 0xee)) && block.subarray(32 + size).equals(Buffer.alloc(32, 0xee)), 'nothing written around');
    }
  }
});

test('a digest leaves the stream as it was: more pieces hash on', { skip: !avx2 && 'no AVX2 on this CPU' }, async () => {
  const hasher = await loadBitrotHasher();
  const data = randomBytes(1000);
  const s = hasher.stream();
  s.append(data.subarray(0, 333));
  assert.ok(s.digest().equals(hasher.hash(data.subarray(0, 333))));
  s.append(data.subarray(333));
  assert.ok(s.digest().equals(hasher.hash(data)));
});

test('the addon refuses bad calls with a clear error instead of touching memory it was not given', { skip: !avx2 && 'no AVX2 on this CPU' }, () => {
  const addon = loadAddon('bitrot')!.exports as BitrotAddon;
  const state = new Uint8Array(addon.stateBytes);
  const src = randomBytes(100);
  assert.throws(() => addon.append(state, src), /not set up by init/, 'a state init() never saw');
  assert.throws(() => addon.init(state, new Uint8Array(16)), /key must be a Uint8Array of 32 bytes/);
  assert.throws(() => addon.init(new Uint8Array(8), BITROT_KEY), /stateBytes/, 'a short state');
  addon.init(state, BITROT_KEY);
  assert.throws(() => addon.copyIn(state, src, new Uint8Array(99)), /dst at least as long/);
  const shared = Buffer.alloc(200);
  assert.throws(() => addon.copyIn(state, shared.subarray(0, 100), shared.subarray(50, 150)), /overlap/);
  assert.throws(() => addon.digest(state, new Uint8Array(31)), /at least 32 bytes/);
  assert.throws(() => (addon.copyIn as unknown as (...a: unknown[]) => void)(state, src), /copyIn\(state, src, dst\)/);
  assert.throws(() => (addon.append as unknown as (...a: unknown[]) => void)(state, 'text'), /Uint8Array/);
  // The refused calls changed nothing: the stream still hashes from empty.
  const out = Buffer.alloc(32);
  addon.digest(state, out);
  assert.ok(out.equals(digestOfNothing));
});

/** HighwayHash-256 of nothing with the bitrot key, from the hash everything else uses. */
const digestOfNothing = await loadBitrotHasher().then((h) => h.hash(new Uint8Array(0)));

test('where the addon does not run, a stream of an append-only hash copies each piece, then hashes the copy', () => {
  // node:crypto's SHA-256 stands in for highwayhasher's incremental hash: only the copy-then-append matters here.
  const h = createHash('sha256');
  const s = copyingStream({ append: (d) => h.update(d), digest: () => h.digest() });
  const data = randomBytes(5000);
  const block = Buffer.alloc(6000, 1);
  s.copyIn(data.subarray(0, 1234), block.subarray(100));
  s.append(data.subarray(1234, 2000));
  block.set(data.subarray(1234, 2000), 1334);
  s.copyIn(data.subarray(2000), block.subarray(2100));
  assert.ok(block.subarray(100, 5100).equals(data));
  assert.ok(s.digest().equals(createHash('sha256').update(data).digest()));
});
