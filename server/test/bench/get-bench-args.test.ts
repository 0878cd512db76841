/**
 * `npm run bench:get` refuses option combinations it cannot measure: one line on stderr and exit code 2, before any
 * server starts (server/bench/get-bench.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../bench/get-bench.ts', import.meta.url));

for (const args of [['--processes', '3'], ['--processes', '2', '--put'], ['--processes', '2', '--fresh'], ['--processes', '2', '--cold']]) {
  test(`bench:get ${args.join(' ')}: exit code 2 and one line saying what --processes takes`, () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, ...args], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, 'bench:get: --processes takes 1 or 2, and 2 only for GETs without --put, --cold or --fresh\n');
  });
}

for (const args of [['--mixed', '--put'], ['--mixed', '--cold'], ['--mixed', '--fresh'], ['--mixed', '--processes', '2']]) {
  test(`bench:get ${args.join(' ')}: exit code 2 and one line saying what --mixed goes without`, () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, ...args], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, 'bench:get: --mixed goes without --put, --cold, --fresh and --processes\n');
  });
}
