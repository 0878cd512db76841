import { randomUUID } from 'node:crypto';
import { VolumeNotFoundError } from '../drive/index.js';
import { countOk, majorityQuorum, writeQuorum } from '../erasure/index.js';
import { decodeBucketRecord, encodeBucketRecord, encodeObjectMeta } from '../format/index.js';
import type { BucketRecord, ObjectMeta } from '../format/index.js';
import type { ErasureSet } from './erasure-set.js';
import { toObjectInfo } from './erasure-set.js';
import type { ObjectInfo, ObjectTag } from './object-layer.js';
import { BucketNotFoundError, InsufficientReadQuorumError, InsufficientWriteQuorumError } from './storage-errors.js';

/**
 * Tag sets (S3 object and bucket tagging). Object tags live in the object's metadata record, so a tag
 * change rewrites only that record (the data directory and inline shard stay as they are); bucket tags
 * live in the bucket record every drive keeps beside the bucket directory.
 */

function copyTags(tags: readonly ObjectTag[]): ObjectTag[] {
  return tags.map((t) => ({ key: t.key, value: t.value }));
}

/**
 * Replaces the tags of `key` on one set. The new record gets a new versionId (drives agree on a record by
 * versionId, so a drive that missed the change is seen as stale and healed) but keeps modTime, as S3 keeps
 * Last-Modified on a tagging change. Below write quorum the drives that took the change get the old
 * record back and InsufficientWriteQuorumError is thrown.
 */
export async function putObjectTags(set: ErasureSet, bucket: string, key: string, tags: readonly ObjectTag[]): Promise<ObjectInfo> {
  const unlock = await set.locker.lock(`${bucket}/${key}`);
  try {
    const q = set.pickQuorum(bucket, key, await set.readMetas(bucket, key));
    const versionId = randomUUID();
    const updated = (own: ObjectMeta): ObjectMeta => {
      const { tags: _old, ...rest } = own;
      return tags.length > 0 ? { ...rest, versionId, tags: copyTags(tags) } : { ...rest, versionId };
    };
    const has = q.perDrive.map((m) => m !== null);
    const write = (meta: (own: ObjectMeta) => ObjectMeta, only: readonly boolean[]) => set.each((d, i) => {
      const own = q.perDrive[i]!;
      return d.renameData(bucket, key, encodeObjectMeta(meta(own)), { srcDataPath: null, dataDir: own.dataDir });
    }, only);
    const res = await write(updated, has);
    const ok = countOk(res);
    const wq = writeQuorum(q.meta.erasure.k, q.meta.erasure.m);
    if (ok < wq) {
      await write((own) => own, res.map((r) => r.ok));
      throw new InsufficientWriteQuorumError(`cannot tag ${bucket}/${key}: ${ok} of ${set.n} drives took the change, ${wq} needed`);
    }
    if (ok < set.n) set.heals.queueObject(set, bucket, key, false);
    return toObjectInfo(bucket, updated(q.meta));
  } finally {
    unlock();
  }
}

/** The decodable bucket records of every drive; BucketNotFoundError when a majority lacks the bucket. */
async function readBucketRecords(sets: readonly ErasureSet[], bucket: string): Promise<BucketRecord[]> {
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

/** The newest record's tags (drives that missed a change hold an older tagsModTime). */
function newestTags(records: readonly BucketRecord[]): ObjectTag[] | undefined {
  let best: BucketRecord | undefined;
  for (const r of records) if (best === undefined || (r.tagsModTime ?? 0) > (best.tagsModTime ?? 0)) best = r;
  return best?.tags === undefined ? undefined : copyTags(best.tags);
}

/** GetBucketTagging: the tag set of `bucket`, undefined when none. */
export async function getBucketTags(sets: readonly ErasureSet[], bucket: string): Promise<ObjectTag[] | undefined> {
  return newestTags(await readBucketRecords(sets, bucket));
}

/**
 * Put/DeleteBucketTagging: rewrites the bucket record on every drive (the creation time is kept),
 * under a bucket-wide lock; needs a majority of each set's drives, as bucket creation does.
 */
export async function putBucketTags(sets: readonly ErasureSet[], bucket: string, tags: readonly ObjectTag[] | undefined): Promise<void> {
  const unlock = await sets[0]!.locker.lock(`.bucket-meta/${bucket}`);
  try {
    const records = await readBucketRecords(sets, bucket);
    const created = records.length > 0 ? Math.min(...records.map((r) => r.created)) : 0;
    const record: BucketRecord = { created, tagsModTime: Date.now() };
    if (tags !== undefined) record.tags = copyTags(tags);
    const data = encodeBucketRecord(record);
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
