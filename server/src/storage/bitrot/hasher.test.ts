import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BITROT_KEY, BitrotMismatchError, loadBitrotHasher, verifyFramedChunk } from './hasher.js';

test('bitrot key is HH-256 of the first 100 decimals of pi with a zero key (MinIO compatible)', async () => {
  const h = await loadBitrotHasher();
  const pi100 = '1415926535897932384626433832795028841971693993751058209749445923078164062862089986280348253421170679';
  assert.equal(pi100.length, 100);
  assert.deepEqual(h.hashWithKey(new Uint8Array(32), Buffer.from(pi100)), BITROT_KEY);
});

test('a framed chunk verifies, and one flipped byte is detected', async () => {
  const h = await loadBitrotHasher();
  const data = Buffer.from('the quick brown fox jumps over the lazy dog'.repeat(100));
  const framed = Buffer.concat([h.hash(data), data]);
  assert.deepEqual(verifyFramedChunk(h, framed, 'x'), data);
  for (const pos of [0, 31, 32, framed.length - 1]) {
    const bad = Buffer.from(framed);
    bad[pos] = bad[pos]! ^ 0x01;
    assert.throws(() => verifyFramedChunk(h, bad, 'x'), BitrotMismatchError);
  }
});

test('a chunk hashed piece by piece hashes as the whole chunk, however it is cut', async () => {
  const h = await loadBitrotHasher();
  const data = Buffer.from(Array.from({ length: 300_001 }, (_, i) => (i * 7 + (i >> 8)) & 0xff));
  for (const cuts of [[], [0], [1], [31, 32, 33], [65_536, 131_072], [299_999, 300_000, 300_001], [7, 7, 100_000]]) {
    const s = h.stream();
    let at = 0;
    for (const c of [...cuts, data.length]) {
      s.append(data.subarray(at, c));
      at = c;
    }
    assert.deepEqual(s.digest(), h.hash(data), `cut at ${cuts.join(',')}`);
  }
  assert.deepEqual(h.stream().digest(), h.hash(Buffer.alloc(0)));
});
