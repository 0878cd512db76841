/**
 * `npm run bench:merge` (server/bench/merge-bench.ts): refuses a bad --keys with one line on stderr and exit code 2,
 * and a small run prints one JSON line with every key in the runs, and removes its index.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../bench/merge-bench.ts', import.meta.url));
const run = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, ...args], { encoding: 'utf8', timeout: 120_000 });

for (const [args, want] of [[['--keys', '0'], 'bench:merge: --keys must be an integer of at least 4\n'], [['--keys'], 'bench:merge: --keys needs a value\n']] as const) {
  test(`bench:merge ${args.join(' ')}: exit code 2 and one line saying what --keys takes`, () => {
    const r = run([...args]);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, want);
  });
}

test('bench:merge --keys 70000: one JSON line, every key in the merged runs, the index removed after', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-merge-bench-'));
  t.after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }));
  const r = run(['--dir', dir, '--keys', '70000']);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 1);
  const line = JSON.parse(lines[0]!) as Record<string, number>;
  assert.equal(line.keys, 70000);
  assert.equal(line.entries, 70000);
  // Five flushes of up to 16,384 entries: the first four merged into one run.
  assert.equal(line.runs, 2);
  assert.ok(line.peakRssMiB! >= line.peakRssAfterFirstFlushMiB! && line.longestFlushMs! >= 0);
  assert.deepEqual(readdirSync(dir), []);
});
