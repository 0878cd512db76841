import { open } from 'node:fs/promises';

/**
 * fsync(2) of a directory: what makes the names in it (new files, renames, removals) durable. File systems without a
 * journal (ext4 -O ^has_journal, this machine's disk) write a directory's blocks only at write-back otherwise.
 */
export async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
