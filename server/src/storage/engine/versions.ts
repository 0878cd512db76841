import { randomUUID } from 'node:crypto';
import type { RenameDataOptions } from '../drive/index.js';
import { VolumeNotFoundError, isDriveOfflineError } from '../drive/index.js';
import { countOk, reduceErrors, writeQuorum } from '../erasure/index.js';
import { NULL_VERSION_ID, decodeObjectRecord, encodeObjectRecord, isDeleteMarker } from '../format/index.js';
import type { ObjectMeta, ObjectRecord, VersionMeta } from '../format/index.js';
import type { ErasureSet, QuorumMeta, QuorumRecord } from './erasure-set.js';
import { recordK, recordM } from './erasure-set.js';
import type { VersioningState } from './object-layer.js';
import { writeQuorumLost } from './quorum-loss.js';
import {
  BucketNotFoundError, DeleteMarkerReadError, ObjectNotFoundError, VersionNotFoundError,
} from './storage-errors.js';

/**
 * The version journal of a key (REFERENCE.md fact 5; https://docs.aws.amazon.com/AmazonS3/latest/userguide/versioning-workflows.html):
 * choosing the version a read addresses, and rewriting the record on every drive when versions are added or
 * removed. Each drive's record differs only in its own shard index and inline shards, so a rewrite keeps every
 * drive's copy of the versions it does not change.
 */

/** The version a read addresses: `versionId`, or the newest. Delete markers and unknown ids are typed errors. */
export function selectVersion(bucket: string, q: QuorumRecord, versionId?: string): QuorumMeta {
  const { record } = q;
  const at = versionId === undefined ? 0 : record.versions.findIndex((v) => v.versionId === versionId);
  const v = record.versions[at];
  if (v === undefined) throw new VersionNotFoundError(bucket, record.key, versionId ?? '');
  if (isDeleteMarker(v)) {
    const marker = { versionId: v.versionId, lastModified: new Date(v.modTime) };
    // GET of a key whose newest version is a marker is 404 NoSuchKey; GET of the marker itself is 405.
    if (versionId === undefined) throw new ObjectNotFoundError(bucket, record.key, marker);
    throw new DeleteMarkerReadError(bucket, record.key, marker);
  }
  return versionAt(q, at);
}

/** The object version at `index` of the agreed record, with each agreeing drive's copy of it. */
export function versionAt(q: QuorumRecord, index: number): QuorumMeta {
  const v = q.record.versions[index];
  if (v === undefined || isDeleteMarker(v)) throw new RangeError(`version ${index} of ${q.record.key} is not an object version`);
  const own = (r: ObjectRecord | null | undefined): ObjectMeta | null => {
    const mine = r?.versions[index];
    return mine === undefined || isDeleteMarker(mine) ? null : mine;
  };
  const out: QuorumMeta = { meta: v, perDrive: q.perDrive.map(own), incomplete: q.incomplete };
  const fetch = q.fetchDrive;
  if (fetch !== undefined) out.fetchDrive = async (i) => own(await fetch(i));
  return out;
}

/** Data directories referenced by `versions`. */
export function dataDirsOf(versions: readonly VersionMeta[]): string[] {
  return versions.flatMap((v) => (isDeleteMarker(v) || v.dataDir === null ? [] : [v.dataDir]));
}

/** The current record of `key` at read quorum, or null when the key has none (call under the key's lock). */
export async function currentRecord(set: ErasureSet, bucket: string, key: string): Promise<QuorumRecord | null> {
  try {
    return set.pickQuorum(bucket, key, await set.readMetas(bucket, key));
  } catch (err) {
    if (err instanceof ObjectNotFoundError) return null;
    throw err;
  }
}

/** A newly written object version and its per-shard inline data (null when it has a data directory). */
export interface FreshVersion {
  meta: ObjectMeta;
  inline: readonly Buffer[] | null;
}

