import { VolumeNotFoundError } from '../drive/index.js';
import { countOk, majorityQuorum } from '../erasure/index.js';
import { decodeBucketRecord, encodeBucketRecord } from '../format/index.js';
import type { BucketConfigEntry, BucketRecord } from '../format/index.js';
import type { ErasureSet } from './erasure-set.js';
import { BucketNotFoundError, InsufficientReadQuorumError, InsufficientWriteQuorumError } from './storage-errors.js';
import { assertHeld } from './locker.js';

/**
 * The bucket record every drive keeps beside each bucket directory (creation time, tags, configuration
 * documents). Drives that missed a change hold older parts; each part carries its own change time, so a
 * read merges the newest of every part and a write stores the merged record on every drive.
 */

/** The decodable bucket records of every drive; BucketNotFoundError when a majority lacks the bucket. */
export async function readBucketRecords(sets: readonly ErasureSet[], bucket: string): Promise<BucketRecord[]> {
  const results = (await Promise.all(sets.map((s) => s.each((d) => d.statVolume(bucket))))).flat();
  const records: BucketRecord[] = [];
  let missing = 0;
  let found = 0;
  let answered = 0;
  for (const r of results) {
    if (r.ok) {
      answered++;
      found++;
      try { records.push(decodeBucketRecord(r.value)); } catch { /* legacy record without content */ }
    } else if (r.error instanceof VolumeNotFoundError) {
      answered++;
      missing++;
    }
  }
  if (answered === 0) throw new InsufficientReadQuorumError(`no drive answered for bucket ${bucket}`);
  // Creates and deletes reach a majority, so a majority of the answering drives decides (as getBucketInfo).
  if (found === 0 || found < missing) throw new BucketNotFoundError(bucket);
  return records;
}

/** The newest state over the drives' records: oldest creation time, newest tags, newest entry per config kind. */
export function mergeBucketRecords(records: readonly BucketRecord[]): BucketRecord {
  const created = records.length > 0 ? Math.min(...records.map((r) => r.created)) : 0;
  let tagsFrom: BucketRecord | undefined;
  const configs: Record<string, BucketConfigEntry> = {};
  for (const r of records) {
    if (tagsFrom === undefined || (r.tagsModTime ?? 0) > (tagsFrom.tagsModTime ?? 0)) tagsFrom = r;
    for (const [kind, entry] of Object.entries(r.configs ?? {})) {
      const have = Object.prototype.hasOwnProperty.call(configs, kind) ? configs[kind] : undefined;
      if (have === undefined || entry.modTime > have.modTime) configs[kind] = { ...entry };
    }
  }
  const merged: BucketRecord = { created };
  if (tagsFrom?.tagsModTime !== undefined) merged.tagsModTime = tagsFrom.tagsModTime;
  if (tagsFrom?.tags !== undefined) merged.tags = tagsFrom.tags.map((t) => ({ key: t.key, value: t.value }));
  if (Object.keys(configs).length > 0) merged.configs = configs;
  return merged;
}

/** A change time later than `previous` (two changes within one millisecond must still order). */
export function nextModTime(previous: number | undefined): number {
  return Math.max(Date.now(), (previous ?? 0) + 1);
}

/**
 * Read-merge-write of the bucket record under a bucket-wide lock: `change` gets the merged newest state
 * and returns the record to store on every drive. Needs a majority of each set's drives, as bucket
 * creation does.
 */
export async function updateBucketRecord(
  sets: readonly ErasureSet[],
  bucket: string,
  change: (current: BucketRecord) => BucketRecord,
): Promise<void> {
  const unlock = await sets[0]!.locker.lock(`.bucket-meta/${bucket}`);
  try {
    const data = encodeBucketRecord(change(mergeBucketRecords(await readBucketRecords(sets, bucket))));
    assertHeld(unlock, `.bucket-meta/${bucket}`);
    const results = await Promise.all(sets.map((s) => s.each((d) => d.writeVolumeMeta(bucket, data))));
    sets.forEach((s, i) => {
      const ok = countOk(results[i]!);
      if (ok < majorityQuorum(s.n)) {
        throw new InsufficientWriteQuorumError(`cannot update bucket ${bucket}: set ${i} has ${ok} of ${s.n} drives`);
      }
    });
  } finally {
    unlock();
  }
}
