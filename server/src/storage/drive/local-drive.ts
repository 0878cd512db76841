import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, open, readdir, readFile, rename, rm, rmdir, stat, statfs, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ServerError } from '../../common/index.js';
import type { ChildState, DirScan, DiskInfo, Drive, RenameDataOptions, ShardReader, ShardWriter, VolumeEntry } from './drive.js';
import { openShardWriter } from './direct-shard-writer.js';
import { runIoJob, warmIoPool } from './io-pool.js';
import { CHILD_ERROR, CHILD_META, DRIVE_MISSING, DRIVE_UNFORMATTED } from './io-worker-source.js';
import { LocalShardReader } from './local-shard-io.js';
import {
  DiskFullError, DiskNotFoundError, FaultyDiskError, FileNotFoundError, InvalidDrivePathError, UnformattedDiskError,
  VolumeExistsError, VolumeNotFoundError,
} from './drive-errors.js';
import {
  META_FILE, SEGMENT_NAME_FILE, SYS_DIR, VOLUME_META_FILE, assertDataDir, assertSysPath, assertVolumeName,
  encodeKey, encodeSegment, entryKind, isDataDirName,
} from './object-path.js';

const FORMAT_FILE = 'format.json';
const TMP_DIR = 'tmp';
const TRASH_DIR = 'trash';
const MULTIPART_DIR = 'multipart';
const SYS_AREAS = [TMP_DIR, TRASH_DIR, MULTIPART_DIR] as const;
/**
 * A directory stamp vouches for its names only once the directory has not changed for this long: file times come
 * from the kernel's coarse clock (one tick, at most 10 ms at HZ=100), so a change within the same tick as the
 * previous one keeps the same mtime; after 20 ms any later change moves it.
 */
const STAMP_SETTLE_MS = 20;
/** Most names in one {@link LocalDrive.readChildren} call. */
const MAX_CHILDREN_BATCH = 10_000;

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * A Drive on a local directory. Writes go to `<root>/.svc.sys/tmp` first and are renamed into
 * place; the temp directory is created only by `writeFormat`, never implicitly, so a wiped or
 * recreated-but-empty root fails writes (UnformattedDiskError) instead of silently filling up.
 * Every method is async (fs/promises): no sync I/O on the request path.
 */
export class LocalDrive implements Drive {
  readonly endpoint: string;
  readonly isLocal = true;
  readonly #root: string;
  /** What a metadata read checks when the file is absent (ReadJob.guard). */
  readonly #guard: { format: string; root: string };
  readonly #sys: string;
  readonly #tmp: string;

  constructor(root: string) {
    this.endpoint = root;
    this.#root = root;
    this.#sys = join(root, SYS_DIR);
    this.#guard = { format: join(this.#sys, FORMAT_FILE), root };
    this.#tmp = join(this.#sys, TMP_DIR);
  }

