import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkHistory, type FinalValue } from './checker.js';
import { History, type WriteOp } from './history.js';

/** A history written by hand: writes with explicit windows (end undefined = unknown outcome). */
function historyOf(writes: Array<Partial<WriteOp> & Pick<WriteOp, 'key' | 'sha' | 'start'>>): History {
  const h = new History();
  for (const w of writes) {
    const end = 'end' in w ? w.end : w.start + 1;
    h.writes.push({
      client: 0, kind: w.sha === null ? 'delete' : 'put', size: 10, ...w, end, status: end === undefined ? 'unknown' : 'ok',
    });
  }
  return h;
}

const v = (sha: string, size = 10): FinalValue => ({ sha, size });
const listed = (entries: Array<[string, number]>): Map<string, number> => new Map(entries);

test('a final value from the last acknowledged write, or from one concurrent with it, passes', () => {
  const h = historyOf([
    { key: 'a', sha: 'a1', start: 0, end: 10 },
    { key: 'a', sha: 'a2', start: 20, end: 40 },
    { key: 'a', sha: 'a3', start: 30, end: 35 },
    { key: 'b', sha: 'b1', start: 0, end: 10 },
    { key: 'b', sha: null, start: 15, end: 16 },
  ]);
  for (const last of ['a2', 'a3']) {
    const r = checkHistory(h, new Map([['a', v(last)], ['b', null]]), [listed([['a', 10]])]);
    assert.deepEqual([r.lost, r.corrupt, r.stale, r.listing], [[], [], [], []], last);
    assert.equal(r.objectsVerified, 1);
  }
});

test('a superseded value, a vanished object and a resurrected delete count as lost', () => {
  const h = historyOf([
    { key: 'a', sha: 'a1', start: 0, end: 10 },
    { key: 'a', sha: 'a2', start: 20, end: 30 },
    { key: 'b', sha: 'b1', start: 0, end: 10 },
    { key: 'c', sha: 'c1', start: 0, end: 10 },
    { key: 'c', sha: null, start: 20, end: 21 },
  ]);
  const r = checkHistory(h, new Map([['a', v('a1')], ['b', null], ['c', v('c1')]]), []);
  assert.deepEqual(r.lost.map((f) => f.key), ['a', 'b', 'c']);
  assert.equal(r.objectsVerified, 0);
});

test('content never written to the key, or with another size, counts as corrupt', () => {
  const h = historyOf([{ key: 'a', sha: 'a1', start: 0, end: 10 }, { key: 'b', sha: 'b1', start: 0, end: 10 }]);
  const r = checkHistory(h, new Map([['a', v('b1')], ['b', v('b1', 11)]]), []);
  assert.deepEqual(r.corrupt.map((f) => f.key), ['a', 'b']);
  assert.deepEqual(r.lost, []);
});

test('a write of unknown outcome may or may not have happened', () => {
  const h = historyOf([{ key: 'a', sha: 'a1', start: 0, end: 10 }, { key: 'a', sha: 'a2', start: 5, end: undefined }]);
  for (const final of [v('a1'), v('a2')]) assert.deepEqual(checkHistory(h, new Map([['a', final]]), []).lost, []);
  assert.equal(checkHistory(h, new Map([['a', null]]), []).lost.length, 1);
  assert.deepEqual(checkHistory(historyOf([{ key: 'n', sha: 'n1', start: 0, end: undefined }]), new Map([['n', null]]), []).lost, []);
});

test('reads during the run: stale and never-written values are found', () => {
  const h = historyOf([{ key: 'a', sha: 'a1', start: 0, end: 10 }, { key: 'a', sha: 'a2', start: 20, end: 30 }]);
  h.reads.push(
    { client: 1, key: 'a', sha: 'a1', start: 15, end: 25 }, // concurrent with a2: fine
    { client: 1, key: 'a', sha: null, start: 5, end: 8 }, // before a1 was acknowledged: fine
    { client: 2, key: 'a', sha: 'a1', start: 31, end: 32 }, // a2 acknowledged before: stale
    { client: 2, key: 'a', sha: null, start: 11, end: 12 }, // a1 acknowledged before: stale
    { client: 3, key: 'a', sha: 'zz', start: 40, end: 41 }, // never written: corrupt
  );
  const r = checkHistory(h, new Map([['a', v('a2')]]), []);
  assert.equal(r.readsChecked, 5);
  assert.equal(r.stale.length, 2);
  assert.deepEqual(r.absentDuringOverwrite, []);
  assert.deepEqual(r.corrupt.map((f) => f.problem), ['client 3 read zz, never written to this key']);
});

test('"absent" read while an overwrite is in flight is counted apart from other stale reads', () => {
  const h = historyOf([{ key: 'a', sha: 'a1', start: 0, end: 10 }, { key: 'a', sha: 'a2', start: 20, end: 30 }]);
  h.reads.push({ client: 1, key: 'a', sha: null, start: 25, end: 26 }, { client: 1, key: 'a', sha: null, start: 31, end: 32 });
  const r = checkHistory(h, new Map([['a', v('a2')]]), []);
  assert.deepEqual(r.absentDuringOverwrite.map((f) => f.problem), ['client 1 read absent, already replaced before the read began']);
  assert.equal(r.stale.length, 1);
});

test('listings must agree with reads on every node', () => {
  const h = historyOf([{ key: 'a', sha: 'a1', start: 0, end: 10 }, { key: 'b', sha: null, start: 0, end: 10 }]);
  const final = new Map([['a', v('a1')], ['b', null]]);
  assert.deepEqual(checkHistory(h, final, [listed([['a', 10]])]).listing, []);
  const r = checkHistory(h, final, [listed([['a', 10]]), listed([['b', 3]]), listed([['a', 9], ['x', 1]])]);
  assert.deepEqual(r.listing.map((f) => f.problem), [
    'readable but not listed by node 2', 'listed by node 2 but absent', 'node 3 lists size 9, reads 10', 'node 3 lists a key nobody wrote',
  ]);
});
