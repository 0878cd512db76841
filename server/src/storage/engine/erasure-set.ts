import type { BitrotHasher } from '../bitrot/index.js';
import type { Drive, ReadMetaOptions } from '../drive/index.js';
import {
  DiskNotFoundError, FileNotFoundError, InvalidDrivePathError, VolumeNotFoundError, isDriveOfflineError,
} from '../drive/index.js';
import { readQuorum, writeQuorum } from '../erasure/index.js';
import type { DriveResult } from '../erasure/index.js';
import { decodeObjectRecord, isDeleteMarker } from '../format/index.js';
import type { ObjectMeta, ObjectRecord } from '../format/index.js';
import type { NamespaceLocker, Unlock } from './locker.js';
import type { ObjectInfo } from './object-layer.js';
import { fromLockMeta } from './lock-state.js';
import { distributionFor } from './placement.js';
import type { SetDrive } from './set-drive.js';
import {
  BucketNotFoundError, InsufficientReadQuorumError, InvalidBucketNameError, ObjectNotFoundError,
} from './storage-errors.js';

/** Minimal logger port. */
export interface StorageLogger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

/** Background work sink (the MRF heal queue). */
export interface HealSink {
  /** Queues a heal of one object; `deep` verifies every shard (after a read saw damage). */
  queueObject(set: ErasureSet, bucket: string, key: string, deep: boolean): void;
}

/** One object version agreed by a read quorum of drives (what reads and heals of its data use). */
export interface QuorumMeta {
  meta: ObjectMeta;
  /** Per drive of the set: its copy of the version (own shard index, inline shard) when it agrees, else null. */
  perDrive: (ObjectMeta | null)[];
  /** True when some online drive lacks the agreed record (needs healing). */
  incomplete: boolean;
  /** For a drive that was not asked (perDrive null): reads its copy of the version, null unless it agrees. */
  fetchDrive?: (i: number) => Promise<ObjectMeta | null>;
}

/** The metadata record (every version of a key) agreed by a read quorum of drives. */
export interface QuorumRecord {
  record: ObjectRecord;
  /** Per drive of the set: its record when it agrees with `record`, else null. */
  perDrive: (ObjectRecord | null)[];
  /** True when some online drive lacks the agreed record (needs healing). */
  incomplete: boolean;
  /** For a drive that was not asked (perDrive null): reads its record, null unless it agrees (readObjectMeta). */
  fetchDrive?: (i: number) => Promise<ObjectRecord | null>;
}

const CACHED: ReadMetaOptions = Object.freeze({ cached: true });

/**
 * Data shards of the newest object version, which sets the record's read quorum; a record of delete markers
 * only uses the set's K (markers are written at the set's write quorum).
 */
export function recordK(record: ObjectRecord, setK: number): number {
  const obj = record.versions.find((v): v is ObjectMeta => !isDeleteMarker(v));
  return obj === undefined ? setK : obj.erasure.k;
}

/** Parity of the record's newest object version (the set's parity for delete markers only). */
export function recordM(record: ObjectRecord, setM: number): number {
  const obj = record.versions.find((v): v is ObjectMeta => !isDeleteMarker(v));
  return obj === undefined ? setM : obj.erasure.m;
}

/** Modification time of the record's newest version (its last change). */
function recordTime(record: ObjectRecord): number {
  return record.versions[0]?.modTime ?? 0;
}

/** Dependencies of an {@link ErasureSet}. */
export interface ErasureSetDeps {
  index: number;
  drives: SetDrive[];
  parity: number;
  deploymentId: string;
  hasher: BitrotHasher;
  locker: NamespaceLocker;
  heals: HealSink;
  logger: StorageLogger;
  /** Called when a drive call failed with an offline-class error (the monitor rechecks it). */
  onDriveFault(slot: SetDrive, err: unknown): void;
  /** Re-detects drives now (formats wiped ones); used before failing a write for lack of drives. */
  recheck(): Promise<void>;
}

/**
 * One erasure set: N drives, objects split into K = N - parity data shards + parity shards.
 * This class holds the per-drive fan-out and the metadata quorum; the operations live in
 * object-write.ts, object-read.ts, multipart.ts, listing.ts and heal.ts (one concern per file).
 */
