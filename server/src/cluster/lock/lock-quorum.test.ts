import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_LOCK_BACKOFF, lockBackoffMs, readLockQuorum, writeLockQuorum } from './lock-quorum.js';

test('write quorum ⌊n/2⌋+1 and read quorum ⌈n/2⌉ for 1..8 lockers; a reader and a writer always share a locker', () => {
  const table: [n: number, write: number, read: number][] = [
    [1, 1, 1], [2, 2, 1], [3, 2, 2], [4, 3, 2], [5, 3, 3], [6, 4, 3], [7, 4, 4], [8, 5, 4],
  ];
  for (const [n, write, read] of table) {
    assert.equal(writeLockQuorum(n), write, `write quorum of ${n}`);
    assert.equal(readLockQuorum(n), read, `read quorum of ${n}`);
    assert.ok(2 * write > n, `two writers of ${n} overlap`);
    assert.ok(write + read > n, `a reader and a writer of ${n} overlap`);
  }
});

test('back-off: 250 ms plus a jitter that doubles per attempt, capped at 5 s', () => {
  assert.deepEqual(DEFAULT_LOCK_BACKOFF, { baseMs: 250, jitterMs: 100, capMs: 5_000 });
  const table: [attempt: number, random: number, ms: number][] = [
    [0, 0, 250], [0, 0.5, 300], [0, 1, 350], [1, 1, 450], [3, 1, 1_050], [3, 0.5, 650],
    [5, 1, 3_450], [6, 1, 5_000], [6, 0, 250], [40, 1, 5_000], [40, 0.5, 2_750], [-1, 1, 350],
  ];
  for (const [attempt, random, ms] of table) assert.equal(lockBackoffMs(attempt, random), ms, `attempt ${attempt}, random ${random}`);
  assert.equal(lockBackoffMs(2, 2), lockBackoffMs(2, 1), 'random is clamped to [0, 1]');
  assert.equal(lockBackoffMs(1, 1, { baseMs: 1, jitterMs: 2, capMs: 4 }), 4);
});
