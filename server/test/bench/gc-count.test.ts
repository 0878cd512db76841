/** The bench's GC counters: collections counted from `--trace-gc` lines, per mark, over several processes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countGcs, gcCounter } from '../../bench/gc-count.js';

const MC = '[15860:0x273acb70]    15219 ms: Mark-Compact 25.1 (59.2) -> 23.0 (59.7) MB, 13.79 / 0.03 ms  (average mu = 0.913) finalize incremental marking via task; GC in old space requested\n';
const SC = '[15860:0x7f2da00015e0]     3698 ms: Scavenge 23.2 (57.1) -> 21.4 (57.1) MB, 0.93 / 0.00 ms  (average mu = 0.994, current mu = 0.993) external memory pressure;\n';

test('full and young collections are told apart; other output is not counted', () => {
  assert.deepEqual(countGcs(`S3 API: http://127.0.0.1:9000\n${MC}${SC}${SC}some log line mentioning Mark-Compact\n`), { full: 1, young: 2 });
  assert.deepEqual(countGcs(''), { full: 0, young: 0 });
});

test('a counter counts what each process printed after its mark, a line cut by the mark going to what came before', () => {
  const outs = ['start\n', 'start\n'];
  const gc = gcCounter(() => outs);
  const first = gc.mark();
  outs[0] += MC + SC;
  outs[1] += SC + MC.slice(0, 40);
  const second = gc.mark();
  assert.deepEqual(gc.since(first), { full: 1, young: 2 });
  outs[1] += MC.slice(40) + MC;
  assert.deepEqual(gc.since(second), { full: 1, young: 0 });
  assert.deepEqual(gc.since(first), { full: 3, young: 2 });
});