export class ErasureSet {
  readonly index: number;
  readonly drives: SetDrive[];
  readonly parity: number;
  readonly deploymentId: string;
  readonly hasher: BitrotHasher;
  readonly locker: NamespaceLocker;
  readonly heals: HealSink;
  readonly logger: StorageLogger;
  readonly #onDriveFault: (slot: SetDrive, err: unknown) => void;
  readonly #recheck: () => Promise<void>;

  constructor(deps: ErasureSetDeps) {
    this.index = deps.index;
    this.drives = deps.drives;
    this.parity = deps.parity;
    this.deploymentId = deps.deploymentId;
    this.hasher = deps.hasher;
    this.locker = deps.locker;
    this.heals = deps.heals;
    this.logger = deps.logger;
    this.#onDriveFault = deps.onDriveFault;
    this.#recheck = deps.recheck;
  }

  /** Re-detects the drives (see ErasureSetDeps.recheck). */
  recheck(): Promise<void> {
    return this.#recheck();
  }

  get n(): number {
    return this.drives.length;
  }

  /** Data shards of new objects. */
  get k(): number {
    return this.n - this.parity;
  }

  get writeQuorum(): number {
    return writeQuorum(this.k, this.parity);
  }

  get readQuorum(): number {
    return readQuorum(this.k);
  }

  onlineCount(): number {
    return this.drives.filter((d) => d.online).length;
  }

