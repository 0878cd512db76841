import type { ObjectLayer, ObjectVersionInfo, VersioningState } from '../object-layer.js';
import { BucketNotFoundError, ObjectNotFoundError } from '../storage-errors.js';
import { ObjectLockedError } from '../retention.js';
import { dueTime, filterMatches, parseLifecycleConfig, type LifecycleRule } from './rules.js';

/**
 * One lifecycle pass (https://docs.aws.amazon.com/AmazonS3/latest/userguide/intro-lifecycle-rules.html): for every
 * bucket with a lifecycle configuration, applies its enabled rules at `now` through the ObjectLayer — current
 * versions expire (a delete marker in a versioned bucket, removal otherwise), noncurrent versions and expired
 * object delete markers are removed, incomplete multipart uploads are aborted. A version Object Lock protects is
 * never removed (it is counted in `locked`).
 */

/** What one pass did. */
export interface LifecycleRunReport {
  buckets: number;
  /** Current versions expired (removed, or hidden behind a new delete marker). */
  expired: number;
  /** Noncurrent versions and noncurrent delete markers removed. */
  noncurrentRemoved: number;
  /** Expired object delete markers removed. */
  deleteMarkersRemoved: number;
  uploadsAborted: number;
  /** Removals refused because Object Lock protects the version. */
  locked: number;
  /** Keys or uploads whose action failed for another reason (the pass goes on). */
  errors: number;
}

/** Options of runLifecycle. */
export interface LifecycleRunOptions {
  /** The clock rules are evaluated against (milliseconds since the epoch); injectable for tests. */
  now: () => number;
  /** Told about actions that failed (other than Object Lock refusals). */
  onError?: (bucket: string, key: string, err: unknown) => void;
}

const PAGE = 1000;

function emptyReport(): LifecycleRunReport {
  return { buckets: 0, expired: 0, noncurrentRemoved: 0, deleteMarkersRemoved: 0, uploadsAborted: 0, locked: 0, errors: 0 };
}

function objectFacts(v: ObjectVersionInfo): { tags: Array<{ key: string; value: string }>; size: number } | undefined {
  return v.deleteMarker || v.info === undefined ? undefined : { tags: v.info.tags ?? [], size: v.info.size };
}

/** Whether `rule` expires the current object version `v` at `now`. */
function currentExpires(rule: LifecycleRule, v: ObjectVersionInfo, now: number): boolean {
  const e = rule.expiration;
  if (e === undefined) return false;
  if (e.date !== undefined && now >= e.date) return true;
  return e.days !== undefined && now >= dueTime(v.lastModified.getTime(), e.days);
}

/**
 * Whether `rule` removes a delete marker that is the key's only version: ExpiredObjectDeleteMarker, or an
 * Expiration in Days whose period has passed for the marker (as AWS and MinIO clean such markers up).
 */
function loneMarkerExpires(rule: LifecycleRule, marker: ObjectVersionInfo, now: number): boolean {
  const e = rule.expiration;
  if (e === undefined) return false;
  if (e.expiredObjectDeleteMarker === true) return true;
  return e.days !== undefined && now >= dueTime(marker.lastModified.getTime(), e.days);
}

/** Indexes (into `versions`, newest first) of the noncurrent versions `rule` removes at `now`. */
function noncurrentToRemove(rule: LifecycleRule, key: string, versions: readonly ObjectVersionInfo[], now: number): number[] {
  const nc = rule.noncurrentVersionExpiration;
  if (nc === undefined) return [];
  const out: number[] = [];
  let newer = 0;
  for (let i = 1; i < versions.length; i++) {
    const v = versions[i]!;
    if (!filterMatches(rule.filter, key, objectFacts(v))) continue;
    // NewerNoncurrentVersions keeps that many newest noncurrent versions, whatever their age.
    newer++;
    if (nc.newerNoncurrentVersions !== undefined && newer <= nc.newerNoncurrentVersions) continue;
    // A version becomes noncurrent when its successor is written.
    const since = versions[i - 1]!.lastModified.getTime();
    if (nc.noncurrentDays === undefined || now >= dueTime(since, nc.noncurrentDays)) out.push(i);
  }
  return out;
}

