import { randomUUID } from 'node:crypto';
import type { BucketRecord, ObjectMeta, ObjectRecord } from '../format/index.js';
import type { ErasureSet } from './erasure-set.js';
import { toObjectInfo } from './erasure-set.js';
import type { ObjectInfo, ObjectTag } from './object-layer.js';
import { selectVersion, writeRecord } from './versions.js';
import { nextModTime, updateBucketRecord } from './bucket-record.js';
import { assertHeld } from './locker.js';

/**
 * Tag sets (S3 object and bucket tagging). Object tags live in the object's metadata record, so a tag
 * change rewrites only that record (the data directory and inline shard stay as they are); bucket tags
 * live in the bucket record every drive keeps beside the bucket directory.
 */

function copyTags(tags: readonly ObjectTag[]): ObjectTag[] {
  return tags.map((t) => ({ key: t.key, value: t.value }));
}

/**
 * Replaces the tags of the newest version of `key` on one set. The record gets a new write id (drives agree on
 * a record by write id, so a drive that missed the change is seen as stale and healed) but the version keeps its
 * id and modTime, as S3 keeps Last-Modified on a tagging change. Below write quorum the drives that took the
 * change get the old record back and InsufficientWriteQuorumError is thrown.
 */
export async function putObjectTags(set: ErasureSet, bucket: string, key: string, tags: readonly ObjectTag[]): Promise<ObjectInfo> {
  const unlock = await set.locker.lock(`${bucket}/${key}`);
  try {
    const q = set.pickQuorum(bucket, key, await set.readMetas(bucket, key));
    const { tags: _old, ...rest } = selectVersion(bucket, q).meta;
    const updated: ObjectMeta = tags.length > 0 ? { ...rest, tags: copyTags(tags) } : rest;
    const record: ObjectRecord = { ...q.record, writeId: randomUUID(), versions: [updated, ...q.record.versions.slice(1)] };
    assertHeld(unlock, `${bucket}/${key}`);
    await writeRecord(set, bucket, key, record, { prev: q, mask: q.perDrive.map((m) => m !== null) });
    return toObjectInfo(bucket, updated);
  } finally {
    unlock();
  }
}

/** GetBucketTagging: the tag set in a merged bucket record (a copy), undefined when none. */
export function tagsOf(record: BucketRecord): ObjectTag[] | undefined {
  return record.tags === undefined ? undefined : copyTags(record.tags);
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
