import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultParity, majorityQuorum, readQuorum, reduceErrors, writeQuorum } from './quorum.js';

test('default parity follows MinIO DefaultParityBlocks', () => {
  const want: Record<number, number> = { 1: 0, 2: 1, 3: 1, 4: 2, 5: 2, 6: 3, 7: 3, 8: 4, 12: 4, 16: 4 };
  for (const [n, p] of Object.entries(want)) assert.equal(defaultParity(Number(n)), p, `N=${n}`);
});

test('write quorum is K, or K+1 when K == M; read quorum K; majority N/2+1', () => {
  assert.equal(writeQuorum(2, 2), 3);
  assert.equal(writeQuorum(4, 2), 4);
  assert.equal(writeQuorum(1, 0), 1);
  assert.equal(readQuorum(2), 2);
  assert.equal(majorityQuorum(4), 3);
  assert.equal(majorityQuorum(5), 3);
});

test('reduceErrors returns the dominant error only when it reaches the quorum', () => {
  class A extends Error {}
  class B extends Error {}
  const rs = [{ ok: false as const, error: new A() }, { ok: false as const, error: new A() }, { ok: false as const, error: new B() }, { ok: true as const, value: 1 }];
  assert.ok(reduceErrors(rs, 2) instanceof A);
  assert.equal(reduceErrors(rs, 3), undefined);
});