/**
 * Drive `i`'s copy of `record`: its own shard index in every object version, the inline shard of the fresh
 * version, and for older versions the drive's own copy from `prev`. `stale` is set when the drive had no copy of
 * an older version (its shards of that version must be rebuilt by a deep heal).
 */
function driveRecord(record: ObjectRecord, i: number, prev: QuorumRecord | null, fresh: FreshVersion | undefined, stale: { v: boolean }): ObjectRecord {
  const own = prev?.perDrive[i] ?? null;
  // By version id: a lookup per version in the drive's list made each rewrite quadratic in the key's versions (1,000
  // versions: ~4 million string compares per PUT on 4 drives; docs/performance.md, thirty-ninth session).
  const ownById = new Map<string, ObjectMeta>();
  for (const o of own?.versions ?? []) if (!isDeleteMarker(o) && !ownById.has(o.versionId)) ownById.set(o.versionId, o);
  const versions = record.versions.map((v): VersionMeta => {
    if (isDeleteMarker(v)) return v;
    const shard = v.erasure.distribution[i]!;
    if (fresh !== undefined && v === fresh.meta) {
      return { ...v, erasure: { ...v.erasure, index: shard }, inline: fresh.inline?.[shard - 1] ?? null };
    }
    const mine = ownById.get(v.versionId);
    if (mine !== undefined) return { ...v, erasure: { ...v.erasure, index: mine.erasure.index }, inline: mine.inline };
    stale.v = true;
    return { ...v, erasure: { ...v.erasure, index: shard }, inline: null };
  });
  return { ...record, versions };
}

/** How one record rewrite reaches the drives. */
export interface WriteRecordOptions {
  /**
   * The record being replaced (null: the key had none), for per-drive copies and rollback. Undefined: not read, for
   * a record of the fresh version alone (an unversioned PUT, recordWith): each drive hands back the record it replaced
   * (RenameDataOptions.returnPrevious), and the rollback and the removal of replaced data go by those. Reading it
   * first was a quarter of a small PUT's wait (issue 9; docs/performance.md, sixteenth session).
   */
  prev: QuorumRecord | null | undefined;
  /** Drives to write (a fresh version goes only where its shards were written). */
  mask: readonly boolean[];
  fresh?: FreshVersion;
  /** Data directory of the fresh version to move in, per drive. */
  src?: (i: number) => Pick<RenameDataOptions, 'srcDataPath' | 'dataDir' | 'keepFiles'>;
}

/** Marks a replaced record whose bytes did not decode: it may have pointed at any data directory. */
const UNDECODABLE = Symbol('undecodable');

/** What a drive had before a commit: its record, or null when it had none. */
type Replaced = ObjectRecord | null | typeof UNDECODABLE;

function decodeReplaced(bytes: Buffer | null): Replaced {
  if (bytes === null) return null;
  try {
    return decodeObjectRecord(bytes);
  } catch {
    return UNDECODABLE;
  }
}

/**
 * Writes `record` on the drives of `opts.mask` (under the key's lock, held by the caller). Data directories of
 * versions the record no longer references are removed by the drives. Below write quorum the drives that took
 * the change get their previous record back (or lose the key when it had none, or when it did not decode: a heal
 * rebuilds it) and InsufficientWriteQuorumError is thrown. Resolves with the drives whose commit succeeded (their data
 * directory, if any, was moved in).
 */
