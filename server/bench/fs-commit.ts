/**
 * `npm run bench:fs [-- DIR]`: what the file system under the drives costs for the small-object write pattern, without
 * the server. Per operation, like one drive's share of a 4 KiB PUT (local-drive.ts renameData): mkdir of the key
 * directory, a 4 KiB temp file created and written with O_DSYNC, renamed into the key directory. Each mode runs 3 s
 * and prints a JSON line: ops/s and the kernel/user CPU per operation.
 *   - `commit`: the full pattern, in one thread (synchronous calls);
 *   - `no-sync`: without O_DSYNC (what the sync costs); `no-mkdir`: no key directory (what one inode costs);
 *   - `same-dir`: the temp file created in the key directory and renamed there (what the rename across directories
 *     costs; not what the server does: docs/performance.md, ninth session, says why);
 *   - `put-4-drives-c16`: the file system's whole share of 4 KiB PUTs, without the server — 16 PUTs in flight, each
 *     the commit on 4 drive directories at once through fs/promises (libuv's threads, as the server does; the npm
 *     script sets UV_THREADPOOL_SIZE=64 like bin/svc.js). Its PUTs/s is a ceiling for the server's on the same file
 *     system: whatever the server's own code costs comes on top.
 * Then everything made so far is deleted, and `commit` and `put-4-drives-c16` run again (`afterDeleting`: the number
 * of inodes just freed). Why: on this project's machine the root file system is ext4 without a journal, where the
 * inode allocator steps over every inode freed in the last 1-6 minutes, one by one, on each creation
 * (fs/ext4/ialloc.c find_inode_bit/recently_deleted; only without a journal). Runs before that step delete nothing,
 * so they compare modes, not the deletions of the mode before (the ninth session's runs deleted after each mode, and
 * so measured mostly that); start it when nothing was deleted on that file system for some minutes.
 * DIR defaults to the temp directory; point it at the file system the drives are on (BENCH_DIR of `npm run bench`).
 */
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { mkdir, open, rename } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emit } from './report.js';
import { checkOptions } from './cli-options.js';

checkOptions('bench:fs', `Usage: npm run bench:fs [-- DIR]
What the file system under the drives costs for one drive's share of a small PUT (mkdir, a 4 KiB O_DSYNC temp file,
rename), without the server, in several modes, then 16 PUTs' worth in flight on 4 drive directories; one JSON line
per mode. DIR: the file system to measure (default BENCH_DIR, else the temp directory). BENCH_SECONDS per mode (3).
`, { positional: 1 });

type Mode = 'commit' | 'no-sync' | 'no-mkdir' | 'same-dir';

/** Runs one mode in a new directory of `parent` (kept); answers the number of inodes it made. */
function run(parent: string, mode: Mode, seconds: number, afterDeleting: number): number {
  const root = mkdtempSync(join(parent, 'svc-fs-commit-'));
  mkdirSync(join(root, 'tmp'));
  mkdirSync(join(root, 'vol'));
  const data = Buffer.alloc(4096 + 400, 1);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (mode === 'no-sync' ? 0 : constants.O_DSYNC);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < seconds * 1000) {
    const key = join(root, 'vol', `k${n}`);
    if (mode !== 'no-mkdir') mkdirSync(key);
    const tmp = mode === 'same-dir' ? join(key, `${randomUUID()}.part`) : join(root, 'tmp', `${randomUUID()}.part`);
    const fd = openSync(tmp, flags);
    try { writeSync(fd, data); } finally { closeSync(fd); }
    renameSync(tmp, mode === 'no-mkdir' ? key : join(key, 'xl.meta'));
    n++;
  }
  const s = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  emit({
    scenario: `fs-${mode}`, dir: parent, afterDeleting, ops: n, opsPerSec: Math.round(n / s),
    kernelMsPerOp: +(cpu.system / 1000 / n).toFixed(3), userMsPerOp: +(cpu.user / 1000 / n).toFixed(3),
  });
  return mode === 'no-mkdir' ? n : 2 * n;
}

/** The `put-4-drives-c16` mode (see the module comment). */
async function runPuts(parent: string, seconds: number, afterDeleting: number): Promise<number> {
  const root = mkdtempSync(join(parent, 'svc-fs-commit-'));
  const drives = [1, 2, 3, 4].map((d) => join(root, `d${d}`));
  for (const d of drives) {
    mkdirSync(join(d, 'tmp'), { recursive: true });
    mkdirSync(join(d, 'vol', '+small'), { recursive: true });
  }
  const data = Buffer.alloc(4096 + 400, 1);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_DSYNC;
  const commit = async (drive: string, key: number): Promise<void> => {
    const dir = join(drive, 'vol', '+small', `+${key}`);
    await mkdir(dir, { recursive: true });
    const tmp = join(drive, 'tmp', `${randomUUID()}.part`);
    const fh = await open(tmp, flags);
    try { await fh.writeFile(data); } finally { await fh.close(); }
    await rename(tmp, join(dir, 'xl.meta'));
  };
  let puts = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (performance.now() - t0 < seconds * 1000) {
      const key = puts++;
      await Promise.all(drives.map((d) => commit(d, key)));
    }
  }));
  const s = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  emit({
    scenario: 'fs-put-4-drives-c16', dir: parent, afterDeleting, puts, putsPerSec: Math.round(puts / s),
    cpuMsPerPut: +((cpu.user + cpu.system) / 1000 / puts).toFixed(3), kernelMsPerPut: +(cpu.system / 1000 / puts).toFixed(3),
  });
  return 8 * puts;
}

/** Removes what the runs made (their directories in `parent`). */
function removeRuns(parent: string): void {
  for (const name of readdirSync(parent)) if (name.startsWith('svc-fs-commit-')) rmSync(join(parent, name), { recursive: true, force: true });
}

const dir = process.argv[2] ?? process.env.BENCH_DIR ?? tmpdir();
const seconds = Number(process.env.BENCH_SECONDS ?? 3);
let made = 0; // inodes made by the runs before the deletion
try {
  for (const mode of ['commit', 'no-sync', 'no-mkdir', 'same-dir'] as const) made += run(dir, mode, seconds, 0);
  made += await runPuts(dir, seconds, 0);
  removeRuns(dir);
  run(dir, 'commit', seconds, made);
  await runPuts(dir, seconds, made);
} finally {
  removeRuns(dir);
}
