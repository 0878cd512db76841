/**
 * The bench's markdown table (server/bench/report.ts): one readable row per scenario, whatever fields its JSON line has.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { markdownTable, type BenchLine } from '../../bench/report.js';

const run: BenchLine[] = [
  { scenario: 'layout', target: 'svc', nodes: 1, drives: 4, erasure: 'EC:2' },
  { scenario: 'idle', serverRssMiB: 99, note: 'largest over the nodes, 2 s after start' },
  { scenario: 'get-4KiB', concurrency: 16, ops: 33367, opsPerSec: 6658, p50ms: 2.15, p99ms: 5.81, serverCpuPercent: 132 },
  { scenario: 'after-small-objects', serverPeakRssMiB: 203, rssAnonMiB: 150, rssFileMiB: 40, note: 'peak RSS incl. the 64-way 4 KiB load' },
  { scenario: 'put-64MiB', concurrency: 4, objects: 12, MiBPerSec: 347.7, serverCpuPercent: 158, mainThreadPercent: 88, machineIdlePercent: 7, fullGcs: 2, youngGcs: 35, serverRssMiB: 376 },
  { scenario: 'multipart-1GiB', parts: 64, MiBPerSec: 189.3, serverCpuPercent: 130 },
  { scenario: 'list-10000', keys: 10000, ms: 102, firstMs: 501, runsMs: [501, 118, 91, 100, 102], serverCpuPercent: 118, mainThreadPercent: 97, machineIdlePercent: null, fullGcs: null },
  { scenario: 'server-memory', peakRssMiB: 454, rssMiB: 404, note: 'largest over the nodes' },
];

test('the layout is a heading and each scenario one row with its result, latency, CPU counters and memory', () => {
  const lines = markdownTable(run).split('\n');
  assert.equal(lines[0], 'Layout: target svc, nodes 1, drives 4, erasure EC:2');
  assert.equal(lines[2], '| scenario | concurrency | result | p50 / p99 (ms) | server CPU (%) (busiest event loop, machine idle, full GCs) | server memory (MiB) |');
  const rows = lines.slice(4);
  assert.deepEqual(rows, [
    '| idle |  |  |  |  | 99 |',
    '| get-4KiB | 16 | 6,658 ops/s | 2.15 / 5.81 | 132 |  |',
    '| after-small-objects |  |  |  |  | peak 203, now anon 150 + files 40 |',
    '| put-64MiB | 4 | 347.7 MiB/s |  | 158 (loop 88, idle 7, full GCs 2) | 376 |',
    '| multipart-1GiB | 64 parts | 189.3 MiB/s |  | 130 |  |',
    '| list-10000 |  | 102 ms (first 501) |  | 118 (loop 97) |  |',
    '| server-memory |  |  |  |  | 404, peak 454 |',
  ]);
});

test('without a layout line the table starts with its header; every row has the header\'s six cells', () => {
  const lines = markdownTable(run.slice(1)).split('\n');
  assert.match(lines[0]!, /^\| scenario \|/);
  for (const l of lines) assert.equal(l.split(' | ').length, 6, l);
});

test('the CPU counters read from /proc move with work: the main thread and the machine', async () => {
  const { machineTicks, mainThreadSeconds } = await import('../../bench/proc-stats.js');
  const loop0 = mainThreadSeconds(process.pid);
  const ticks0 = machineTicks();
  // Busy on this thread until it has 0.2 s more CPU (however loaded the machine), or 20 s have passed.
  const until = performance.now() + 20_000;
  while (mainThreadSeconds(process.pid) - loop0 < 0.2 && performance.now() < until) for (let i = 0; i < 100_000; i++) Math.sqrt(i);
  const ticks = machineTicks();
  assert.ok(mainThreadSeconds(process.pid) - loop0 >= 0.2, 'work on this thread counts on the main thread');
  assert.ok(ticks.total > ticks0.total && ticks.idle >= ticks0.idle && ticks.total - ticks0.total >= ticks.idle - ticks0.idle);
  assert.equal(mainThreadSeconds(2 ** 30), 0, 'a process that is gone counts nothing');
});
