import { dirname } from 'node:path';
import { syncDir } from '../../common/index.js';
import { SyncLanes } from './sync-lanes.js';

/**
 * fsync of directories: what makes a new name durable. A synced file is not yet reachable after a power cut: its
 * entry lives in its directory's block, which ext4 without a journal (this machine's disk) writes only at write-back,
 * and a rename is only a change of directory blocks (crash-durability.test.ts shows both lost). POSIX fsync(2) on a
 * directory descriptor writes them.
 */
export async function syncDirs(dirs: Iterable<string>): Promise<void> {
  await Promise.all([...new Set(dirs)].map((dir) => lanes.run(dir, () => syncIfThere(dir))));
}

/** Concurrent commits in one directory (a bucket's, the trash) share its syncs (sync-lanes.ts). */
const lanes = new SyncLanes();

async function syncIfThere(dir: string): Promise<void> {
  await syncDir(dir).catch((err: unknown) => {
    // Removed meanwhile (a delete pruned it): its names' fate is its parent's, synced by the remover.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  });
}

/**
 * The directories whose blocks hold a commit's new names: the key's directory, and when `mkdir -p` created it (from
 * `created` down), each created directory's parent.
 */
export function newNameDirs(dir: string, created: string | undefined): string[] {
  const dirs = [dir];
  if (created === undefined) return dirs;
  const top = dirname(created);
  for (let d = dir; d !== top && dirname(d) !== d; ) {
    d = dirname(d);
    dirs.push(d);
  }
  return dirs;
}
