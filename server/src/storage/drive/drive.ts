/**
 * The only thing the engine knows about a disk. Coarse-grained and async so that a remote drive
 * (cluster/remote-drive.ts, over RPC) can implement it with one round trip per call.
 *
 * Paths: `volume` is a bucket directory; `key` is a literal object key (the drive encodes it,
 * see object-path.ts); `sysPath` is a relative path inside the drive's system area (temp files,
 * multipart uploads), made of `[A-Za-z0-9._-]` segments.
 * Errors are the typed classes of drive-errors.ts.
 */

/** Capacity of a drive, in bytes. */
export interface DiskInfo {
  endpoint: string;
  total: number;
  free: number;
  used: number;
  /**
   * Identity of the drive's root directory (a local drive: its device and inode), when the drive knows it: another
   * directory put in its place, e.g. an old copy of the drive carrying the same format, has another identity
   * (the drive monitor heals such a drive, drive-monitor.ts).
   */
  id?: string;
}

/** Sequential writer of one shard file in the system area (temp write, then `close` fsyncs). */
export interface ShardWriter {
  /** Appends the buffers in order (one vectored write, no copy). */
  write(buffers: readonly Uint8Array[]): Promise<void>;
  /** Flushes to stable storage and closes. */
  close(): Promise<void>;
  /** Closes without flushing; the caller removes the temp directory. */
  abort(): Promise<void>;
}

/** Positional reader of one committed shard file. */
export interface ShardReader {
  /**
   * Reads exactly `length` bytes at `offset`; a short file is a FileNotFoundError-free FaultyDiskError. With
   * `pooled`, the buffer may be lent by the read-buffer pool (buffer-pool.ts): a holder that knows its bytes are
   * no longer referenced may hand it back; anyone else just drops it.
   */
  read(offset: number, length: number, pooled?: boolean): Promise<Buffer>;
  /**
   * Reads at least `min` and at most `max` bytes at `offset`: `max` unless the file ends first (fewer than `min`: as a
   * short `read`). Lets a peer answer a remote reader's in-order reads with one span (cluster/remote-drive.ts).
   */
  readSpan?(offset: number, min: number, max: number): Promise<Buffer>;
  close(): Promise<void>;
}

/** Options of {@link Drive.renameData}. */
export interface RenameDataOptions {
  /** System path of a directory to move in as the object's data directory (null for inline objects). */
  srcDataPath: string | null;
  /** Name (UUID) of the data directory referenced by `meta`; required with srcDataPath. */
  dataDir: string | null;
  /** When set, files of the moved data directory not in this list are removed (multipart). */
  keepFiles?: readonly string[];
  /**
   * Data directories of other versions the new record still references (versioned objects): kept, where
   * every other data directory of the object is removed after the commit.
   */
  keepDataDirs?: readonly string[];
  /**
   * The caller did not read the key's record before (an unversioned PUT: the read was a quarter of a small PUT's
   * wait, issue 9): the commit resolves with the record it replaced (null when the key had none), and every data
   * directory the key had stays, whatever `keepDataDirs` says. The caller removes the ones the new record does not
   * reference once the commit has write quorum, or puts the replaced record back below it (engine/versions.ts).
   */
  returnPrevious?: boolean;
  /**
   * `meta` is the record this drive committed for the key a moment ago, under the same object lock (engine/versions.ts
   * writeRecord, once the write has quorum): it is not written again; only the data directories neither `dataDir` nor
   * `keepDataDirs` names are removed. A 1 MiB overwrite's second synced record write per drive saved (issue 9). A drive
   * that does not know this option writes the record again, as before: the same outcome.
   */
  committed?: boolean;
  /**
   * A GET's fast path reads this drive's record of the key (it holds a data shard: ErasureSet.dataDrives): a local
   * drive keeps the record it commits in the process's GET cache (meta-cache.ts; LocalDrive.renameData says when it
   * does not). The others are left out: a GET never reads them from the cache, and they would take its room.
   */
  cache?: boolean;
}

/** One entry of {@link Drive.listVolumes}. */
export interface VolumeEntry {
  name: string;
  /** Content of the volume metadata file (empty when missing). */
  meta: Buffer;
}

/** Answer of {@link Drive.scanDir}. */
export interface DirScan {
  /**
   * Child segments (as {@link Drive.listDir}); null when the caller's `knownStamp` still describes the directory
   * (its names are unchanged since that scan).
   */
  names: string[] | null;
  /**
   * Identity of the directory's state when it was read (inode, mtime, ctime, link count); null when it cannot
   * vouch for the names later: the directory changed within the last few clock ticks (a change in the same tick
   * would keep the same mtime), a name was unreadable, or the directory is absent. (A drive with a key index answers
   * from its change log instead, absent directories too: a key's creation is recorded under each of its parents.)
   */
  stamp: string | null;
}

/** What {@link Drive.readChildren} reports for one child segment of a key directory. */
export interface ChildState {
  /** The child's metadata record (only when asked for); null when absent or not asked for. */
  meta: Buffer | null;
  /** True when the child's directory holds deeper key segments. */
  children: boolean;
  /** Set when this child could not be read (the drive's reason); `meta` and `children` are then unknown. */
  error?: string;
  /**
   * With metadata only: a stamp of the state answered (an opaque token of the drive: for a local drive, its change
   * log's position before the read, see change-log.ts), or null when it cannot vouch for it. A caller that keeps
   * the answer passes the stamp back in a later call.
   */
  stamp?: string | null;
  /**
   * True when the stamp the caller passed for this child still describes it: its metadata and children are what
   * came with that stamp, and `meta`/`children` are not sent again.
   */
  same?: true;
}

