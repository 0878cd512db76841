import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { FileInfo, Fs } from './ports.js';

function isErrno(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}

/** The real file system. Modes are set with chmod after writing so the process umask cannot widen or narrow them. */
export function createNodeFs(): Fs {
  return {
    async readText(path) {
      try {
        return await readFile(path, 'utf8');
      } catch (err) {
        if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return undefined;
        throw err;
      }
    },
    async writeAtomic(path, content, mode) {
      const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
      try {
        await writeFile(tmp, content, { mode, flag: 'wx' });
        await chmod(tmp, mode);
        await rename(tmp, path);
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
    },
    async writeNew(path, content, mode) {
      let handle;
      try {
        handle = await open(path, 'wx', mode);
      } catch (err) {
        if (isErrno(err, 'EEXIST')) return false;
        throw err;
      }
      try {
        await handle.writeFile(content, 'utf8');
        await handle.chmod(mode);
      } finally {
        await handle.close();
      }
      return true;
    },
    async stat(path): Promise<FileInfo | undefined> {
      try {
        const s = await stat(path);
        return { kind: s.isFile() ? 'file' : s.isDirectory() ? 'directory' : 'other', mode: s.mode & 0o777, size: s.size };
      } catch (err) {
        if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return undefined;
        throw err;
      }
    },
    async mkdirp(path, mode) {
      await mkdir(path, { recursive: true, ...(mode === undefined ? {} : { mode }) });
    },
    async chmod(path, mode) {
      await chmod(path, mode);
    },
    async list(path) {
      try {
        return (await readdir(path)).sort();
      } catch (err) {
        if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return [];
        throw err;
      }
    },
    async makeTempDir(prefix) {
      return mkdtemp(join(tmpdir(), prefix));
    },
    async remove(path) {
      await rm(path, { recursive: true, force: true });
    },
  };
}