export async function writeRecord(set: ErasureSet, bucket: string, key: string, record: ObjectRecord, opts: WriteRecordOptions): Promise<boolean[]> {
  const wq = writeQuorum(recordK(record, set.k), recordM(record, set.parity));
  const keepDataDirs = dataDirsOf(record.versions);
  const keep = new Set(keepDataDirs);
  const stale = { v: false };
  const written = new Map<number, Uint8Array>();
  const unread = opts.prev === undefined;
  /** Per drive, with `unread`: the record its commit replaced. */
  const replaced = new Map<number, Replaced>();
  const previousOf = (i: number): Replaced => (unread ? replaced.get(i) ?? null : opts.prev?.perDrive[i] ?? null);
  // Data directories of the drive's previous record that the new record drops: kept until the new record has
  // write quorum, because a failed overwrite is rolled back to the previous record, which still points at them.
  const dropped = (i: number): string[] => {
    const before = previousOf(i);
    return before === UNDECODABLE ? [] : dataDirsOf(before?.versions ?? []).filter((d) => !keep.has(d));
  };
  // An undecodable record may have pointed at anything: the final rewrite below drops what `record` does not keep.
  const replacedData = (i: number): boolean => previousOf(i) === UNDECODABLE || dropped(i).length > 0;
  // The drives a GET's fast path reads keep the record they commit for it (RenameDataOptions.cache).
  const data = set.dataDrives(key);
  const commit = async (i: number): Promise<void> => {
    const src = { ...(opts.src?.(i) ?? { srcDataPath: null, dataDir: null }), cache: data[i] === true };
    const mine = encodeObjectRecord(driveRecord(record, i, opts.prev ?? null, opts.fresh, stale));
    written.set(i, mine);
    const drive = set.drives[i]!.drive;
    if (!unread) {
      await drive.renameData(bucket, key, mine, { ...src, keepDataDirs: [...keepDataDirs, ...dropped(i)] });
      return;
    }
    replaced.set(i, decodeReplaced(await drive.renameData(bucket, key, mine, { ...src, keepDataDirs, returnPrevious: true })));
  };
  let res = await set.each((_d, i) => commit(i), opts.mask);
  if (opts.fresh?.inline !== null && opts.fresh !== undefined && countOk(res) < wq && res.some((r) => !r.ok && isDriveOfflineError(r.error))) {
    // Inline objects open no shard writer: a drive wiped since the last check is found here.
    await set.recheck();
    const retry = await set.each((_d, i) => commit(i), res.map((r, i) => !r.ok && opts.mask[i] === true));
    res = res.map((r, i) => (r.ok ? r : retry[i]!));
  }
  const ok = countOk(res);
  if (ok >= wq) {
    // Committed: now the replaced data may go (the record just committed, with the final keep list: `committed`, not
    // written again). A drive where this fails keeps an unreferenced directory, which costs space but never correctness.
    await set.each((d, i) => d.renameData(bucket, key, written.get(i)!, { srcDataPath: null, dataDir: null, keepDataDirs, committed: true }),
      res.map((r, i) => r.ok && replacedData(i)));
    if (ok < set.n || stale.v) set.heals.queueObject(set, bucket, key, stale.v);
    return res.map((r) => r.ok);
  }
  await set.each(async (d, i) => {
    const old = previousOf(i);
    if (old === null || old === UNDECODABLE) return d.deleteObject(bucket, key);
    await d.renameData(bucket, key, encodeObjectRecord(old), { srcDataPath: null, dataDir: null, keepDataDirs: dataDirsOf(old.versions) });
  }, res.map((r) => r.ok));
  if (reduceErrors(res, set.n - ok) instanceof VolumeNotFoundError) throw new BucketNotFoundError(bucket);
  throw writeQuorumLost(`write quorum ${wq} not reached: ${ok} of ${set.n} drives committed`, res.map((r) => (r.ok ? undefined : r.error)));
}

/**
 * The record after writing `version` under `versioning`: unversioned replaces everything, Enabled adds a version
 * with a fresh id, Suspended replaces the "null" version (https://docs.aws.amazon.com/AmazonS3/latest/userguide/AddingObjectstoVersionSuspendedBuckets.html).
 * `version.versionId` is set accordingly.
 */
export function recordWith(key: string, prev: QuorumRecord | null, version: VersionMeta, versioning: VersioningState | undefined): ObjectRecord {
  version.versionId = versioning === 'enabled' ? randomUUID() : NULL_VERSION_ID;
  const older = versioning === undefined || prev === null
    ? []
    : prev.record.versions.filter((v) => versioning === 'enabled' || v.versionId !== NULL_VERSION_ID);
  return { key, writeId: randomUUID(), versions: [version, ...older] };
}
