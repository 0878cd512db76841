/**
 * `npm run bench` (server/bench/bench.ts) runs end to end, so that the figures of issue 9's closing note come from a
 * benchmark that works on a fresh clone: against one node, a 4-node cluster and another S3 endpoint (the way a peer is
 * measured side by side), every scenario prints its JSON line with a measured result and its row of the markdown table.
 * Short runs (`--quick`, BENCH_SECONDS=1): what is asserted is that each figure was measured, never how fast it is
 * (speed is the benchmark's business, not a test's).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ceiling } from '../../bench/targets.js';

const BENCH = fileURLToPath(new URL('../../bench/bench.ts', import.meta.url));
const run = promisify(execFile);

type Line = Record<string, unknown> & { scenario: string };

async function bench(args: string[]): Promise<{ lines: Line[]; table: string }> {
  const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', BENCH, '--quick', ...args], {
    env: { ...process.env, BENCH_SECONDS: '1' }, timeout: 300_000, maxBuffer: 16 * 1024 * 1024,
  });
  const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as Line);
  return { lines, table: stderr };
}

/** `scenario` or `scenario c<concurrency>`, in the order printed. */
const names = (lines: Line[]): string[] => lines.map((l) => (l.concurrency === undefined ? l.scenario : `${l.scenario} c${String(l.concurrency)}`));

const positive = (line: Line, field: string): void => {
  const v = line[field];
  assert.ok(typeof v === 'number' && v > 0, `${names([line])[0]}: ${field} is ${JSON.stringify(v)}`);
};

const SMALL = ['put-4KiB c1', 'get-4KiB c1', 'put-4KiB c16', 'get-4KiB c16', 'after-small-objects'];
const LARGE = ['put-1MiB c1', 'get-1MiB c1', 'put-1MiB c4', 'get-1MiB c4', 'put-64MiB c1', 'get-64MiB c1', 'put-64MiB c4', 'get-64MiB c4'];

/** Every scenario's result measured, and in the table. */
function checkRun(lines: Line[], table: string): void {
  for (const l of lines) {
    if (l.scenario.startsWith('put-') || l.scenario.startsWith('get-')) {
      positive(l, 'opsPerSec' in l ? 'opsPerSec' : 'MiBPerSec');
      positive(l, 'serverCpuPercent');
    }
    if (l.scenario.endsWith('-4KiB')) { positive(l, 'p50ms'); positive(l, 'p99ms'); }
    if (l.scenario === 'list-10000') { assert.equal(l.keys, 10_000); positive(l, 'ms'); positive(l, 'firstMs'); }
    if (l.scenario === 'idle') positive(l, 'serverRssMiB');
    if (l.scenario === 'after-small-objects') positive(l, 'serverPeakRssMiB');
    if (l.scenario === 'server-memory') positive(l, 'peakRssMiB');
    if (l.scenario !== 'layout') assert.match(table, new RegExp(`^\\| ${l.scenario} \\|`, 'm'), `${l.scenario} has a row in the table`);
  }
  assert.match(table, /^\| scenario \| concurrency \| result \|/m);
}

test('one node, 4 drives: every scenario of a quick run is measured and tabled', async () => {
  const { lines, table } = await bench([]);
  assert.deepEqual(names(lines), ['layout', 'idle', ...SMALL, ...LARGE, 'list-10000', 'server-memory']);
  assert.deepEqual({ ...lines[0], dir: '' }, { ...lines[0], dir: '', target: 'svc', nodes: 1, drives: 4, erasure: 'EC:2', seconds: 1 });
  checkRun(lines, table);
});

test('the 4-node cluster: the small objects and the listing are measured, the nodes\' memory sampled', async () => {
  const { lines, table } = await bench(['--cluster', '--only', 'small,list']);
  assert.deepEqual(names(lines), ['layout', 'idle', ...SMALL, 'list-10000', 'server-memory']);
  assert.equal(lines[0]!.nodes, 4);
  checkRun(lines, table);
});

test('another S3 endpoint (as a peer is measured): its process sampled, the same scenarios', async () => {
  const peer = await ceiling();
  try {
    const pid = String(peer.pids()[0]);
    const { lines, table } = await bench(['--endpoint', peer.urls[0]!, '--access-key', peer.accessKey, '--secret-key', peer.secretKey, '--pid', pid, '--only', 'small,64MiB']);
    assert.deepEqual(names(lines), ['layout', 'idle', ...SMALL, 'put-64MiB c1', 'get-64MiB c1', 'put-64MiB c4', 'get-64MiB c4', 'server-memory']);
    assert.equal(lines[0]!.target, peer.urls[0]);
    checkRun(lines, table);
  } finally {
    await peer.stop();
  }
});
