import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ShardWriter } from './drive.js';
import { newNameDirs, syncDirs } from './dir-sync.js';
import { openShardWriter } from './direct-shard-writer.js';
import { FileNotFoundError } from './drive-errors.js';
import { errno, type DriveLayout } from './drive-layout.js';

/**
 * Writes `data` to a fresh temp file under `tmpDir` (same file system), synced, and renames it over `dst`: a reader
 * sees the old file or the new one, never a part.
 */
export async function atomicWrite(tmpDir: string, dst: string, data: Uint8Array): Promise<void> {
  const tmp = join(tmpDir, `${randomUUID()}.part`);
  // O_DSYNC: the write returns once the data is on stable storage (one call instead of write + fdatasync).
  const fh = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_DSYNC);
  try {
    await fh.writeFile(data);
  } finally {
    await fh.close();
  }
  try {
    await rename(tmp, dst);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/**
 * A drive's system area (`<root>/.svc.sys`): temp data of uploads, multipart records, and what else the node keeps
 * beside the objects. Paths are relative to it (object-path.ts assertSysPath); errors are mapped as the drive's own.
 */
export class SysArea {
  readonly #l: DriveLayout;

  constructor(layout: DriveLayout) {
    this.#l = layout;
  }

  async createShardWriter(sysPath: string): Promise<ShardWriter> {
    const path = this.#l.sysPath(sysPath);
    try {
      await this.#mkdirUnder(dirname(path));
      return await openShardWriter(path, this.#l.root, (err) => this.#l.mapError(err, sysPath));
    } catch (err) {
      throw await this.#l.mapError(err, sysPath);
    }
  }

  /**
   * mkdir -p below an existing `.svc.sys/<area>` directory; never recreates the system area itself. Returns the first
   * directory created, as mkdir -p does.
   */
  async #mkdirUnder(dir: string): Promise<string | undefined> {
    const rel = dir.slice(this.#l.sys.length + 1).split('/');
    if (rel.length <= 1) return undefined;
    if (rel.length === 2) {
      // One level below the area (a PUT's temp data directory): a plain mkdir fails with ENOENT when the area is gone
      // (a wiped drive), as the check below would, in one call instead of two (each a thread-pool round trip).
      try {
        await mkdir(dir);
        return dir;
      } catch (err) {
        if (errno(err) === 'EEXIST') return undefined;
        throw err;
      }
    }
    await access(join(this.#l.sys, rel[0] ?? ''));
    return mkdir(dir, { recursive: true });
  }

  async writeFile(sysPath: string, data: Uint8Array): Promise<void> {
    const path = this.#l.sysPath(sysPath);
    try {
      const created = await this.#mkdirUnder(dirname(path));
      await atomicWrite(this.#l.tmp, path, data);
      // Multipart uploads' records: an UploadPart answered 200 must survive a power cut (dir-sync.ts).
      await syncDirs(newNameDirs(dirname(path), created));
    } catch (err) {
      throw await this.#l.mapError(err, sysPath);
    }
  }

  async readFile(sysPath: string): Promise<Buffer> {
    try {
      return await readFile(this.#l.sysPath(sysPath));
    } catch (err) {
      throw await this.#l.mapError(err, sysPath);
    }
  }

  /** The names in a directory of the area; none when it does not exist. */
  async list(sysPath: string): Promise<string[]> {
    try {
      return await readdir(this.#l.sysPath(sysPath));
    } catch (err) {
      const mapped = await this.#l.mapError(err, sysPath);
      if (mapped instanceof FileNotFoundError) return [];
      throw mapped;
    }
  }

  async rename(srcSysPath: string, dstSysPath: string): Promise<void> {
    const src = this.#l.sysPath(srcSysPath);
    const dst = this.#l.sysPath(dstSysPath);
    try {
      const created = await this.#mkdirUnder(dirname(dst));
      await rename(src, dst);
      await syncDirs([...newNameDirs(dirname(dst), created), dirname(src)]);
    } catch (err) {
      throw await this.#l.mapError(err, srcSysPath);
    }
  }

  async delete(sysPath: string): Promise<void> {
    const path = this.#l.sysPath(sysPath);
    try {
      const removed = await stat(path).then(() => true, () => false);
      await rm(path, { recursive: true, force: true });
      // The removal made durable: on ext4 without a journal a removed directory's inode is soon another directory's
      // (a key's, synced), and after a power cut e2fsck found both names on it and cleared the key's (a multipart
      // object lost: power-cut.test.ts with the key-index layout, whose commits allocate no file between the two).
      if (removed) await syncDirs([dirname(path)]);
    } catch (err) {
      throw await this.#l.mapError(err, sysPath);
    }
  }
}
