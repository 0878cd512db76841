import { randomUUID } from 'node:crypto';
import { ServerError } from '../../common/index.js';
import type { ObjectRecord } from '../format/index.js';
import type { ErasureSet } from './erasure-set.js';
import { toObjectInfo } from './erasure-set.js';
import type { ObjectInfo, ObjectLockState } from './object-layer.js';
import { fromLockMeta, toLockMeta, withLock } from './lock-state.js';
import { selectVersion, writeRecord } from './versions.js';
import { assertHeld } from './locker.js';

/**
 * Object Lock per object version (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html): the
 * retention period and legal hold live in the version's metadata record, so changing them rewrites only that
 * record, under the object's lock, like a tagging change. The S3 rules on who may change what are decided by
 * the caller's `change` function; the engine only refuses to remove a locked version.
 */

/** A version could not be removed because Object Lock protects it (S3 answers 403 AccessDenied). */
export class ObjectLockedError extends ServerError {
  constructor(bucket: string, key: string, versionId: string) {
    super('ERR_OBJECT_LOCKED', `version ${versionId} of ${bucket}/${key} is protected by object lock`);
  }
}

/**
 * Put{ObjectRetention,ObjectLegalHold} on one set: reads the addressed version at quorum under the object's lock,
 * asks `change` for the new state and writes the record back with a new write id (version id and modTime kept).
 */
export async function updateObjectLock(
  set: ErasureSet, bucket: string, key: string, versionId: string | undefined, change: (current: ObjectLockState) => ObjectLockState,
): Promise<ObjectInfo> {
  const unlock = await set.locker.lock(`${bucket}/${key}`);
  try {
    const q = set.pickQuorum(bucket, key, await set.readMetas(bucket, key));
    const current = selectVersion(bucket, q, versionId).meta;
    const updated = withLock(current, toLockMeta(change(fromLockMeta(current.lock))));
    const versions = q.record.versions.map((v) => (v === current ? updated : v));
    const record: ObjectRecord = { ...q.record, writeId: randomUUID(), versions };
    assertHeld(unlock, `${bucket}/${key}`);
    await writeRecord(set, bucket, key, record, { prev: q, mask: q.perDrive.map((m) => m !== null) });
    return toObjectInfo(bucket, updated);
  } finally {
    unlock();
  }
}