  /** Maps an fs error to a typed drive error; ENOENT is checked against the root and format. */
  async #mapError(err: unknown, path: string): Promise<Error> {
    if (err instanceof ServerError) return err;
    const code = errno(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      const state = await this.#rootState();
      if (state !== 'ok') return state === 'missing' ? new DiskNotFoundError(this.endpoint) : new UnformattedDiskError(this.endpoint);
      return new FileNotFoundError(this.endpoint, path);
    }
    if (code === 'ENOSPC' || code === 'EDQUOT') return new DiskFullError(this.endpoint);
    if (err instanceof Error && 'code' in err && typeof code === 'string') {
      return new FaultyDiskError(this.endpoint, `${code} on ${path}`, { cause: err });
    }
    return err instanceof Error ? err : new FaultyDiskError(this.endpoint, String(err));
  }

  async #rootState(): Promise<'ok' | 'missing' | 'unformatted'> {
    try {
      await access(join(this.#sys, FORMAT_FILE));
      return 'ok';
    } catch {
      try {
        const s = await stat(this.#root);
        return s.isDirectory() ? 'unformatted' : 'missing';
      } catch {
        return 'missing';
      }
    }
  }

  #volumeDir(volume: string): string {
    assertVolumeName(volume);
    return join(this.#root, volume);
  }

  #sysPath(sysPath: string): string {
    assertSysPath(sysPath);
    return join(this.#sys, sysPath);
  }

  async readFormat(): Promise<Buffer> {
    try {
      return await readFile(join(this.#sys, FORMAT_FILE));
    } catch (err) {
      throw await this.#mapError(err, FORMAT_FILE);
    }
  }

  async writeFormat(data: Buffer): Promise<void> {
    try {
      const s = await stat(this.#root);
      if (!s.isDirectory()) throw new DiskNotFoundError(this.endpoint);
    } catch (err) {
      if (err instanceof DiskNotFoundError) throw err;
      throw new DiskNotFoundError(this.endpoint, { cause: err });
    }
    try {
      for (const area of SYS_AREAS) await mkdir(join(this.#sys, area), { recursive: true });
      await this.#atomicWrite(join(this.#sys, FORMAT_FILE), data);
    } catch (err) {
      throw await this.#mapError(err, FORMAT_FILE);
    }
  }

  async diskInfo(): Promise<DiskInfo> {
    try {
      const s = await statfs(this.#root);
      const total = s.blocks * s.bsize;
      const free = s.bavail * s.bsize;
      return { endpoint: this.endpoint, total, free, used: total - s.bfree * s.bsize };
    } catch (err) {
      throw await this.#mapError(err, '.');
    }
  }

  async cleanTemp(olderThanMs = 0): Promise<void> {
    if ((await this.#rootState()) === 'ok') {
      for (const area of SYS_AREAS) await mkdir(join(this.#sys, area), { recursive: true });
    }
    const cutoff = Date.now() - olderThanMs;
    for (const dir of [this.#tmp, join(this.#sys, TRASH_DIR)]) {
      try {
        const names = await readdir(dir);
        await Promise.all(names.map(async (n) => {
          if (olderThanMs > 0 && ((await stat(join(dir, n)).catch(() => undefined))?.mtimeMs ?? 0) > cutoff) return;
          await rm(join(dir, n), { recursive: true, force: true });
        }));
      } catch (err) {
        if (errno(err) !== 'ENOENT') throw await this.#mapError(err, dir);
      }
    }
  }

  /** Writes `data` to a fresh temp file, fsyncs it, and renames it over `dst`. */
  async #atomicWrite(dst: string, data: Uint8Array): Promise<void> {
    const tmp = join(this.#tmp, `${randomUUID()}.part`);
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

  async makeVolume(volume: string, meta: Buffer): Promise<void> {
    const dir = this.#volumeDir(volume);
    try {
      await access(this.#tmp);
      await mkdir(dir);
    } catch (err) {
      if (errno(err) === 'EEXIST') throw new VolumeExistsError(this.endpoint, volume);
      throw await this.#mapError(err, volume);
    }
    try {
      await this.#atomicWrite(join(dir, VOLUME_META_FILE), meta);
    } catch (err) {
      throw await this.#mapError(err, volume);
    }
  }

  async statVolume(volume: string): Promise<Buffer> {
    const dir = this.#volumeDir(volume);
    try {
      return await readFile(join(dir, VOLUME_META_FILE));
    } catch (err) {
      const mapped = await this.#mapError(err, volume);
      if (!(mapped instanceof FileNotFoundError)) throw mapped;
    }
    try {
      const s = await stat(dir);
      if (s.isDirectory()) return Buffer.alloc(0);
    } catch { /* absent */ }
    throw new VolumeNotFoundError(this.endpoint, volume);
  }

  async writeVolumeMeta(volume: string, meta: Uint8Array): Promise<void> {
    const dir = this.#volumeDir(volume);
    try {
      if (!(await stat(dir)).isDirectory()) throw new VolumeNotFoundError(this.endpoint, volume);
      await this.#atomicWrite(join(dir, VOLUME_META_FILE), meta);
    } catch (err) {
      if (err instanceof VolumeNotFoundError) throw err;
      const mapped = await this.#mapError(err, volume);
      if (mapped instanceof FileNotFoundError) throw new VolumeNotFoundError(this.endpoint, volume);
      throw mapped;
    }
  }

  async listVolumes(): Promise<VolumeEntry[]> {
    let entries;
    try {
      if ((await this.#rootState()) !== 'ok') throw new UnformattedDiskError(this.endpoint);
      entries = await readdir(this.#root, { withFileTypes: true });
    } catch (err) {
      if (err instanceof UnformattedDiskError) throw (await this.#rootState()) === 'missing' ? new DiskNotFoundError(this.endpoint) : err;
      throw await this.#mapError(err, '.');
    }
    const out: VolumeEntry[] = [];
    for (const e of entries) {
      if (!e.isDirectory() || e.name === SYS_DIR) continue;
      try { assertVolumeName(e.name); } catch { continue; }
      let meta = Buffer.alloc(0);
      try { meta = await readFile(join(this.#root, e.name, VOLUME_META_FILE)); } catch { /* legacy or partial */ }
      out.push({ name: e.name, meta });
    }
    return out;
  }

  async deleteVolume(volume: string): Promise<void> {
    const dir = this.#volumeDir(volume);
    const trash = join(this.#sys, TRASH_DIR, randomUUID());
    try {
      await rename(dir, trash);
    } catch (err) {
      const mapped = await this.#mapError(err, volume);
      if (mapped instanceof FileNotFoundError) throw new VolumeNotFoundError(this.endpoint, volume);
      throw mapped;
    }
    await rm(trash, { recursive: true, force: true });
  }

  async createShardWriter(sysPath: string): Promise<ShardWriter> {
    const path = this.#sysPath(sysPath);
    try {
      await this.#mkdirUnderSys(dirname(path));
      return await openShardWriter(path, this.#root, (err) => this.#mapError(err, sysPath));
    } catch (err) {
      throw await this.#mapError(err, sysPath);
    }
  }

  /** mkdir -p below an existing `.svc.sys/<area>` directory; never recreates the system area itself. */
  async #mkdirUnderSys(dir: string): Promise<void> {
    const rel = dir.slice(this.#sys.length + 1).split('/');
    const area = join(this.#sys, rel[0] ?? '');
    if (rel.length > 1) {
      await access(area);
      await mkdir(dir, { recursive: true });
    }
  }

  async writeSysFile(sysPath: string, data: Uint8Array): Promise<void> {
    const path = this.#sysPath(sysPath);
    try {
      await this.#mkdirUnderSys(dirname(path));
      await this.#atomicWrite(path, data);
    } catch (err) {
      throw await this.#mapError(err, sysPath);
    }
  }

  async readSysFile(sysPath: string): Promise<Buffer> {
    try {
      return await readFile(this.#sysPath(sysPath));
    } catch (err) {
      throw await this.#mapError(err, sysPath);
    }
  }

  async listSysDir(sysPath: string): Promise<string[]> {
    try {
      return await readdir(this.#sysPath(sysPath));
    } catch (err) {
      const mapped = await this.#mapError(err, sysPath);
      if (mapped instanceof FileNotFoundError) return [];
      throw mapped;
    }
  }

  async renameSys(srcSysPath: string, dstSysPath: string): Promise<void> {
    const src = this.#sysPath(srcSysPath);
    const dst = this.#sysPath(dstSysPath);
    try {
      await this.#mkdirUnderSys(dirname(dst));
      await rename(src, dst);
    } catch (err) {
      throw await this.#mapError(err, srcSysPath);
    }
  }

  async deleteSysPath(sysPath: string): Promise<void> {
    const path = this.#sysPath(sysPath);
    try {
      await rm(path, { recursive: true, force: true });
    } catch (err) {
      throw await this.#mapError(err, sysPath);
    }
  }

  /** Absolute object directory, and the hashed segments whose `.name` must exist. */
  #objectDir(volume: string, key: string): { dir: string; named: { dir: string; original: string }[] } {
    let dir = this.#volumeDir(volume);
    const named: { dir: string; original: string }[] = [];
    for (const seg of encodeKey(key)) {
      dir = join(dir, seg.name);
      if (seg.original !== undefined) named.push({ dir, original: seg.original });
    }
    return { dir, named };
  }

  async renameData(volume: string, key: string, meta: Uint8Array, opts: RenameDataOptions): Promise<void> {
    // Listings follow writes: the listing's workers start with the first object written, not with the first page.
    warmIoPool();
    const volDir = this.#volumeDir(volume);
    const { dir, named } = this.#objectDir(volume, key);
    if (opts.dataDir !== null) assertDataDir(opts.dataDir);
    const src = opts.srcDataPath === null ? null : this.#sysPath(opts.srcDataPath);
    try {
      // A concurrent delete may prune the fresh directory before the rename: retry once.
      for (let attempt = 0; ; attempt++) {
        try {
          await this.#commit(volDir, dir, named, src, meta, opts);
          break;
        } catch (err) {
          if (attempt > 0 || errno(err) !== 'ENOENT') throw err;
          await access(src ?? this.#tmp);
        }
      }
    } catch (err) {
      if (err instanceof Error && !('errno' in err)) throw err;
      throw await this.#mapError(err, key);
    }
  }

  async #commit(
    volDir: string, dir: string, named: { dir: string; original: string }[], src: string | null, meta: Uint8Array, opts: RenameDataOptions,
  ): Promise<void> {
    const created = await mkdir(dir, { recursive: true });
    if (created !== undefined && created.length <= volDir.length) {
      // mkdir -p had to create the volume (or the root): the bucket does not exist here.
      await rm(created, { recursive: true, force: true });
      const state = await this.#rootState();
      if (state === 'missing') throw new DiskNotFoundError(this.endpoint);
      if (state === 'unformatted') throw new UnformattedDiskError(this.endpoint);
      throw new VolumeNotFoundError(this.endpoint, basename(volDir));
    }
    let trashed = false;
    for (const n of named) await this.#atomicWrite(join(n.dir, SEGMENT_NAME_FILE), Buffer.from(n.original, 'utf8'));
    if (src !== null && opts.dataDir !== null) {
      const target = join(dir, opts.dataDir);
      if (created === undefined) {
        // Healing rewrites a data directory under the same name: move the damaged one aside first.
        trashed = await rename(target, join(this.#sys, TRASH_DIR, randomUUID())).then(() => true, (err: unknown) => {
          if (errno(err) !== 'ENOENT') throw err;
          return false;
        });
      }
      await rename(src, target);
      if (opts.keepFiles !== undefined) {
        const keep = new Set(opts.keepFiles);
        const names = await readdir(target);
        await Promise.all(names.filter((n) => !keep.has(n)).map((n) => rm(join(target, n), { recursive: true, force: true })));
      }
    }
    await this.#atomicWrite(join(dir, META_FILE), meta);
    if (created === undefined) {
      const names = await readdir(dir);
      const keep = new Set(opts.keepDataDirs ?? []);
      const stale = names.filter((n) => isDataDirName(n) && n !== opts.dataDir && !keep.has(n));
      await Promise.all(stale.map((n) => rm(join(dir, n), { recursive: true, force: true })));
    }
    if (trashed) await this.#emptyTrash();
  }

  async #emptyTrash(): Promise<void> {
    const trash = join(this.#sys, TRASH_DIR);
    const names = await readdir(trash).catch(() => [] as string[]);
    await Promise.all(names.map((n) => rm(join(trash, n), { recursive: true, force: true })));
  }

  async readMeta(volume: string, key: string): Promise<Buffer> {
    const { dir } = this.#objectDir(volume, key);
    try {
      // One worker round trip instead of three thread-pool ones (io-pool.ts says why); an absent file comes back
      // with the drive's state already checked (ReadJob.guard), which #mapError would otherwise ask for.
      const bytes = await runIoJob({ op: 'read', path: join(dir, META_FILE), guard: this.#guard });
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (err) {
      const code = errno(err);
      if (code === DRIVE_MISSING) throw new DiskNotFoundError(this.endpoint);
      if (code === DRIVE_UNFORMATTED) throw new UnformattedDiskError(this.endpoint);
      if (code === 'ENOENT' || code === 'ENOTDIR') throw new FileNotFoundError(this.endpoint, key);
      throw await this.#mapError(err, key);
    }
  }

  async openShardReader(volume: string, key: string, dataDir: string, file: string): Promise<ShardReader> {
    assertDataDir(dataDir);
    assertSysPath(file);
    const { dir } = this.#objectDir(volume, key);
    try {
      const fh = await open(join(dir, dataDir, file), 'r');
      return new LocalShardReader(fh, this.endpoint, key);
    } catch (err) {
      throw await this.#mapError(err, key);
    }
  }

  async deleteObject(volume: string, key: string): Promise<void> {
    const volDir = this.#volumeDir(volume);
    const { dir } = this.#objectDir(volume, key);
    try {
      await unlink(join(dir, META_FILE)).catch((err: unknown) => {
        if (errno(err) !== 'ENOENT' && errno(err) !== 'ENOTDIR') throw err;
      });
      const names = await readdir(dir).catch(() => [] as string[]);
      await Promise.all(names.filter(isDataDirName).map((n) => rm(join(dir, n), { recursive: true, force: true })));
      await this.#pruneEmpty(dir, volDir);
    } catch (err) {
      throw await this.#mapError(err, key);
    }
  }

  /** Removes now-empty key directories (and lone `.name` files) up to, excluding, `stop`. */
  async #pruneEmpty(dir: string, stop: string): Promise<void> {
    let cur = dir;
    while (cur.length > stop.length && cur.startsWith(stop)) {
      let names: string[];
      try { names = await readdir(cur); } catch { return; }
      if (names.some((n) => n !== SEGMENT_NAME_FILE)) return;
      try {
        if (names.length > 0) await unlink(join(cur, SEGMENT_NAME_FILE));
        await rmdir(cur);
      } catch {
        return;
      }
      cur = dirname(cur);
    }
  }

  async listDir(volume: string, dirKey: string): Promise<string[]> {
    const volDir = this.#volumeDir(volume);
    const dir = dirKey === '' ? volDir : this.#objectDir(volume, dirKey.slice(0, -1)).dir;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (err) {
      const mapped = await this.#mapError(err, dirKey);
      if (!(mapped instanceof FileNotFoundError)) throw mapped;
      if (dirKey !== '') return [];
      throw new VolumeNotFoundError(this.endpoint, volume);
    }
    const out: string[] = [];
    for (const n of names) {
      const kind = entryKind(n);
      if (kind === 'plain') out.push(n.slice(1));
      else if (kind === 'hashed') {
        try { out.push((await readFile(join(dir, n, SEGMENT_NAME_FILE))).toString('utf8')); } catch { /* being removed */ }
      }
    }
    return out;
  }

  #keyDir(volume: string, dirKey: string): string {
    if (typeof dirKey !== 'string' || (dirKey !== '' && !dirKey.endsWith('/'))) {
      throw new InvalidDrivePathError(`invalid key directory: ${JSON.stringify(dirKey)}`);
    }
    return dirKey === '' ? this.#volumeDir(volume) : this.#objectDir(volume, dirKey.slice(0, -1)).dir;
  }

  async scanDir(volume: string, dirKey: string, knownStamp: string | null): Promise<DirScan> {
    const dir = this.#keyDir(volume, dirKey);
    if (knownStamp !== null && typeof knownStamp !== 'string') throw new InvalidDrivePathError('invalid directory stamp');
    const a = await runIoJob({ op: 'scan', dir, knownStamp, settleMs: STAMP_SETTLE_MS }).catch((err: unknown) => {
      throw new FaultyDiskError(this.endpoint, `scan of ${dirKey}: ${(err as Error).message}`, { cause: err });
    });
    if (a.error !== undefined) {
      const mapped = await this.#mapError(Object.assign(new Error(a.error), { code: a.error }), dirKey);
      if (!(mapped instanceof FileNotFoundError)) throw mapped;
      if (dirKey !== '') return { names: [], stamp: null };
      throw new VolumeNotFoundError(this.endpoint, volume);
    }
    if (a.entries === null) return { names: null, stamp: a.stamp };
    const names: string[] = [];
    for (const n of a.entries) {
      const kind = entryKind(n);
      if (kind === 'plain') names.push(n.slice(1));
      else if (kind === 'hashed' && a.hashed[n] !== undefined) names.push(a.hashed[n]);
    }
    return { names, stamp: a.stamp };
  }

  async readChildren(volume: string, dirKey: string, names: readonly string[], withMeta: boolean): Promise<ChildState[]> {
    const dir = this.#keyDir(volume, dirKey);
    if (!Array.isArray(names) || names.length > MAX_CHILDREN_BATCH) throw new InvalidDrivePathError('invalid list of names');
    const encoded = names.map((n) => {
      if (typeof n !== 'string' || n.includes('/')) throw new InvalidDrivePathError(`invalid key segment: ${JSON.stringify(n)}`);
      return encodeSegment(n).name;
    });
    const a = await runIoJob({ op: 'children', dir, names: encoded, withMeta: withMeta === true }).catch((err: unknown) => {
      throw new FaultyDiskError(this.endpoint, `read of ${dirKey}: ${(err as Error).message}`, { cause: err });
    });
    // Absent children are checked against the root once: a wiped or unformatted drive is an error, not "no key".
    if (a.missing || a.status.some((s) => s < CHILD_META && withMeta)) {
      const state = await this.#rootState();
      if (state === 'missing') throw new DiskNotFoundError(this.endpoint);
      if (state === 'unformatted') throw new UnformattedDiskError(this.endpoint);
    }
    const data = Buffer.from(a.data.buffer, a.data.byteOffset, a.data.byteLength);
    return names.map((_, i) => {
      const s = a.status[i]!;
      if (s === CHILD_ERROR) return { meta: null, children: false, error: `${a.errors[i] ?? 'error'} on ${dirKey}${names[i]}` };
      const meta = s === CHILD_META ? data.subarray(a.offsets[i]!, a.offsets[i + 1]!) : null;
      return { meta, children: a.children[i] === 1 };
    });
  }
}
