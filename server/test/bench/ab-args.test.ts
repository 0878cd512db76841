/**
 * `npm run bench:ab` (server/bench/ab.ts): its options, its summary, and its answer to a bad option (one line on stderr,
 * exit code 2, before anything is checked out or mounted).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FILE_SYSTEMS, parseAbArgs, summarizeAb, type AbLine } from '../../bench/ab-args.js';

const SCRIPT = fileURLToPath(new URL('../../bench/ab.ts', import.meta.url));

test('bench:ab options: --old is required, bench:get options go after --', () => {
  assert.deepEqual(parseAbArgs(['--old', 'HEAD~1', '--pairs', '2', '--', '--put', '--rounds', '2']), {
    old: 'HEAD~1', pairs: 2, imageGiB: 8, fs: 'ext4', fsOld: 'ext4', benchArgs: ['--put', '--rounds', '2'],
  });
  assert.equal(parseAbArgs(['--no-journal', '--old', 'HEAD']).fs, 'ext4-nojournal');
  assert.equal(parseAbArgs(['--no-journal', '--old', 'HEAD']).fsOld, 'ext4-nojournal');
  // Two file systems under one build: each side's images are made its own way.
  const fsAb = parseAbArgs(['--old', 'HEAD', '--fs', 'ext4-inline', '--fs-old', 'ext4']);
  assert.deepEqual([fsAb.fs, fsAb.fsOld], ['ext4-inline', 'ext4']);
  assert.deepEqual(FILE_SYSTEMS[fsAb.fs], ['mkfs.ext4', '-q', '-F', '-O', 'inline_data']);
  assert.throws(() => parseAbArgs(['--old', 'HEAD', '--fs', 'btrfs']), /--fs takes one of ext4, ext4-nojournal, ext4-inline, xfs, not btrfs/);
  assert.deepEqual(parseAbArgs(['--old', 'HEAD', '--no-journal', '--', '--no-journal']).benchArgs, ['--no-journal']);
  assert.throws(() => parseAbArgs([]), /--old <git revision> is required/);
  assert.throws(() => parseAbArgs(['--old', 'x', '--put']), /unknown option --put \(bench:get's options go after --\)/);
  assert.throws(() => parseAbArgs(['--old', 'x', '--pairs', '0']), /--pairs takes a whole number from 1 to 100, not 0/);
  assert.throws(() => parseAbArgs(['--old']), /--old needs a value/);
});

test('bench:ab summary: medians per build and round, and the ratio of new to old', () => {
  const line = (build: 'new' | 'old', pair: number, round: number, ops: number, cpu: number): AbLine => (
    { build, pair, round, opsPerSec: ops, serverCpuMsPerOp: cpu }
  );
  const lines = [
    line('new', 0, 0, 1100, 0.8), line('old', 0, 0, 1000, 0.9), line('new', 1, 0, 1300, 0.7), line('old', 1, 0, 900, 1.0),
    line('new', 2, 0, 1200, 0.75), line('old', 2, 0, 1000, 0.95), line('new', 0, 1, 2000, 0.5), line('old', 0, 1, 1000, 1),
  ];
  assert.deepEqual(summarizeAb(lines), [
    { summary: 'ab', round: 0, pairs: 3, newOpsPerSec: 1200, oldOpsPerSec: 1000, ratio: 1.2, newServerCpuMsPerOp: 0.75, oldServerCpuMsPerOp: 0.95 },
    { summary: 'ab', round: 1, pairs: 1, newOpsPerSec: 2000, oldOpsPerSec: 1000, ratio: 2, newServerCpuMsPerOp: 0.5, oldServerCpuMsPerOp: 1 },
  ]);
});

test('bench:ab with a bad option: exit code 2 and one line on stderr', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, '--pairs', '2'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, 'bench:ab: --old <git revision> is required (the build to compare the working tree with)\n');
});

test('bench:ab failing after its setup (a revision that does not exist): exit code 2, one line, nothing left behind', () => {
  const tmpBefore = new Set(readdirSync(tmpdir()).filter((n) => n.startsWith('svc-ab-')));
  const r = spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, '--old', 'no-such-revision-of-svc'], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /^bench:ab: git worktree add --detach \S+ no-such-revision-of-svc failed: .+\n$/);
  // process.exit skips `finally`: the temporary directory and the worktree are removed by fail() itself.
  assert.deepEqual(readdirSync(tmpdir()).filter((n) => n.startsWith('svc-ab-') && !tmpBefore.has(n)), []);
  const worktrees = spawnSync('git', ['worktree', 'list', '--porcelain'], { encoding: 'utf8', cwd: dirname(SCRIPT) }).stdout;
  assert.doesNotMatch(worktrees, /svc-ab-/);
});
