import { randomUUID } from 'node:crypto';
import { countOk, writeQuorum } from '../erasure/index.js';
import { encodeObjectMeta } from '../format/index.js';
import type { BucketRecord, ObjectMeta } from '../format/index.js';
import type { ErasureSet } from './erasure-set.js';
import { toObjectInfo } from './erasure-set.js';
import type { ObjectInfo, ObjectTag } from './object-layer.js';
import { InsufficientWriteQuorumError } from './storage-errors.js';
import { mergeBucketRecords, nextModTime, readBucketRecords, updateBucketRecord } from './bucket-record.js';

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

/** GetBucketTagging: the tag set of `bucket`, undefined when none. */
export async function getBucketTags(sets: readonly ErasureSet[], bucket: string): Promise<ObjectTag[] | undefined> {
  const tags = mergeBucketRecords(await readBucketRecords(sets, bucket)).tags;
  return tags === undefined ? undefined : copyTags(tags);
}

/**
 * Put/DeleteBucketTagging: rewrites the bucket record on every drive (creation time and configuration
 * documents are kept), under a bucket-wide lock; needs a majority of each set's drives, as bucket creation does.
 */
export async function putBucketTags(sets: readonly ErasureSet[], bucket: string, tags: readonly ObjectTag[] | undefined): Promise<void> {
  await updateBucketRecord(sets, bucket, (current) => {
    const { tags: _old, ...rest } = current;
    const record: BucketRecord = { ...rest, tagsModTime: nextModTime(current.tagsModTime) };
    if (tags !== undefined) record.tags = copyTags(tags);
    return record;
  });
}
