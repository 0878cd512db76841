/**
 * Every bench command answers `--help` with its usage (exit 0, nothing started) and refuses what it does not know
 * with one line on stderr and exit code 2 (server/bench/cli-options.ts; the quality bar: `--help` on every command,
 * bad input a clear answer). Before, `npm run bench -- --help` started a full run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { checkArgs } from '../../bench/cli-options.js';

const spec = { flags: ['--put'], values: ['--size', '--old'], positional: 1 };

test('checkArgs: flags, options with values and one positional argument pass', () => {
  assert.equal(checkArgs(spec, []), null);
  assert.equal(checkArgs(spec, ['--put', '--size', '4096', 'DIR']), null);
});

test('checkArgs: --help or -h anywhere before a pass-through "--" asks for help', () => {
  assert.deepEqual(checkArgs(spec, ['--size', '1', '--help']), { help: true });
  assert.deepEqual(checkArgs(spec, ['-h']), { help: true });
  assert.deepEqual(checkArgs({ ...spec, passThrough: true }, ['--', '--help']), null);
  assert.deepEqual(checkArgs({ helpOnly: true, passThrough: true }, ['--anything', 'x', '--', '-h']), null);
  assert.deepEqual(checkArgs({ helpOnly: true }, ['--anything', '--help']), { help: true });
});

test('checkArgs: an unknown option, a missing value or an argument too many is an error saying which', () => {
  assert.deepEqual(checkArgs(spec, ['--bogus']), { error: 'unknown option --bogus (--help lists the options)' });
  assert.deepEqual(checkArgs(spec, ['--size']), { error: '--size needs a value' });
  assert.deepEqual(checkArgs(spec, ['--size', '--put']), { error: '--size needs a value' });
  assert.deepEqual(checkArgs(spec, ['a', 'b']), { error: 'unexpected argument b (--help lists the options)' });
  assert.deepEqual(checkArgs({ ...spec, passThrough: true }, ['--', '--bogus']), null);
});

const SCRIPTS: [string, string][] = [
  ['bench', 'bench.ts'], ['bench:get', 'get-bench.ts'], ['bench:ab', 'ab.ts'], ['bench:rpc', 'rpc-bench.ts'],
  ['bench:changelog', 'change-log-bench.ts'], ['bench:fs', 'fs-commit.ts'], ['bench:index', 'index-bench.ts'],
  ['list-bench', 'list-bench.ts'], ['soak', 'soak.ts'], ['bench:align', 'direct-align-bench.ts'],
  ['bench:md5', 'md5-bench.ts'], ['bench:disk', 'disk-ceiling.ts'], ['bench:scanner', 'scanner-bench.ts'],
  ['bench:parts', 'parts-bench.ts'], ['bench:versions', 'versions-bench.ts'],
];

function run(script: string, args: string[], env: NodeJS.ProcessEnv = process.env): ReturnType<typeof spawnSync> & { stdout: string; stderr: string } {
  const path = fileURLToPath(new URL(`../../bench/${script}`, import.meta.url));
  return spawnSync(process.execPath, ['--import', 'tsx', path, ...args], { encoding: 'utf8', timeout: 60_000, env }) as never;
}

for (const [command, script] of SCRIPTS) {
  test(`${command} --help: the usage on stdout, exit 0, nothing run`, () => {
    const r = run(script, ['--help']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^Usage: /);
    assert.doesNotMatch(r.stdout, /"scenario"/);
    assert.doesNotMatch(r.stderr, /\S/);
  });
  if (command === 'bench:ab') continue; // its own parser words its errors (ab-args.test.ts)
  test(`${command} --bogus: one line on stderr naming the option, exit 2`, () => {
    const r = run(script, ['--bogus']);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `${command}: unknown option --bogus (--help lists the options)\n`);
  });
}

test('bench --only with a group it does not have: exit 2, the groups it has', () => {
  const r = run('bench.ts', ['--only', 'small,smal']);
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stderr, 'bench: --only takes small, 1MiB, 64MiB, multipart, list (comma-separated), not "smal"\n');
});

test('bench and bench:get with an SVC_KEY_INDEX the server would refuse: exit 2, one line, no server started', () => {
  for (const [command, script, args] of [['bench', 'bench.ts', ['--only', 'list']], ['bench:get', 'get-bench.ts', []]] as const) {
    const r = run(script, [...args], { ...process.env, SVC_KEY_INDEX: 'maybe' });
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `${command}: SVC_KEY_INDEX="maybe" is not a boolean (expected true or false)\n`);
  }
});

test('bench:align, bench:disk and bench:md5 with a count that is not a whole number of at least 1: exit 2, one line', () => {
  for (const [command, script, name, value, what] of [
    ['bench:align', 'direct-align-bench.ts', 'BENCH_MIB', 'x', 'whole number of MiB'],
    ['bench:disk', 'disk-ceiling.ts', 'BENCH_MIB', '0', 'whole number of MiB'],
    ['bench:md5', 'md5-bench.ts', 'BENCH_ROUNDS', '1.5', 'whole number'],
  ] as const) {
    const r = run(script, [], { ...process.env, [name]: value });
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `${command}: ${name} must be a ${what}, at least 1, not "${value}"\n`);
  }
});

test('bench:get, list-bench, bench:scanner, bench:parts and bench:versions with a count that is not a whole number of at least 1: exit 2, one line, nothing run', () => {
  for (const [command, script, name, value] of [
    ['bench:scanner', 'scanner-bench.ts', '--keys', '0'], ['bench:scanner', 'scanner-bench.ts', '--cycles', 'two'],
    ['bench:scanner', 'scanner-bench.ts', '--keys', '-5'], ['bench:parts', 'parts-bench.ts', '--parts', '1.5'],
    ['bench:parts', 'parts-bench.ts', '--every', '0'], ['bench:versions', 'versions-bench.ts', '--size', 'big'],
    ['bench:get', 'get-bench.ts', '--size', 'abc'], ['bench:get', 'get-bench.ts', '--concurrency', '0'],
    ['list-bench', 'list-bench.ts', '--runs', 'abc'],
  ] as const) {
    const r = run(script, [name, value]);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `${command}: ${name} must be a whole number, at least 1, not "${value}"\n`);
  }
  const r = run('parts-bench.ts', ['--parts', '10001']);
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stderr, 'bench:parts: --parts must be at most 10000 (S3\'s largest part number), not 10001\n');
  const big = run('versions-bench.ts', ['--size', '67108865']);
  assert.equal(big.status, 2, big.stderr);
  assert.equal(big.stdout, '');
  assert.equal(big.stderr, 'bench:versions: --size must be at most 67108864 (64 MiB), not 67108865\n');
});
