import { close, fsync, open } from 'node:fs';

/**
 * fsync(2) of a directory: what makes the names in it (new files, renames, removals) durable. File systems without a
 * journal (ext4 -O ^has_journal, this machine's disk) write a directory's blocks only at write-back otherwise.
 *
 * Through the callback API, not a FileHandle: a large object's commit syncs ~4 directories per drive, and the promise
 * API's open, sync and close took more of the event loop to submit: 1 MiB PUTs at 4 in flight took 1-4 % less server
 * CPU each in two runs of three pairs, their rate within the noise (0.99-1.06; `npm run bench:ab -- ... --size 1048576
 * --concurrency 4`; docs/performance.md, twenty-first session).
 */
export function syncDir(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    open(dir, 'r', (openErr, fd) => {
      if (openErr !== null) {
        reject(openErr);
        return;
      }
      fsync(fd, (syncErr) => {
        close(fd, (closeErr) => {
          const err = syncErr ?? closeErr;
          if (err !== null) reject(err);
          else resolve();
        });
      });
    });
  });
}
