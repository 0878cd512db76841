/**
 * A real power cut for durability tests. A journal-less ext4 file system (as this machine's disk) lives on a loop
 * device; a cut copies its image, which holds only what the kernel wrote to the device (what was synced, plus any
 * write-back), never the page cache. The copy is repaired with `e2fsck -fy` as a boot would and mounted again.
 * Needs root, loop devices, mkfs.ext4 and e2fsck (scripts/system-deps.sh); without them a test fails, never skips.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
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

/** The power cut: the device's bytes as they are now, checked as at boot, mounted elsewhere. */
export async function powerCut(t: Cleanup, disk: Disk): Promise<Disk> {
  const image = `${disk.image}.cut-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  await copyFile(disk.image, image);
  t.after(() => rm(image, { force: true }));
  // 0: clean, 1: errors corrected (a cut of a journal-less file system leaves some); anything else fails.
  let repairs = '';
  await run('e2fsck', ['-fy', image]).catch((err: { code?: number; stdout?: string }) => {
    if (err.code !== 1) throw err;
    repairs = err.stdout ?? '';
  });
  return { ...(await mountImage(t, image)), repairs };
}
