/**
 * Two builds of svc on one scenario, interleaved, each run on a file system made fresh for it (issue 9: "compare as
 * ratios taken in one run"): `npm run bench:ab -- --old <git rev> [--pairs N] [--no-journal | --fs KIND] [--fs-old KIND]
 * [-- <bench:get options>]`. KIND is a file system of ab-args.ts FILE_SYSTEMS; `--old HEAD --fs A --fs-old B` on a clean
 * tree compares two file systems under one build.
 *
 * Why a fresh file system per run: on this VM's root ext4 (no journal) a run's figures follow what ran before it.
 * Files deleted in the last minutes make every new inode scan past them (ext4's recently_deleted check), and the
 * same build read 1,008 and 1,393 4 KiB PUTs/s in back-to-back runs. On a new ext4 image per run (a loop device, with
 * a journal as a deployment would have) the same comparison repeated within a few per cent (docs/performance.md,
 * sixteenth session).
 *
 * The old build is checked out in a temporary git worktree (node_modules linked from this checkout) and built with
 * `tsc -b`; both builds run their own `server/bench/get-bench.ts`. The order alternates per pair.
 * Output: get-bench's JSON lines with `build` ("new" or "old") and `pair` added, then per build and round the median
 * of ops/s and of server CPU per operation. Needs root, the file system's mkfs, mount and loop devices; a bad option or a missing
 * tool: one line on stderr, exit code 2.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FILE_SYSTEMS, parseAbArgs, summarizeAb, type AbLine } from './ab-args.js';
import { checkOptions } from './cli-options.js';

/** Undoes what the run set up (mount, worktree, temp directory); set once there is something to undo. */
let cleanUpHook: (() => void) | undefined;

function fail(message: string): never {
  process.stderr.write(`bench:ab: ${message}\n`);
  // process.exit skips `finally`: a failed step used to leave the image mounted and the worktree registered.
  cleanUpHook?.();
  process.exit(2);
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error !== undefined || r.status !== 0) {
    fail(`${cmd} ${args.join(' ')} failed: ${(r.stderr ?? '').trim().split('\n').pop() ?? r.error?.message}`);
  }
  return r;
}

// Only --help here: parseAbArgs checks the options and says what is wrong with them (its messages, its tests).
checkOptions('bench:ab', `Usage: npm run bench:ab -- --old REV [options] [-- bench:get options]
Two builds of svc on one bench:get scenario, interleaved, each run on a file system made fresh for it (needs root):
the working tree against REV (built in a temporary git worktree). Prints bench:get's lines with the build and pair,
then per round the median ops/s and server CPU per operation of each build, and their ratio.
Options:
  --old REV              the git revision to compare the working tree with (required)
  --pairs N              runs of each build, alternated (default 3)
  --image-gib N          size of each fresh file system image (default 8)
  --no-journal           ext4 without a journal (as --fs ext4-nojournal)
  --fs KIND              ${Object.keys(FILE_SYSTEMS).join(', ')} (default ext4)
  --fs-old KIND          the old build's file system, when it differs
  -h, --help             this text
`, { passThrough: true, helpOnly: true });
const opts = (() => {
  try {
    return parseAbArgs(process.argv.slice(2));
  } catch (err) {
    return fail((err as Error).message);
  }
})();
if (process.getuid?.() !== 0) fail('needs root (it makes and mounts a file system per run)');
for (const tool of [...new Set([FILE_SYSTEMS[opts.fs]![0]!, FILE_SYSTEMS[opts.fsOld]![0]!]), 'mount', 'umount']) {
  if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) fail(`${tool} not found (apt-get install ${tool === 'mkfs.xfs' ? 'xfsprogs' : 'e2fsprogs mount'})`);
}

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const work = mkdtempSync(join(tmpdir(), 'svc-ab-'));
const oldTree = join(work, 'old');
const image = join(work, 'fs.img');
const mnt = join(work, 'mnt');
let mounted = false;

/**
 * Unmounts the image. The server has exited, but a child of it may not have yet: its sync shell's last `sync
 * --file-system` (storage/drive/sync-fs.ts) holds the file system for a moment, and umount answered "target is busy".
 * Retried for up to 10 s; the error of the last try when it never succeeds.
 */
function unmount(): string | undefined {
  for (let i = 0; ; i++) {
    const r = spawnSync('umount', [mnt], { encoding: 'utf8' });
    if (r.status === 0) return undefined;
    if (i >= 40 || !/busy/.test(r.stderr ?? '')) return `umount ${mnt} failed: ${(r.stderr ?? '').trim() || r.error?.message}`;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
  }
}

function cleanUp(): void {
  cleanUpHook = undefined;
  if (mounted) unmount();
  mounted = false;
  spawnSync('git', ['worktree', 'remove', '--force', oldTree], { cwd: repo });
  rmSync(work, { recursive: true, force: true });
}
cleanUpHook = cleanUp;
process.on('SIGINT', () => { cleanUp(); process.exit(130); });

try {
  run('git', ['worktree', 'add', '--detach', oldTree, opts.old], repo);
  for (const d of ['.', 'server', 'deploy-kit', 'integration']) {
    if (existsSync(join(repo, d, 'node_modules')) && existsSync(join(oldTree, d))) symlinkSync(join(repo, d, 'node_modules'), join(oldTree, d, 'node_modules'));
  }
  for (const tree of [repo, oldTree]) run('npx', ['tsc', '-b'], tree);
  mkdirSync(mnt);
  const lines: AbLine[] = [];
  for (let pair = 0; pair < opts.pairs; pair++) {
    const order = pair % 2 === 0 ? (['new', 'old'] as const) : (['old', 'new'] as const);
    for (const build of order) {
      writeFileSync(image, '');
      truncateSync(image, opts.imageGiB * 1024 ** 3);
      const [mkfs, ...mkfsArgs] = FILE_SYSTEMS[build === 'new' ? opts.fs : opts.fsOld]!;
      run(mkfs!, [...mkfsArgs, image], work);
      run('mount', ['-o', 'loop', image, mnt], work);
      mounted = true;
      const tree = build === 'new' ? repo : oldTree;
      const r = run('node', ['--import', 'tsx', 'server/bench/get-bench.ts', ...opts.benchArgs], tree, { ...process.env, BENCH_DIR: mnt, BENCH_KEEP: '1' });
      const unmounted = unmount();
      if (unmounted !== undefined) fail(unmounted);
      mounted = false;
      rmSync(image);
      for (const text of r.stdout.split('\n')) {
        if (!text.startsWith('{')) continue;
        const line = { ...(JSON.parse(text) as Record<string, unknown>), build, pair } as AbLine;
        lines.push(line);
        process.stdout.write(`${JSON.stringify(line)}\n`);
      }
    }
  }
  for (const s of summarizeAb(lines)) process.stdout.write(`${JSON.stringify(s)}\n`);
} finally {
  cleanUp();
}