/** Applies `rules` to the versions of one key (newest first). */
async function applyToKey(
  layer: ObjectLayer, bucket: string, key: string, versions: ObjectVersionInfo[], rules: readonly LifecycleRule[],
  versioning: VersioningState | undefined, now: number, report: LifecycleRunReport, onError: LifecycleRunOptions['onError'],
): Promise<void> {
  const lockCheck = { now: new Date(now), bypassGovernance: false };
  const remove = async (v: ObjectVersionInfo): Promise<boolean> => {
    try {
      await layer.deleteObject(bucket, key, { versionId: v.versionId, objectLock: lockCheck });
      return true;
    } catch (err) {
      if (err instanceof ObjectLockedError) report.locked++;
      else { report.errors++; onError?.(bucket, key, err); }
      return false;
    }
  };
  const removed = new Set<number>();
  for (const rule of rules) {
    for (const i of noncurrentToRemove(rule, key, versions, now)) {
      if (removed.has(i)) continue;
      if (await remove(versions[i]!)) { removed.add(i); report.noncurrentRemoved++; }
    }
  }
  const current = versions[0]!;
  if (current.deleteMarker) {
    const alone = versions.every((_, i) => i === 0 || removed.has(i));
    if (alone && rules.some((r) => filterMatches(r.filter, key, undefined) && loneMarkerExpires(r, current, now)) && await remove(current)) {
      report.deleteMarkersRemoved++;
    }
    return;
  }
  if (!rules.some((r) => filterMatches(r.filter, key, objectFacts(current)) && currentExpires(r, current, now))) return;
  try {
    // Versioned buckets keep the data as a noncurrent version behind a delete marker; unversioned ones lose it.
    // Only the version listed: an object written since the listing is not this rule's to expire.
    const result = await layer.deleteObject(bucket, key, { ...(versioning === undefined ? {} : { versioning }), ifNewestModifiedAt: current.lastModified.getTime() });
    if (result.skipped !== true) report.expired++;
  } catch (err) {
    report.errors++;
    onError?.(bucket, key, err);
  }
}

async function applyToVersions(
  layer: ObjectLayer, bucket: string, rules: readonly LifecycleRule[], versioning: VersioningState | undefined, now: number,
  report: LifecycleRunReport, onError: LifecycleRunOptions['onError'],
): Promise<void> {
  let keyMarker = '';
  let versionIdMarker = '';
  let pendingKey: string | undefined;
  let pending: ObjectVersionInfo[] = [];
  const flush = async (): Promise<void> => {
    if (pendingKey !== undefined && pending.length > 0) await applyToKey(layer, bucket, pendingKey, pending, rules, versioning, now, report, onError);
    pendingKey = undefined;
    pending = [];
  };
  for (;;) {
    const page = await layer.listObjectVersions(bucket, { prefix: '', delimiter: '', keyMarker, versionIdMarker, maxKeys: PAGE });
    for (const v of page.versions) {
      if (v.key !== pendingKey) await flush();
      pendingKey = v.key;
      pending.push(v);
    }
    if (!page.isTruncated || page.nextKeyMarker === undefined) break;
    keyMarker = page.nextKeyMarker;
    versionIdMarker = page.nextVersionIdMarker ?? '';
  }
  await flush();
}

async function abortUploads(
  layer: ObjectLayer, bucket: string, rules: readonly LifecycleRule[], now: number, report: LifecycleRunReport, onError: LifecycleRunOptions['onError'],
): Promise<void> {
  const aborting = rules.filter((r) => r.abortIncompleteMultipartUpload !== undefined);
  if (aborting.length === 0) return;
  let keyMarker = '';
  let uploadIdMarker = '';
  for (;;) {
    const page = await layer.listMultipartUploads(bucket, { prefix: '', delimiter: '', keyMarker, uploadIdMarker, maxUploads: PAGE });
    for (const u of page.uploads) {
      const due = aborting.some((r) => filterMatches(r.filter, u.key, undefined)
        && now >= dueTime(u.initiated.getTime(), r.abortIncompleteMultipartUpload!.daysAfterInitiation));
      if (!due) continue;
      try {
        await layer.abortMultipartUpload(bucket, u.key, u.uploadId);
        report.uploadsAborted++;
      } catch (err) {
        report.errors++;
        onError?.(bucket, u.key, err);
      }
    }
    if (!page.isTruncated || page.nextKeyMarker === undefined) break;
    keyMarker = page.nextKeyMarker;
    uploadIdMarker = page.nextUploadIdMarker ?? '';
  }
}

function versioningOf(stored: string | undefined): VersioningState | undefined {
  if (stored === 'Enabled') return 'enabled';
  if (stored === 'Suspended') return 'suspended';
  return undefined;
}

/** Runs one lifecycle pass over every bucket at `opts.now()`. */
export async function runLifecycle(layer: ObjectLayer, opts: LifecycleRunOptions): Promise<LifecycleRunReport> {
  const report = emptyReport();
  const now = opts.now();
  for (const b of await layer.listBuckets()) {
    try {
      const stored = await layer.getBucketConfig(b.name, 'lifecycle');
      if (stored === undefined) continue;
      const rules = parseLifecycleConfig(stored).rules.filter((r) => r.enabled);
      if (rules.length === 0) continue;
      report.buckets++;
      const versioning = versioningOf(await layer.getBucketConfig(b.name, 'versioning'));
      await applyToVersions(layer, b.name, rules, versioning, now, report, opts.onError);
      await abortUploads(layer, b.name, rules, now, report, opts.onError);
    } catch (err) {
      // A bucket deleted during the pass is simply gone.
      if (err instanceof BucketNotFoundError || err instanceof ObjectNotFoundError) continue;
      report.errors++;
      opts.onError?.(b.name, '', err);
    }
  }
  return report;
}
