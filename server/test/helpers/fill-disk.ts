import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Fills the file system holding `dir` with one ballast file named `name` until nothing more fits (chunks of 1 MiB,
 * then 4 KiB, then 64 bytes, each until a write fails); returns the ballast's path. For full-disk faults on a
 * fixed-size tmpfs (the fault injector, the commit log's tests).
 */
export function fillFileSystem(dir: string, name: string): string {
  const ballast = join(dir, name);
  const fd = openSync(ballast, 'w');
  try {
    for (const chunk of [Buffer.alloc(1024 * 1024, 0xab), Buffer.alloc(4096, 0xab), Buffer.alloc(64, 0xab)]) {
      for (;;) {
        try { writeSync(fd, chunk); } catch { break; }
      }
    }
  } finally {
    closeSync(fd);
  }
  return ballast;
}