/** How {@link Drive.readMeta} may answer. */
export interface ReadMetaOptions {
  /** A record read before and vouched for by the drive's change log will do (no I/O). */
  cached?: boolean;
}

/** A disk (local or remote) holding format, buckets, objects and the system area. */
export interface Drive {
  /** Human-readable location (path or URL), used in logs and errors. */
  readonly endpoint: string;
  readonly isLocal: boolean;
  /**
   * Resolves (never rejects) once the drive's own recovery is over (a local drive's commit-log replay,
   * commit-log.ts). Peers' calls wait for it: a node serves the RPC before it opens its storage (formats are read
   * across the cluster), and a read before the replay would see the files as a crash left them, which heal would
   * take for missing.
   */
  settled?(): Promise<void>;
  /**
   * Lets go of what the drive holds open in this process (a key index's place in its worker, which flushes it): the
   * storage's close. The drive stays usable: a later call opens again what it needs.
   */
  close?(): Promise<void>;

  /** Reads the format file; DiskNotFoundError (no root), UnformattedDiskError (no format). */
  readFormat(): Promise<Buffer>;
  /** Writes the format file atomically and creates the system area. */
  writeFormat(data: Buffer): Promise<void>;
  diskInfo(): Promise<DiskInfo>;
  /**
   * Removes leftovers of interrupted writes (temp and trash areas). Entries modified within the last `olderThanMs`
   * are kept: in a cluster, other nodes may be writing into this drive's temp area right now.
   */
  cleanTemp(olderThanMs?: number): Promise<void>;

  makeVolume(volume: string, meta: Buffer): Promise<void>;
  /** Returns the volume metadata; VolumeNotFoundError when absent. */
  statVolume(volume: string): Promise<Buffer>;
  listVolumes(): Promise<VolumeEntry[]>;
  /** Atomically replaces the metadata of an existing volume; VolumeNotFoundError when absent. */
  writeVolumeMeta(volume: string, meta: Uint8Array): Promise<void>;
  /** Removes the volume directory with everything in it. */
  deleteVolume(volume: string): Promise<void>;

  /** Creates (truncating) a shard file at `sysPath`, creating parent directories. */
  createShardWriter(sysPath: string): Promise<ShardWriter>;
  /** Atomically writes a small system file (temp + fsync + rename). */
  writeSysFile(sysPath: string, data: Uint8Array): Promise<void>;
  /** FileNotFoundError when absent. */
  readSysFile(sysPath: string): Promise<Buffer>;
  /** Names in a system directory; empty when absent. */
  listSysDir(sysPath: string): Promise<string[]>;
  /** Renames inside the system area, replacing the destination (parents are created). */
  renameSys(srcSysPath: string, dstSysPath: string): Promise<void>;
  /** Recursive, idempotent removal. */
  deleteSysPath(sysPath: string): Promise<void>;

  /**
   * Commits an object on this drive: moves the data directory in (if any), then atomically
   * replaces the metadata record, then removes data directories the new record no longer references. Resolves with
   * the replaced record with `returnPrevious`, null otherwise.
   */
  renameData(volume: string, key: string, meta: Uint8Array, opts: RenameDataOptions): Promise<Buffer | null>;
  /**
   * FileNotFoundError when the object has no metadata record on this drive. `cached`: the GET/HEAD fast path, which
   * a local drive may answer from the record it read or committed last if no change of the key was recorded since
   * (meta-cache.ts).
   */
  readMeta(volume: string, key: string, opts?: ReadMetaOptions): Promise<Buffer>;
  openShardReader(volume: string, key: string, dataDir: string, file: string): Promise<ShardReader>;
  /** Removes the object's record and data (idempotent) and prunes empty parent directories. */
  deleteObject(volume: string, key: string): Promise<void>;
  /**
   * Child segments of the key-directory `dirKey` ("" or a prefix ending in "/"), decoded, unsorted.
   * A name may denote an object, a deeper directory, or both.
   */
  listDir(volume: string, dirKey: string): Promise<string[]>;
  /**
   * {@link listDir} plus a stamp of the directory's state, so that a caller holding the names of an earlier scan
   * can revalidate them with one cheap call (`names` is null when `knownStamp` still matches).
   */
  scanDir(volume: string, dirKey: string, knownStamp: string | null): Promise<DirScan>;
  /**
   * For each child segment `names[i]` of `dirKey`, in one call: its metadata record when `withMeta` (null when it
   * has none) and whether it has deeper segments. The listing's batched read: one round trip per batch of keys.
   * `known[i]`, a stamp of an earlier answer for `names[i]` (or null), lets the drive answer `same` for a child that
   * has not changed since, without reading its metadata again.
   */
  readChildren(volume: string, dirKey: string, names: readonly string[], withMeta: boolean, known?: readonly (string | null)[] | null): Promise<ChildState[]>;
}
