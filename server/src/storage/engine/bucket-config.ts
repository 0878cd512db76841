import type { BucketRecord } from '../format/index.js';
import type { ErasureSet } from './erasure-set.js';
import type { BucketConfigKind } from './object-layer.js';
import { nextModTime, updateBucketRecord } from './bucket-record.js';

/**
 * Bucket configuration documents (CORS, policy…), stored opaquely in the bucket record: the API layer
 * validates and encodes them, the engine only keeps the newest document of each kind.
 */

/** The document of `kind` in a merged bucket record, undefined when none. */
export function configOf(record: BucketRecord, kind: BucketConfigKind): string | undefined {
  const configs = record.configs ?? {};
  return Object.prototype.hasOwnProperty.call(configs, kind) ? configs[kind]!.data : undefined;
}

/** Replaces (or with undefined deletes, leaving a tombstone) the document of `kind`; other parts of the record are kept. */
export async function putBucketConfig(
  sets: readonly ErasureSet[],
  bucket: string,
  kind: BucketConfigKind,
  data: string | undefined,
): Promise<void> {
  await updateBucketRecord(sets, bucket, (current) => {
    const configs = { ...current.configs };
    const previous = Object.prototype.hasOwnProperty.call(configs, kind) ? configs[kind]!.modTime : undefined;
    configs[kind] = data === undefined ? { modTime: nextModTime(previous) } : { modTime: nextModTime(previous), data };
    return { ...current, configs };
  });
}
