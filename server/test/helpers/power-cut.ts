/**
 * A real power cut for durability tests. A journal-less ext4 file system (as this machine's disk) lives on a loop
 * device; a cut copies its image, which holds only what the kernel wrote to the device (what was synced, plus any
 * write-back), never the page cache. The copy is repaired with `e2fsck -fy` as a boot would and mounted again.
 * Needs root, loop devices, mkfs.ext4 and e2fsck (scripts/system-deps.sh); without them a test fails, never skips.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A mounted image. */
export interface Disk {
  image: string;
  mount: string;
  /** What `e2fsck -fy` said it repaired after a cut (empty for a disk never cut): a failing test prints it. */
  repairs?: string;
}

type Cleanup = { after(fn: () => Promise<void>): void };

async function mountImage(t: Cleanup, image: string): Promise<Disk> {
  const mount = await mkdtemp(join(tmpdir(), 'svc-power-cut-mnt-'));
  await run('mount', ['-o', 'loop', image, mount]);
  t.after(async () => {
    await run('umount', ['-l', mount]).catch(() => undefined);
    await rm(mount, { recursive: true, force: true, maxRetries: 5 });
  });
  return { image, mount };
}

/** A fresh, empty, mounted journal-less ext4 file system of `mib` MiB (sparse image under the temp directory). */
export async function journalLessDisk(t: Cleanup, mib = 128): Promise<Disk> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-power-cut-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));
  const image = join(dir, 'disk.img');
  await writeFile(image, '');
  await truncate(image, mib * 1024 * 1024);
  await run('mkfs.ext4', ['-q', '-F', '-O', '^has_journal', image]);
  return mountImage(t, image);
}

/** Everything written to `disk` so far reaches the device (syncfs). */
export async function settle(disk: Disk): Promise<void> {
  await run('sync', ['--file-system', disk.mount]);
}

/**
 * The power cut: the device's bytes as they are at one moment, checked as at boot, mounted elsewhere.
 *
 * The copy takes a while (hundreds of ms under load), and a power cut takes none: were the writer still running, the
 * copy could hold the start of the image from before a sync and its end from after a write that followed the sync
 * (a commit log voided after its syncfs, commit-log.ts), a state no device can be left in. So `writer`, the process
 * writing to the disk, is stopped (SIGSTOP, every thread) for the copy, and the copy is synchronous so that this
 * process's own timers issue no write during it either. What was in flight when it stopped (a write in the kernel, a
 * running `sync`) may land in part: as at a real cut.
 */
export async function powerCut(t: Cleanup, disk: Disk, writer?: ChildProcess): Promise<Disk> {
  const image = `${disk.image}.cut-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const pid = writer?.pid;
  if (pid !== undefined) process.kill(pid, 'SIGSTOP');
  try {
    if (pid !== undefined) await allThreadsStopped(pid);
    copyFileSync(disk.image, image);
  } finally {
    // Also when the stop was not seen in time: the writer is never left stopped.
    if (pid !== undefined) process.kill(pid, 'SIGCONT');
  }
  t.after(() => rm(image, { force: true }));
  // 0: clean, 1: errors corrected (a cut of a journal-less file system leaves some); anything else fails.
  let repairs = '';
  await run('e2fsck', ['-fy', image]).catch((err: { code?: number; stdout?: string }) => {
    if (err.code !== 1) throw err;
    repairs = err.stdout ?? '';
  });
  return { ...(await mountImage(t, image)), repairs };
}

/** Resolves once every thread of `pid` is stopped (state T in /proc): a thread in a system call stops as it returns. */
async function allThreadsStopped(pid: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const tasks = await readdir(`/proc/${pid}/task`);
    const states = await Promise.all(tasks.map(async (tid) => {
      const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => ') T');
      // The state follows the command name, which is in parentheses and may itself hold them.
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    }));
    if (states.every((s) => s === 'T' || s === 't')) return;
    if (Date.now() > deadline) throw new Error(`process ${pid} did not stop within 60 s (thread states: ${states.join('')})`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
