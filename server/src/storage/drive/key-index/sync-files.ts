import { closeSync, constants, fsyncSync, openSync, writeSync } from 'node:fs';

/** Synchronous file syncing for the key index, which runs on its drive's worker thread (drive-index.ts). */

/** Creates (or truncates) `path` with `parts`, synced before it returns. */
export function writeSyncedFile(path: string, ...parts: Buffer[]): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC);
  try {
    for (const p of parts) {
      for (let at = 0; at < p.length;) at += writeSync(fd, p, at, p.length - at);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** fsync of a directory: what makes a new name in it durable (dir-sync.ts says why), synchronously. */
export function syncDirSync(dir: string): void {
  const fd = openSync(dir, constants.O_RDONLY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