  /**
   * Runs `fn` on every drive in parallel; offline slots answer DiskNotFoundError without a call.
   * Offline-class failures are reported to the monitor.
   */
  each<T>(fn: (drive: Drive, i: number) => Promise<T>, only?: readonly boolean[]): Promise<DriveResult<T>[]> {
    // Left-out and offline slots answer at once: no async frame, no throw and catch (a GET leaves out the parity
    // drives, so this runs twice per request; the per-drive async wrappers showed in the 4 KiB GET's profile).
    return Promise.all(this.drives.map((slot, i): DriveResult<T> | Promise<DriveResult<T>> => {
      if (only !== undefined && only[i] !== true) return { ok: false, error: this.#skipped(slot.drive.endpoint, i) };
      if (!slot.online) return { ok: false, error: new DiskNotFoundError(slot.drive.endpoint) };
      let call: Promise<T>;
      try {
        call = fn(slot.drive, i);
      } catch (err) {
        call = Promise.reject(err);
      }
      return call.then((value) => ({ ok: true, value }), (err: unknown) => ({ ok: false, error: this.#driveError(slot, err) }));
    }));
  }

  /** What a drive's failure becomes in `each`: offline-class failures reach the monitor; a bad path is a bad name. */
  #driveError(slot: SetDrive, err: unknown): unknown {
    if (isDriveOfflineError(err)) this.#onDriveFault(slot, err);
    if (err instanceof InvalidDrivePathError) return new InvalidBucketNameError(String(err.message));
    return err;
  }

  readonly #skips: { endpoint: string; error: DiskNotFoundError }[] = [];

  /**
   * The answer of a drive left out by `only`: one error per slot, made once (a GET leaves out the parity drives,
   * and creating two errors per request showed in its profile). Nothing mutates an error once made.
   */
  #skipped(endpoint: string, i: number): DiskNotFoundError {
    const known = this.#skips[i];
    if (known?.endpoint === endpoint) return known.error;
    const error = new DiskNotFoundError(endpoint);
    this.#skips[i] = { endpoint, error };
    return error;
  }

  /** Reads and decodes every drive's metadata record of `key` (`cached`: see Drive.readMeta). */
  readMetas(bucket: string, key: string, only?: readonly boolean[], cached = false): Promise<DriveResult<ObjectRecord>[]> {
    const opts = cached ? CACHED : undefined;
    return this.each((d) => d.readMeta(bucket, key, opts).then(decodeObjectRecord), only);
  }

  /**
   * Whether drive `i`'s failed answer `error` says the key is absent there. Not from a drive formatted empty as a
   * replacement and not fully healed yet (its format says so: SetDrive.unhealed): it lacks every object it has not
   * been given back. Counting such answers, a key written while one node was down read as absent once a holder's
   * directory vanished and was formatted afresh (fault run, seed 945207394), and its heal would have removed the
   * remaining holders' records as a failed write's leftovers. Drives back from an outage do vote (as in MinIO,
   * where only a replaced drive carries a healing tracker): counting them out too made a key absent from one pool
   * unreadable (503) for as long as a restarted node's full heal ran, and with it every object of a multi-pool
   * deployment whose other pool could then not prove the key absent.
   */
  votesAbsent(i: number, error: unknown): boolean {
    if (!(error instanceof FileNotFoundError) && !(error instanceof VolumeNotFoundError)) return false;
    return this.drives[i]?.unhealed !== true;
  }

  /**
   * Picks the newest record held by at least its read quorum (K) of drives.
   * Throws ObjectNotFoundError only when absence is proven: more drives answered "not found" than a committed record
   * leaves without it (n − write quorum; a replacement drive not yet healed does not count, see votesAbsent), and either
   * no drive answered with a record at all or no record can reach K even counting unreachable drives. With no record
   * answered, what unreachable drives might hold is at most a failed write's leftovers (a committed record would be on
   * some of the drives that said "not found"): as in MinIO, a missing key reads as absent while up to n − K drives are
   * away (two of four blank drives made every listing of nested keys fail, mixed-layouts.test.ts).
   * A commit replaces a drive's record, it never removes one, so while an overwrite is in flight the drives hold
   * the old or the new record and few answer "not found"; counting the groups alone answered NoSuchKey for an
   * object being overwritten while some drives were unreachable (fault run, seed 335142602).
   * Anything else without a quorum is InsufficientReadQuorumError.
   */
  pickQuorum(bucket: string, key: string, results: readonly DriveResult<ObjectRecord>[]): QuorumRecord {
    const groups = new Map<string, { meta: ObjectRecord; idx: number[] }>();
    let unknown = 0;
    let notFound = 0;
    let volumeMissing = 0;
    results.forEach((r, i) => {
      if (!r.ok) {
        if (!this.votesAbsent(i, r.error)) unknown++;
        else if (r.error instanceof VolumeNotFoundError) volumeMissing++;
        else notFound++;
        return;
      }
      const g = groups.get(r.value.writeId);
      if (g === undefined) groups.set(r.value.writeId, { meta: r.value, idx: [i] });
      else g.idx.push(i);
    });
    let best: { meta: ObjectRecord; idx: number[] } | undefined;
    let largest = 0;
    let fewestWriters = this.writeQuorum;
    for (const g of groups.values()) {
      largest = Math.max(largest, g.idx.length);
      const k = recordK(g.meta, this.k);
      fewestWriters = Math.min(fewestWriters, writeQuorum(k, this.n - k));
      if (g.idx.length < readQuorum(k)) continue;
      const t = recordTime(g.meta);
      const bt = best === undefined ? 0 : recordTime(best.meta);
      if (best === undefined || t > bt || (t === bt && g.meta.writeId > best.meta.writeId)) best = g;
    }
    if (best === undefined) {
      if ((largest === 0 || largest + unknown < this.readQuorum) && notFound + volumeMissing > this.n - fewestWriters) {
        if (volumeMissing > 0 && volumeMissing >= results.length - unknown) throw new BucketNotFoundError(bucket);
        throw new ObjectNotFoundError(bucket, key);
      }
      throw new InsufficientReadQuorumError(`cannot read ${bucket}/${key}: too few drives agree`);
    }
    const perDrive: (ObjectRecord | null)[] = results.map(() => null);
    for (const i of best.idx) perDrive[i] = (results[i] as { ok: true; value: ObjectRecord }).value;
    const incomplete = this.drives.some((d, i) => d.online && perDrive[i] === null);
    return { record: best.meta, perDrive, incomplete };
  }

  /**
   * The record at read quorum (queues a heal when some online drive lacks it). Reads take no lock, so a read can
   * land in the middle of a commit: some drives already hold the new record, the others the old one, and neither
   * reaches read quorum. Such a split (records present, no quorum) is read again under the object's lock, which
   * waits for the commit to finish — an object being overwritten must never read as absent.
   */
  async readQuorumMeta(bucket: string, key: string): Promise<QuorumRecord> {
    const results = await this.readMetas(bucket, key);
    let q: QuorumRecord;
    try {
      q = this.pickQuorum(bucket, key, results);
    } catch (err) {
      // Records were read but none reached quorum: a commit may be in flight, so read again once it is done.
      // Also when a drive answered with an error other than "offline" (a damaged record: the fault run's
      // overwrite stayed below quorum that way). Too few drives reachable is an outage, answered at once (no
      // lock wait, and the lock may be unreachable for the same reason).
      const reachable = results.filter((r) => r.ok || !isDriveOfflineError(r.error)).length;
      const split = (err instanceof ObjectNotFoundError || err instanceof InsufficientReadQuorumError)
        && results.some((r) => r.ok) && reachable >= this.readQuorum;
      if (!split) throw err;
      let unlock: Unlock;
      try {
        unlock = await this.locker.lock(`${bucket}/${key}`);
      } catch {
        throw err;
      }
      try {
        q = this.pickQuorum(bucket, key, await this.readMetas(bucket, key));
      } finally {
        unlock();
      }
    }
    if (q.incomplete) this.heals.queueObject(this, bucket, key, false);
    return q;
  }

  /** Per drive: whether it holds one of the K data shards of `key` in the set's layout (the drives readObjectMeta reads). */
  dataDrives(key: string): boolean[] {
    return distributionFor(this.deploymentId, key, this.n).map((shard) => shard <= this.k);
  }

  /**
   * GET/HEAD fast path: the record from the K drives holding the data shards of `key` only (a 4 KiB GET read
   * every drive's metadata: half of its file operations on 4 drives, issue 9). K agreeing answers are the latest
   * committed version (see readListMeta: a commit reaches write quorum, and K + write quorum > N), and for an
   * object of the set's layout those drives hold every data shard, so nothing needs decoding. The other drives
   * are asked only if a shard is missing or damaged (fetchDrive); anything else — disagreement, a missing key, a
   * drive offline or healing — takes the full read (readQuorumMeta), which also queues heals. What this read
   * does not see (a parity drive lacking the object) the scanner finds.
   */
  async readObjectMeta(bucket: string, key: string): Promise<QuorumRecord> {
    const data = this.dataDrives(key);
    const mask = this.drives.map((d, i) => data[i]! && d.online && !d.lacksObjects);
    if (mask.filter(Boolean).length < this.k) return this.readQuorumMeta(bucket, key);
    // The GET/HEAD fast path: records read before may answer (drive/meta-cache.ts); any disagreement below reads
    // every drive again from the disk.
    const res = await this.readMetas(bucket, key, mask, true);
    const got = res.filter((_, i) => mask[i]);
    const first = got[0];
    if (first?.ok !== true || recordK(first.value, this.k) > got.length
      || !got.every((r) => r.ok && r.value.writeId === first.value.writeId)) return this.readQuorumMeta(bucket, key);
    const record = first.value;
    const fetched = new Map<number, Promise<ObjectRecord | null>>();
    const fetchDrive = (i: number): Promise<ObjectRecord | null> => {
      let p = fetched.get(i);
      if (p === undefined) {
        const only = this.drives.map((_, j) => j === i);
        p = this.readMetas(bucket, key, only).then((r) => {
          const mine = r[i];
          return mine?.ok === true && mine.value.writeId === record.writeId ? mine.value : null;
        });
        fetched.set(i, p);
      }
      return p;
    };
    return { record, perDrive: res.map((r, i) => (mask[i] && r.ok ? r.value : null)), incomplete: false, fetchDrive };
  }
}

/** The ObjectInfo view of a metadata record. */
export function toObjectInfo(bucket: string, meta: ObjectMeta): ObjectInfo {
  const info: ObjectInfo = {
    bucket,
    key: meta.key,
    size: meta.size,
    etag: meta.etag,
    lastModified: new Date(meta.modTime),
    system: { ...meta.system },
    user: { ...meta.user },
    checksums: { ...meta.checksums },
    versionId: meta.versionId,
  };
  if (meta.partCount !== undefined) info.partCount = meta.partCount;
  if (meta.tags !== undefined && meta.tags.length > 0) info.tags = meta.tags.map((t) => ({ key: t.key, value: t.value }));
  if (meta.partCount !== undefined) {
    info.parts = meta.parts.map((p) => ({
      partNumber: p.number, size: p.size, etag: p.etag, checksums: { ...(p.checksums ?? {}) } as ObjectInfo['checksums'],
    }));
  }
  if (meta.internal !== undefined) info.internal = { ...meta.internal };
  if (meta.lock !== undefined) info.lock = fromLockMeta(meta.lock);
  return info;
}
