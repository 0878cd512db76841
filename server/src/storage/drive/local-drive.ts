import { randomUUID } from 'node:crypto';
import { access, mkdir, open, readdir, readFile, rename, rm, rmdir, stat, statfs, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { ChildState, DirScan, DiskInfo, Drive, ReadMetaOptions, RenameDataOptions, ShardReader, ShardWriter, VolumeEntry } from './drive.js';
import { metaCache, nextTurn } from './meta-cache.js';
import { commitLogFor, type CommitLog, type LogRecord } from './commit-log.js';
import { newNameDirs, syncDirs } from './dir-sync.js';
import { InlineCommits } from './inline-commits.js';
import { INDEX_DIR, IndexedObjects, keyIndexWanted } from './indexed-objects.js';
import { DriveLayout, FORMAT_FILE, SYS_AREAS, TRASH_DIR, errno } from './drive-layout.js';
import { ioPoolSaturated, runIoJob, warmIoPool } from './io-pool.js';
import { COMMIT_EXISTED, COMMIT_NO_VOLUME, DRIVE_MISSING, DRIVE_UNFORMATTED } from './io-worker-source.js';
import { LocalShardReader, readSmallFile } from './local-shard-io.js';
import { SysArea, atomicWrite } from './sys-area.js';
import { listDir, readChildren, scanDir } from './local-listing.js';
import { listIndexed, readChildrenIndexed, scanIndexed } from './indexed-listing.js';
import {
  DiskNotFoundError, FileNotFoundError, UnformattedDiskError, VolumeExistsError, VolumeNotFoundError,
} from './drive-errors.js';
import {
  META_FILE, SEGMENT_NAME_FILE, SYS_DIR, VOLUME_META_FILE, assertDataDir, assertSysPath, assertVolumeName, isDataDirName,
} from './object-path.js';

/**
 * A Drive on a local directory. Writes go to `<root>/.svc.sys/tmp` first and are renamed into
 * place; the temp directory is created only by `writeFormat`, never implicitly, so a wiped or
 * recreated-but-empty root fails writes (UnformattedDiskError) instead of silently filling up.
 * Every method is async (fs/promises): no sync I/O on the request path.
 */
export class LocalDrive implements Drive {
  readonly endpoint: string;
  readonly isLocal = true;
  /** Where things are on this drive, and its error mapping. */
  readonly #l: DriveLayout;
  /** `.svc.sys`: uploads' temp data, multipart records (sys-area.ts). */
  readonly #sys: SysArea;
  /** Inline commits are durable through it (commit-log.ts); one per root in the process. */
  readonly #log: CommitLog;
  #inline = new InlineCommits();
  /** The drive's key index when it has that layout (indexed-objects.ts), looked up once. */
  #indexed: Promise<IndexedObjects | null> | undefined;
  /** The index this drive counts itself a user of (indexed-objects.ts retain), released by close. */
  #retained: IndexedObjects | null = null;

  constructor(root: string) {
    this.endpoint = root;
    this.#l = new DriveLayout(root);
    this.#sys = new SysArea(this.#l);
    this.#log = commitLogFor(root, this.#l.sys, (r) => this.#replay(r));
  }

  /** Sends this drive's inline commits through `queue`, shared with the other local drives of its set (inline-commits.ts). */
  shareInlineCommits(queue: InlineCommits): void {
    this.#inline = queue;
  }

  /** The key index of a drive with that layout, else null. */
  #objects(): Promise<IndexedObjects | null> {
    this.#indexed ??= IndexedObjects.open(this.#l.sys).then((ix) => {
      if (ix !== null && this.#retained === null) {
        ix.retain();
        this.#retained = ix;
      }
      return ix;
    }, (err: unknown) => {
      this.#indexed = undefined;
      throw err;
    });
    return this.#indexed;
  }

  async close(): Promise<void> {
    const ix = this.#retained;
    this.#retained = null;
    this.#indexed = undefined;
    await ix?.release();
  }

  settled(): Promise<void> {
    // A missing or unformatted drive fails its replay; the call that waited then gets the drive's own error.
    return this.#log.ready().then(() => undefined, () => undefined);
  }

  async readFormat(): Promise<Buffer> {
    try {
      return await readFile(join(this.#l.sys, FORMAT_FILE));
    } catch (err) {
      throw await this.#l.mapError(err, FORMAT_FILE);
    }
  }

  async writeFormat(data: Buffer): Promise<void> {
    try {
      const s = await stat(this.#l.root);
      if (!s.isDirectory()) throw new DiskNotFoundError(this.endpoint);
    } catch (err) {
      if (err instanceof DiskNotFoundError) throw err;
      throw new DiskNotFoundError(this.endpoint, { cause: err });
    }
    try {
      for (const area of SYS_AREAS) await mkdir(join(this.#l.sys, area), { recursive: true });
      if (keyIndexWanted()) await mkdir(join(this.#l.sys, INDEX_DIR), { recursive: true });
      await atomicWrite(this.#l.tmp, join(this.#l.sys, FORMAT_FILE), data);
      // A format lost in a power cut would make the drive look blank (dir-sync.ts).
      await syncDirs([this.#l.root, this.#l.sys, ...SYS_AREAS.map((a) => join(this.#l.sys, a))]);
    } catch (err) {
      throw await this.#l.mapError(err, FORMAT_FILE);
    } finally {
      // A (re)formatted drive: nothing read from it before vouches for anything.
      this.#l.changes.touchAll();
      this.#indexed = undefined;
    }
  }

  async diskInfo(): Promise<DiskInfo> {
    try {
      const [s, root] = await Promise.all([statfs(this.#l.root), stat(this.#l.root)]);
      const total = s.blocks * s.bsize;
      const free = s.bavail * s.bsize;
      return { endpoint: this.endpoint, total, free, used: total - s.bfree * s.bsize, id: `${root.dev}:${root.ino}` };
    } catch (err) {
      throw await this.#l.mapError(err, '.');
    }
  }

  /** Also replays the commit logs an earlier process left on this drive (commit-log.ts), before anything else uses them. */
  async cleanTemp(olderThanMs = 0): Promise<void> {
    // A key index is looked up again (and reopened by its worker if its files were replaced: index-worker.ts).
    this.#indexed = undefined;
    if ((await this.#l.rootState()) === 'ok') {
      for (const area of SYS_AREAS) await mkdir(join(this.#l.sys, area), { recursive: true });
      try {
        await this.#log.ready();
      } catch (err) {
        throw await this.#l.mapError(err, 'commit log');
      }
    }
    const cutoff = Date.now() - olderThanMs;
    for (const dir of [this.#l.tmp, join(this.#l.sys, TRASH_DIR)]) {
      try {
        const names = await readdir(dir);
        await Promise.all(names.map(async (n) => {
          if (olderThanMs > 0 && ((await stat(join(dir, n)).catch(() => undefined))?.mtimeMs ?? 0) > cutoff) return;
          await rm(join(dir, n), { recursive: true, force: true });
        }));
      } catch (err) {
        if (errno(err) !== 'ENOENT') throw await this.#l.mapError(err, dir);
      }
    }
  }

  async makeVolume(volume: string, meta: Buffer): Promise<void> {
    const dir = this.#l.volumeDir(volume);
    this.#l.forgetVolumeChecks();
    try {
      await access(this.#l.tmp);
      await mkdir(dir);
    } catch (err) {
      if (errno(err) === 'EEXIST') throw new VolumeExistsError(this.endpoint, volume);
      throw await this.#l.mapError(err, volume);
    }
    try {
      await atomicWrite(this.#l.tmp, join(dir, VOLUME_META_FILE), meta);
      await syncDirs([dir, this.#l.root]);
    } catch (err) {
      throw await this.#l.mapError(err, volume);
    } finally {
      this.#l.forgetVolumeChecks();
      this.#l.changes.touchAll();
    }
  }

  async statVolume(volume: string): Promise<Buffer> {
    const dir = this.#l.volumeDir(volume);
    try {
      return await readFile(join(dir, VOLUME_META_FILE));
    } catch (err) {
      const mapped = await this.#l.mapError(err, volume);
      if (!(mapped instanceof FileNotFoundError)) throw mapped;
    }
    try {
      const s = await stat(dir);
      if (s.isDirectory()) return Buffer.alloc(0);
    } catch { /* absent */ }
    throw new VolumeNotFoundError(this.endpoint, volume);
  }

  async writeVolumeMeta(volume: string, meta: Uint8Array): Promise<void> {
    const dir = this.#l.volumeDir(volume);
    try {
      if (!(await stat(dir)).isDirectory()) throw new VolumeNotFoundError(this.endpoint, volume);
      await atomicWrite(this.#l.tmp, join(dir, VOLUME_META_FILE), meta);
      await syncDirs([dir]);
    } catch (err) {
      if (err instanceof VolumeNotFoundError) throw err;
      const mapped = await this.#l.mapError(err, volume);
      if (mapped instanceof FileNotFoundError) throw new VolumeNotFoundError(this.endpoint, volume);
      throw mapped;
    }
  }

  async listVolumes(): Promise<VolumeEntry[]> {
    let entries;
    try {
      if ((await this.#l.rootState()) !== 'ok') throw new UnformattedDiskError(this.endpoint);
      entries = await readdir(this.#l.root, { withFileTypes: true });
    } catch (err) {
      if (err instanceof UnformattedDiskError) throw (await this.#l.rootState()) === 'missing' ? new DiskNotFoundError(this.endpoint) : err;
      throw await this.#l.mapError(err, '.');
    }
    const out: VolumeEntry[] = [];
    for (const e of entries) {
      if (!e.isDirectory() || e.name === SYS_DIR) continue;
      try { assertVolumeName(e.name); } catch { continue; }
      let meta = Buffer.alloc(0);
      try { meta = await readFile(join(this.#l.root, e.name, VOLUME_META_FILE)); } catch { /* legacy or partial */ }
      out.push({ name: e.name, meta });
    }
    return out;
  }

  async deleteVolume(volume: string): Promise<void> {
    const dir = this.#l.volumeDir(volume);
    const trash = join(this.#l.sys, TRASH_DIR, randomUUID());
    this.#l.forgetVolumeChecks();
    try {
      const ix = await this.#objects();
      if (ix !== null) await ix.dropVolume(volume);
      else await this.#log.dropVolume(volume);
      await rename(dir, trash);
      // Deleted for good before the answer; the trash too, or e2fsck may keep the bucket's old name (dir-sync.ts).
      await syncDirs([this.#l.root, dirname(trash)]);
    } catch (err) {
      const mapped = await this.#l.mapError(err, volume);
      if (mapped instanceof FileNotFoundError) throw new VolumeNotFoundError(this.endpoint, volume);
      throw mapped;
    } finally {
      this.#l.forgetVolumeChecks();
      this.#l.changes.touchAll();
    }
    await rm(trash, { recursive: true, force: true });
  }

  createShardWriter(sysPath: string): Promise<ShardWriter> {
    return this.#sys.createShardWriter(sysPath);
  }

  writeSysFile(sysPath: string, data: Uint8Array): Promise<void> {
    return this.#sys.writeFile(sysPath, data);
  }

  readSysFile(sysPath: string): Promise<Buffer> {
    return this.#sys.readFile(sysPath);
  }

  listSysDir(sysPath: string): Promise<string[]> {
    return this.#sys.list(sysPath);
  }

  renameSys(srcSysPath: string, dstSysPath: string): Promise<void> {
    return this.#sys.rename(srcSysPath, dstSysPath);
  }

  deleteSysPath(sysPath: string): Promise<void> {
    return this.#sys.delete(sysPath);
  }

  async renameData(volume: string, key: string, meta: Uint8Array, opts: RenameDataOptions): Promise<Buffer | null> {
    // Listings follow writes: the listing's workers start with the first object written, not with the first page.
    warmIoPool();
    const volDir = this.#l.volumeDir(volume);
    const { dir, named } = this.#l.objectDir(volume, key);
    if (opts.dataDir !== null) assertDataDir(opts.dataDir);
    const src = opts.srcDataPath === null ? null : this.#l.sysPath(opts.srcDataPath);
    if (opts.committed === true && src === null) {
      await this.#dropStaleDataDirs(dir, opts).catch(async (err: unknown) => {
        if (errno(err) !== 'ENOENT') throw await this.#l.mapError(err, key);
      });
      return null;
    }
    // Taken before this change touches the disk: see the write-through below.
    const before = this.#l.changes.mark();
    let done = false;
    let previous: Buffer | null = null;
    try {
      const ix = await this.#objects();
      // Inline objects (no data directory to move in, no hashed segment names) commit through the log.
      const logged = ix === null && src === null && named.length === 0 && await this.#log.ready();
      if (ix === null && !logged) await this.#log.drop(volume, key);
      // A concurrent delete may prune the fresh directory before the rename: retry once.
      for (let attempt = 0; ; attempt++) {
        try {
          if (ix !== null) {
            previous = await this.#renameIndexed(ix, volume, key, meta, opts, volDir, dir, named, src);
          } else if (logged) {
            await this.#log.commit(volume, key, meta, async () => { previous = await this.#commitInline(volDir, dir, meta, opts); });
          } else {
            previous = await this.#commit(volDir, dir, named, src, meta, opts);
          }
          break;
        } catch (err) {
          if (attempt > 0 || errno(err) !== 'ENOENT') throw err;
          await access(src ?? this.#l.tmp);
        }
      }
      done = true;
    } catch (err) {
      if (err instanceof Error && !('errno' in err)) throw err;
      throw await this.#l.mapError(err, key);
    } finally {
      // Write-through: the record just committed is what the next GET of the key on this drive would read, so it goes
      // into the GET cache (meta-cache.ts), unless another change of the key was recorded while this one ran: then
      // which of the two reached the disk last is not known here. A change recorded after this one voids the entry as
      // it does a read's. Why: a GET of an object just written read its record from the disk (4 KiB objects, one GET
      // each right after the writes: ~20-25 % less server CPU per GET; docs/performance.md, thirty-second session).
      const alone = done && opts.cache === true && this.#l.changes.unchangedSince(volume, key, before);
      // Recorded once on disk (or failed half-way): listings read the key again (change-log.ts).
      this.#l.changes.touch(volume, key);
      if (alone) metaCache.set(this.#cacheId(volume, key), meta, this.#l.changes.stamp());
    }
    return previous;
  }

  /**
   * renameData on a drive whose records are in its key index: a large object's data directory is moved in (and synced)
   * first, then its record put in the index, then the data directories the replaced record had and this one does not
   * keep are removed. An inline object makes no file-system call when its bucket is known to be here.
   */
  async #renameIndexed(
    ix: IndexedObjects, volume: string, key: string, meta: Uint8Array, opts: RenameDataOptions, volDir: string, dir: string,
    named: { dir: string; original: string }[], src: string | null,
  ): Promise<Buffer | null> {
    // returnPrevious: no data directory dropped before the record that references them is replaced.
    if (src !== null) await this.#commit(volDir, dir, named, src, null, { ...opts, returnPrevious: true });
    else await ix.knownVolume(volume, () => this.#l.volumeHere(volume));
    const previous = await ix.put(volume, key, meta);
    if (previous !== null && opts.returnPrevious !== true) {
      await this.#dropStaleDataDirs(dir, opts).catch((err: unknown) => {
        if (errno(err) !== 'ENOENT') throw err;
      });
    }
    return opts.returnPrevious === true ? previous : null;
  }

  async #commit(
    volDir: string, dir: string, named: { dir: string; original: string }[], src: string | null, meta: Uint8Array | null, opts: RenameDataOptions,
  ): Promise<Buffer | null> {
    const created = await mkdir(dir, { recursive: true });
    if (created !== undefined && created.length <= volDir.length) {
      // mkdir -p had to create the volume (or the root): the bucket does not exist here.
      await rm(created, { recursive: true, force: true });
      throw await this.#volumeMissing(volDir);
    }
    const previous = meta !== null && opts.returnPrevious === true && created === undefined
      ? await readFile(join(dir, META_FILE)).catch((err: unknown) => {
        if (errno(err) !== 'ENOENT') throw err;
        return null;
      })
      : null;
    let trashed = false;
    const moved: string[] = [];
    for (const n of named) await atomicWrite(this.#l.tmp, join(n.dir, SEGMENT_NAME_FILE), Buffer.from(n.original, 'utf8'));
    if (src !== null && opts.dataDir !== null) {
      const target = join(dir, opts.dataDir);
      if (created === undefined) {
        // Healing rewrites a data directory under the same name: move the damaged one aside first.
        trashed = await rename(target, join(this.#l.sys, TRASH_DIR, randomUUID())).then(() => true, (err: unknown) => {
          if (errno(err) !== 'ENOENT') throw err;
          return false;
        });
      }
      await rename(src, target);
      // The old name goes for good too (e2fsck may keep either name of a directory found under two parents), and
      // the moved directory's `..` entry.
      moved.push(dirname(src), target);
      if (opts.keepFiles !== undefined) {
        const keep = new Set(opts.keepFiles);
        const names = await readdir(target);
        await Promise.all(names.filter((n) => !keep.has(n)).map((n) => rm(join(target, n), { recursive: true, force: true })));
      }
    }
    if (meta !== null) await atomicWrite(this.#l.tmp, join(dir, META_FILE), meta);
    // Durable before the drive answers (issue 9: fsync'd on write quorum before the 200): the new names too.
    await syncDirs([...newNameDirs(dir, created), ...named.map((n) => n.dir), ...moved]);
    // With returnPrevious the caller drops them, once the commit has write quorum (RenameDataOptions).
    if (created === undefined && opts.returnPrevious !== true) await this.#dropStaleDataDirs(dir, opts);
    if (trashed) await this.#emptyTrash();
    return previous;
  }

  /** The error of a commit whose bucket directory is not there: the drive's state says which. */
  #volumeMissing(volDir: string): Promise<Error> {
    return this.#l.absence(new VolumeNotFoundError(this.endpoint, basename(volDir)));
  }

  /** After a key's record was replaced: data directories it no longer references go. */
  async #dropStaleDataDirs(dir: string, opts: RenameDataOptions): Promise<void> {
    const names = await readdir(dir);
    const keep = new Set(opts.keepDataDirs ?? []);
    const stale = names.filter((n) => isDataDirName(n) && n !== opts.dataDir && !keep.has(n));
    await Promise.all(stale.map((n) => rm(join(dir, n), { recursive: true, force: true })));
  }

  /**
   * An inline commit's metadata file, written without a sync: its record in the log makes it durable. Resolves with
   * the file it replaced when asked (RenameDataOptions.returnPrevious).
   */
  async #commitInline(volDir: string, dir: string, meta: Uint8Array, opts: RenameDataOptions): Promise<Buffer | null> {
    const previous = opts.returnPrevious === true;
    // Plain concatenations: `tmp` and `dir` are normalized (drive-layout.ts), and join's normalizing scan showed in the
    // 4 KiB PUT's profile (~1 % of the event loop, issue 9).
    const done = await this.#inline.run({ volDir, dir, tmp: `${this.#l.tmp}/${randomUUID()}.part`, dst: `${dir}/${META_FILE}`, data: meta, previous });
    if (done.outcome === COMMIT_NO_VOLUME) throw await this.#volumeMissing(volDir);
    if (done.outcome === COMMIT_EXISTED && !previous) await this.#dropStaleDataDirs(dir, opts);
    return done.previous;
  }

  /**
   * A commit a crash may have lost, from a log an earlier process left (commit-log.ts): written again, synced, unless
   * its bucket is gone. Data directories an overwrite left behind stay (never deleted on a log's word).
   */
  async #replay(r: LogRecord): Promise<void> {
    const volDir = this.#l.volumeDir(r.volume);
    if (!(await stat(volDir).then((s) => s.isDirectory(), () => false))) return;
    const { dir, named } = this.#l.objectDir(r.volume, r.key);
    const created = await mkdir(dir, { recursive: true });
    for (const n of named) await atomicWrite(this.#l.tmp, join(n.dir, SEGMENT_NAME_FILE), Buffer.from(n.original, 'utf8'));
    await atomicWrite(this.#l.tmp, join(dir, META_FILE), r.meta);
    // The log that held the record is deleted next: what it redid must not depend on a later write-back.
    await syncDirs([...newNameDirs(dir, created), ...named.map((n) => n.dir)]);
    this.#l.changes.touch(r.volume, r.key);
  }

  async #emptyTrash(): Promise<void> {
    const trash = join(this.#l.sys, TRASH_DIR);
    const names = await readdir(trash).catch(() => [] as string[]);
    await Promise.all(names.map((n) => rm(join(trash, n), { recursive: true, force: true })));
  }

  async readMeta(volume: string, key: string, opts?: ReadMetaOptions): Promise<Buffer> {
    if (opts?.cached !== true) return this.#readMeta(volume, key);
    const id = this.#cacheId(volume, key);
    const known = metaCache.get(id);
    if (known !== undefined) {
      if (this.#l.changes.unchanged(volume, '', key, known.stamp)) {
        // A copy, made now: callers own what they are given, and the cache's bytes are overwritten as it turns over.
        const bytes = Buffer.from(known.bytes);
        await nextTurn();
        return bytes;
      }
      // Changed since (or too old): a key now absent must not keep its entry.
      metaCache.delete(id);
    }
    // Taken before the read: a change that lands while it runs is recorded after the stamp and voids the entry.
    const stamp = this.#l.changes.stamp();
    const bytes = await this.#readMeta(volume, key);
    metaCache.offerRead(id, bytes, stamp);
    return bytes;
  }

  /** The key's id in the process's GET cache (meta-cache.ts): drives of one process share it. */
  #cacheId(volume: string, key: string): string {
    return `${this.endpoint}\0${volume}/${key}`;
  }

  async #readMeta(volume: string, key: string): Promise<Buffer> {
    const ix = await this.#objects();
    if (ix !== null) {
      const bytes = await ix.get(volume, key).catch(async (err: unknown) => { throw await this.#l.mapError(err, key); });
      if (bytes !== null) return bytes;
      // An absent key on a drive that is not there (any more) is the drive's error, not "no such key" (as ReadJob.guard).
      throw await this.#l.absence(new FileNotFoundError(this.endpoint, key));
    }
    const path = `${this.#l.objectDir(volume, key).dir}/${META_FILE}`;
    if (ioPoolSaturated()) {
      // Workers backed up (cold reads, many drives): libuv's threads keep the reads parallel (io-pool.ts).
      try {
        return await readSmallFile(path);
      } catch (err) {
        throw await this.#l.mapError(err, key);
      }
    }
    try {
      // One worker round trip instead of three thread-pool ones (io-pool.ts says why); an absent file comes back
      // with the drive's state already checked (ReadJob.guard), which mapError would otherwise ask for.
      const bytes = await runIoJob({ op: 'read', path, guard: this.#l.guard });
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (err) {
      const code = errno(err);
      if (code === DRIVE_MISSING) throw new DiskNotFoundError(this.endpoint);
      if (code === DRIVE_UNFORMATTED) throw new UnformattedDiskError(this.endpoint);
      if (code === 'ENOENT' || code === 'ENOTDIR') throw new FileNotFoundError(this.endpoint, key);
      throw await this.#l.mapError(err, key);
    }
  }

  async openShardReader(volume: string, key: string, dataDir: string, file: string): Promise<ShardReader> {
    assertDataDir(dataDir);
    assertSysPath(file);
    const { dir } = this.#l.objectDir(volume, key);
    try {
      const path = join(dir, dataDir, file);
      const fh = await open(path, 'r');
      return new LocalShardReader(fh, path, this.endpoint, key);
    } catch (err) {
      throw await this.#l.mapError(err, key);
    }
  }

  async deleteObject(volume: string, key: string): Promise<void> {
    const volDir = this.#l.volumeDir(volume);
    const { dir } = this.#l.objectDir(volume, key);
    try {
      const ix = await this.#objects();
      if (ix !== null) await ix.delete(volume, key);
      else {
        await this.#log.drop(volume, key);
        await unlink(join(dir, META_FILE)).catch((err: unknown) => {
          if (errno(err) !== 'ENOENT' && errno(err) !== 'ENOTDIR') throw err;
        });
      }
      const names = await readdir(dir).catch(() => [] as string[]);
      await Promise.all(names.filter(isDataDirName).map((n) => rm(join(dir, n), { recursive: true, force: true })));
      const changed = await this.#pruneEmpty(dir, volDir);
      // Deleted for good before the answer: a power cut must not bring the object back (dir-sync.ts).
      if (changed !== null) await syncDirs([changed]);
    } catch (err) {
      throw await this.#l.mapError(err, key);
    } finally {
      this.#l.changes.touch(volume, key);
    }
  }

  /**
   * Removes now-empty key directories (and lone `.name` files) up to, excluding, `stop`. Returns the directory whose
   * entries changed last (the one kept), or null when `dir` is not there.
   */
  async #pruneEmpty(dir: string, stop: string): Promise<string | null> {
    let cur = dir;
    while (cur.length > stop.length && cur.startsWith(stop)) {
      let names: string[];
      try { names = await readdir(cur); } catch { return null; }
      if (names.some((n) => n !== SEGMENT_NAME_FILE)) return cur;
      try {
        if (names.length > 0) await unlink(join(cur, SEGMENT_NAME_FILE));
        await rmdir(cur);
      } catch {
        return cur;
      }
      cur = dirname(cur);
    }
    return cur;
  }

  async listDir(volume: string, dirKey: string): Promise<string[]> {
    const ix = await this.#objects();
    if (ix !== null) return listIndexed(this.#l, ix, volume, dirKey);
    return listDir(this.#l, volume, dirKey);
  }

  async scanDir(volume: string, dirKey: string, knownStamp: string | null): Promise<DirScan> {
    const ix = await this.#objects();
    if (ix !== null) return scanIndexed(this.#l, ix, volume, dirKey, knownStamp);
    return scanDir(this.#l, volume, dirKey, knownStamp);
  }

  async readChildren(volume: string, dirKey: string, names: readonly string[], withMeta: boolean, known: readonly (string | null)[] | null = null): Promise<ChildState[]> {
    const ix = await this.#objects();
    if (ix !== null) return readChildrenIndexed(this.#l, ix, volume, dirKey, names, withMeta, known);
    return readChildren(this.#l, volume, dirKey, names, withMeta, known);
  }
}
