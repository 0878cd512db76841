import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isoTime } from './iso-time.js';

test('isoTime writes what toISOString writes, over days, hours, and the edges of each field', () => {
  const edges = [0, 1, 9, 10, 99, 100, 999, 59_999, 3_599_999, 86_399_999, 86_400_000, 951_782_400_000, 1_795_850_210_221,
    253_402_300_799_999, 4_102_444_800_000];
  for (const ms of edges) assert.equal(isoTime(new Date(ms)), new Date(ms).toISOString(), String(ms));
  // Random instants, with the day cache switching between them and staying on one day.
  let seed = 12345;
  const next = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  for (let i = 0; i < 20_000; i++) {
    const ms = i % 2 === 0 ? (next() * 65_536 + next()) % 253_402_300_800_000 : 1_795_850_210_221 + (next() % 86_400_000);
    assert.equal(isoTime(new Date(ms)), new Date(ms).toISOString(), String(ms));
  }
});

test('isoTime leaves dates toISOString writes otherwise to it: before 1970, after 9999, invalid', () => {
  for (const ms of [-1, -62_198_755_200_000, 253_402_300_800_000, 8.64e15]) assert.equal(isoTime(new Date(ms)), new Date(ms).toISOString());
  assert.throws(() => isoTime(new Date(Number.NaN)), RangeError);
});
