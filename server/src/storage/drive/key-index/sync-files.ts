import { closeSync, constants, fsyncSync, openSync, rmSync, writeSync } from 'node:fs';

/** Synchronous file syncing for the key index, which runs on its drive's worker thread (drive-index.ts). */

/** Creates (or truncates) `path` with `parts`, synced before it returns. */
export function writeSyncedFile(path: string, ...parts: Buffer[]): void {
  writeSyncedFileFrom(path, (write) => {
    for (const p of parts) write(p);
  });
}

/**
 * Creates (or truncates) `path` with what `fill` writes through the function it is given, synced before it returns
 * (a merge writes its run block by block). When `fill` throws, the file is removed.
 */
export function writeSyncedFileFrom(path: string, fill: (write: (bytes: Buffer) => void) => void): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC);
  try {
    fill((p) => {
      for (let at = 0; at < p.length;) at += writeSync(fd, p, at, p.length - at);
    });
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(path, { force: true });
    throw err;
  }
  closeSync(fd);
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
