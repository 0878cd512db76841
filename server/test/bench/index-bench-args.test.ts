/**
 * `npm run bench:index` refuses options it cannot measure: one line on stderr and exit code 2, before it looks for
 * SQLite or touches a file (server/bench/index-bench.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../bench/index-bench.ts', import.meta.url));

for (const args of [['--writers', '0'], ['--writers', '1.5'], ['--seconds', '-1'], ['--sync', 'OFF'], ['--store', 'lmdb'], ['--seconds']]) {
  test(`bench:index ${args.join(' ')}: exit code 2 and one line saying what the options take`, () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, ...args], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, '');
    const want = args.length === 1 ? 'bench:index: --seconds needs a value\n' : 'bench:index: --writers takes a positive integer, --seconds a positive number, --sync FULL or NORMAL, --store sqlite, files, runs, log or index\n';
    assert.equal(r.stderr, want);
  });
}
