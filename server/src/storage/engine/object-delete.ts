import { randomUUID } from 'node:crypto';
import { countOk, majorityQuorum } from '../erasure/index.js';
import { isDeleteMarker } from '../format/index.js';
import type { DeleteMarkerMeta } from '../format/index.js';
import type { ErasureSet } from './erasure-set.js';
import type { DeleteObjectOptions, DeleteObjectResult } from './object-layer.js';
import { InsufficientWriteQuorumError } from './storage-errors.js';
import { currentRecord, recordWith, writeRecord } from './versions.js';
import { assertHeld } from './locker.js';
import { ObjectLockedError } from './retention.js';
import { isLocked } from './lock-state.js';

/**
 * DeleteObject on one set (https://docs.aws.amazon.com/AmazonS3/latest/userguide/DeletingObjectVersions.html):
 * with a version id the version is removed for good (its data directory on every drive with it); without one a
 * versioned bucket gets a delete marker (Enabled: a new version, Suspended: it replaces the "null" version) and
 * an unversioned bucket loses the object. Deleting what does not exist succeeds, as on S3.
 */
export async function deleteObject(set: ErasureSet, bucket: string, key: string, opts: DeleteObjectOptions): Promise<DeleteObjectResult> {
  const unlock = await set.locker.lock(`${bucket}/${key}`);
  try {
    assertHeld(unlock, `${bucket}/${key}`);
    if (opts.versionId === undefined && opts.ifNewestModifiedAt !== undefined) {
      const newest = (await currentRecord(set, bucket, key))?.record.versions[0];
      if (newest?.modTime !== opts.ifNewestModifiedAt) return { deleteMarker: false, skipped: true };
    }
    if (opts.versionId === undefined && opts.versioning === undefined) {
      await removeKey(set, bucket, key);
      return { deleteMarker: false };
    }
    const prev = await currentRecord(set, bucket, key);
    const all = set.drives.map(() => true);
    if (opts.versionId !== undefined) {
      const at = prev === null ? -1 : prev.record.versions.findIndex((v) => v.versionId === opts.versionId);
      if (prev === null || at < 0) return { versionId: opts.versionId, deleteMarker: false };
      const removed = prev.record.versions[at]!;
      if (opts.objectLock !== undefined && !isDeleteMarker(removed) && isLocked(removed.lock, opts.objectLock)) {
        throw new ObjectLockedError(bucket, key, removed.versionId);
      }
      const rest = prev.record.versions.filter((_, j) => j !== at);
      if (rest.length === 0) await removeKey(set, bucket, key);
      else await writeRecord(set, bucket, key, { key, writeId: randomUUID(), versions: rest }, { prev, mask: all });
      return { versionId: removed.versionId, deleteMarker: isDeleteMarker(removed) };
    }
    const marker: DeleteMarkerMeta = { deleteMarker: true, versionId: '', key, modTime: Date.now() };
    await writeRecord(set, bucket, key, recordWith(key, prev, marker, opts.versioning), { prev, mask: all });
    return { versionId: marker.versionId, deleteMarker: true };
  } finally {
    unlock();
  }
}

/** Removes the key's record and data on every drive; needs a majority of the set (as bucket changes do). */
async function removeKey(set: ErasureSet, bucket: string, key: string): Promise<void> {
  const res = await set.each((d) => d.deleteObject(bucket, key));
  if (countOk(res) < majorityQuorum(set.n)) {
    throw new InsufficientWriteQuorumError(`cannot delete ${bucket}/${key}: ${countOk(res)} of ${set.n} drives answered`);
  }
}
