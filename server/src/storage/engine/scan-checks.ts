import { BITROT_HASH_SIZE } from '../bitrot/index.js';
import { isDriveOfflineError } from '../drive/index.js';
import { blockCount, shardDataLength } from '../erasure/index.js';
import { isDeleteMarker } from '../format/index.js';
import type { ObjectMeta } from '../format/index.js';
import type { ErasureSet, QuorumRecord } from './erasure-set.js';
import { compareUtf8 } from './object-name.js';
import { InsufficientReadQuorumError } from './storage-errors.js';
import { listDirUnion } from './listing.js';

/**
 * What the scanner (scanner.ts) reads: the buckets and candidate keys of one erasure set, and the
 * shard files of an agreed record on each drive. Unlike listing.ts, the walk reads no metadata: the
 * scanner reads it, on every drive, only for the keys it samples.
 */

/** Buckets of `set` held by a majority of its answering drives. */
export async function setBuckets(set: ErasureSet): Promise<string[]> {
  const res = await set.each((d) => d.listVolumes());
  const counts = new Map<string, number>();
  let answered = 0;
  for (const r of res) {
    if (!r.ok) continue;
    answered++;
    for (const v of r.value) counts.set(v.name, (counts.get(v.name) ?? 0) + 1);
  }
  if (answered < set.readQuorum) throw new InsufficientReadQuorumError(`set ${set.index}: ${answered} of ${set.n} drives answered`);
  return [...counts].filter(([, n]) => n * 2 > answered).map(([name]) => name).sort(compareUtf8);
}

/**
 * Names asked about in one Drive.readChildren call of the walk. A key walked used to cost a listDir of its own (one
 * index-worker round trip and one stat of the bucket per drive) to learn whether deeper keys sit under it: ~730 µs
 * of CPU per key, a cycle over 20,000 keys 14.6 s (`npm run bench:scanner`, docs/performance.md, thirty-ninth session).
 */
const CHILD_BATCH = 256;

/** Every name below `dirKey` that may be an object (the union over the set's drives), depth first. */
export async function* candidateKeys(set: ErasureSet, bucket: string, dirKey: string): AsyncGenerator<string> {
  const names = (await listDirUnion(set, bucket, dirKey)).sort(compareUtf8);
  for (let at = 0; at < names.length; at += CHILD_BATCH) {
    const batch = names.slice(at, at + CHILD_BATCH);
    const deeper = await withChildren(set, bucket, dirKey, batch);
    for (let i = 0; i < batch.length; i++) {
      yield dirKey + batch[i];
      if (deeper[i]) yield* candidateKeys(set, bucket, `${dirKey}${batch[i]}/`);
    }
  }
}

/**
 * Per name of `names` (children of `dirKey`): true when a drive holds keys below it, or could not tell (its walk then
 * lists the directory, as every name's did before). A read quorum of drives must answer.
 */
async function withChildren(set: ErasureSet, bucket: string, dirKey: string, names: readonly string[]): Promise<boolean[]> {
  const res = await set.each((d) => d.readChildren(bucket, dirKey, names, false));
  const deeper = names.map(() => false);
  let answered = 0;
  for (const r of res) {
    if (!r.ok) continue;
    answered++;
    r.value.forEach((c, i) => { if (c.children || c.error !== undefined) deeper[i] = true; });
  }
  if (answered < set.readQuorum) throw new InsufficientReadQuorumError(`cannot walk ${bucket}: ${answered} of ${set.n} drives answered`);
  return deeper;
}

/** Bytes of a committed shard file of a part of `size` bytes: each block's chunk and its bitrot hash (either layout). */
function shardFileLength(size: number, blockSize: number, k: number): number {
  return shardDataLength(size, blockSize, k) + blockCount(size, blockSize) * BITROT_HASH_SIZE;
}

/**
 * True when a drive that agrees on the record lacks a shard of one of its versions: no part file,
 * a short one, or no inline shard. Offline drives are skipped (they are not heal targets).
 */
export async function shardsMissing(set: ErasureSet, bucket: string, q: QuorumRecord, check: readonly boolean[]): Promise<boolean> {
  for (let j = 0; j < q.record.versions.length; j++) {
    const v = q.record.versions[j]!;
    if (isDeleteMarker(v)) continue;
    const own = (i: number): ObjectMeta | null => {
      const c = q.perDrive[i]?.versions[j];
      return c === undefined || isDeleteMarker(c) ? null : c;
    };
    if (v.dataDir === null) {
      if (v.size > 0 && set.drives.some((_, i) => check[i] && own(i)?.inline === null)) return true;
      continue;
    }
    const dataDir = v.dataDir;
    for (const part of v.parts) {
      const length = shardFileLength(part.size, v.erasure.blockSize, v.erasure.k);
      const res = await set.each(async (d) => {
        const reader = await d.openShardReader(bucket, v.key, dataDir, `part.${part.number}`);
        try {
          if (length > 0) await reader.read(length - 1, 1);
        } finally {
          await reader.close();
        }
      }, check);
      if (res.some((r, i) => check[i] && !r.ok && !isDriveOfflineError(r.error))) return true;
    }
  }
  return false;
}
