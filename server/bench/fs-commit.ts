/**
 * `npm run bench:fs [-- DIR]`: what the file system under the drives costs for the small-object write pattern, without
 * the server. Per operation, like one drive's share of a 4 KiB PUT (local-drive.ts renameData): mkdir of the key
 * directory, a 4 KiB temp file created and written with O_DSYNC, renamed into the key directory. Runs 3 s in one
 * thread per mode and prints JSON lines: ops/s and the kernel/user CPU per operation.
 *   - `commit`: the full pattern, then `commit` again right after the first run's files were deleted
 *     (`afterDeleting` inodes: every run removes what it made);
 *   - `no-sync`: without O_DSYNC (what the sync costs); `no-mkdir`: no key directory (what one inode costs);
 *   - `same-dir`: the temp file created in the key directory and renamed there (what the rename across directories
 *     costs; not what the server does: docs/performance.md, ninth session, says why).
 * Why it exists: on this project's machine the root file system is ext4 without a journal, where creating an inode
 * costs milliseconds of kernel CPU for a while after many files were deleted (the allocator skips recently deleted
 * inodes one by one, ext4's find_inode_bit/recently_deleted): that, not the server, bounded 4 KiB PUTs there.
 * DIR defaults to the temp directory; point it at the file system the drives are on (BENCH_DIR of `npm run bench`).
 */
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emit } from './report.js';

type Mode = 'commit' | 'no-sync' | 'no-mkdir' | 'same-dir';

/** Runs one mode; answers the number of inodes it made (and removed at the end). */
function run(parent: string, mode: Mode, seconds: number, afterDeleting: number): number {
  const root = mkdtempSync(join(parent, 'svc-fs-commit-'));
  try {
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
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const dir = process.argv[2] ?? process.env.BENCH_DIR ?? tmpdir();
let deleted = 0;
for (const mode of ['commit', 'commit', 'no-sync', 'no-mkdir', 'same-dir', 'commit'] as const) deleted = run(dir, mode, Number(process.env.BENCH_SECONDS ?? 3), deleted);
