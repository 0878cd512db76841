import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { BitrotLayout } from '../bitrot/index.js';
import type { ShardWriter } from '../drive/index.js';
import { isDriveOfflineError } from '../drive/index.js';
import { BLOCK_SIZE, ErasureCodec, INLINE_LIMIT, encodeStream, writeQuorum } from '../erasure/index.js';
import type { EncodeResult } from '../erasure/index.js';
import type { ObjectMeta, PartBitrot } from '../format/index.js';
import type { ErasureSet } from './erasure-set.js';
import { toObjectInfo } from './erasure-set.js';
import type { ObjectInfo, PutObjectOptions, VersioningState } from './object-layer.js';
import { distributionFor } from './placement.js';
import { writeQuorumLost } from './quorum-loss.js';
import { BadDigestError, IncompleteBodyError, InsufficientWriteQuorumError } from './storage-errors.js';
import { currentRecord, recordWith, writeRecord } from './versions.js';
import { assertHeld } from './locker.js';
import { toLockMeta } from './lock-state.js';

/**
 * PUT on one erasure set (DESIGN.md "How a PUT flows"): shards are streamed to
 * `.svc.sys/tmp/<dataDir>/part.1` on every drive in parallel (fsync on close), the body
 * is checked (size, Content-MD5), then under the object's lock each drive commits with one
 * `renameData` (data directory in, metadata record atomically replaced). The object is visible
 * once write quorum drives committed; otherwise the new version is removed again and
 * InsufficientWriteQuorumError is thrown. A crash before the commit leaves only temp files,
 * which openStorage removes; the old version stays intact.
 */

/** Erasure layout chosen for one write. */
export interface WriteLayout {
  k: number;
  m: number;
  distribution: number[];
}

/** Layout for a new object of `key` on this set. */
export function layoutFor(set: ErasureSet, key: string): WriteLayout {
  return { k: set.k, m: set.parity, distribution: distributionFor(set.deploymentId, key, set.n) };
}

/** Drive index holding each shard: shardDrive[s] = i where distribution[i] = s + 1. */
export function shardDrives(distribution: readonly number[]): number[] {
  const out: number[] = [];
  distribution.forEach((shard, i) => { out[shard - 1] = i; });
  return out;
}

/**
 * Layout of the shard files of new parts: trailing (bitrot/streaming.ts). Tests set interleaved to write parts as
 * servers before the thirty-seventh session did, which every reader must still read and heal.
 */
let newPartLayout: BitrotLayout = 'trailing';

/** For tests: new parts are written in `layout` (undefined: trailing again). */
export function setPartLayoutForTests(layout: BitrotLayout | undefined): void {
  newPartLayout = layout ?? 'trailing';
}

/** PartMeta.bitrot (and PartRecord.bitrot) of a part written as `result` says. */
export function partLayout(result: EncodeResult): { bitrot?: PartBitrot } {
  return result.layout === 'trailing' ? { bitrot: 'trailing' } : {};
}

/** Streams `body` as erasure shards into `tmpFile(drive)` on every online drive of the set. */
export async function encodeToTemp(
  set: ErasureSet, body: Readable, layout: WriteLayout, tmpFile: string, inlineLimit: number, expectedSize: number,
): Promise<EncodeResult> {
  const wq = writeQuorum(layout.k, layout.m);
  if (set.onlineCount() < wq) await set.recheck();
  if (set.onlineCount() < wq) {
    throw new InsufficientWriteQuorumError(`write quorum ${wq} not reached: ${set.onlineCount()} of ${set.n} drives online`);
  }
  const byShard = shardDrives(layout.distribution);
  return encodeStream(body, {
    codec: new ErasureCodec(layout.k, layout.m),
    hasher: set.hasher,
    blockSize: BLOCK_SIZE,
    layout: newPartLayout,
    inlineLimit,
    expectedSize,
    writeQuorum: wq,
    openWriters: async () => {
      let res = await set.each((d) => d.createShardWriter(tmpFile));
      if (res.some((r) => !r.ok && isDriveOfflineError(r.error))) {
        // A drive may have been wiped since the last check: re-detect (and format) it, then retry it.
        await set.recheck();
        const retry = await set.each((d) => d.createShardWriter(tmpFile), res.map((r) => !r.ok));
        res = res.map((r, i) => (r.ok ? r : retry[i]!));
      }
      return byShard.map((i): ShardWriter | null => {
        const r = res[i]!;
        return r.ok ? r.value : null;
      });
    },
    quorumError: (errors) => writeQuorumLost(
      `write quorum ${wq} lost: ${errors.filter((e) => e !== undefined).length} of ${set.n} drives failed`, errors,
    ),
    tooLargeError: () => new IncompleteBodyError(`body is longer than the declared ${expectedSize} bytes`),
  });
}

/** Removes a temp directory on every drive, or on those `only` marks. */
export async function dropTemp(set: ErasureSet, tmpDir: string, only?: readonly boolean[]): Promise<void> {
  await set.each((d) => d.deleteSysPath(tmpDir), only);
}

/** Checks size and Content-MD5 after the body ended (nothing is committed before). */
export function checkBody(result: EncodeResult, opts: { size: number; md5?: Buffer }): void {
  if (opts.size >= 0 && result.size !== opts.size) {
    throw new IncompleteBodyError(`body has ${result.size} bytes, expected ${opts.size}`);
  }
  if (opts.md5 !== undefined && !opts.md5.equals(result.md5)) throw new BadDigestError();
}

/**
 * Commits the object version `meta` on every drive allowed by `mask` (per-drive index and inline shard filled
 * in), under the object's lock, as `versioning` says (recordWith); sets `meta.versionId`. Rolls back below
 * write quorum. Resolves with the drives whose commit succeeded.
 */
export async function commitObject(
  set: ErasureSet, bucket: string, key: string, meta: ObjectMeta, mask: readonly boolean[],
  inline: readonly Buffer[] | null, src: (i: number) => { srcDataPath: string | null; dataDir: string | null; keepFiles?: string[] },
  versioning?: VersioningState,
): Promise<boolean[]> {
  const unlock = await set.locker.lock(`${bucket}/${key}`);
  try {
    // Unversioned, the new record holds the fresh version alone: the drives hand back what their commits replace
    // (versions.ts writeRecord), and a commit that misses write quorum is rolled back to those (without them the
    // drives that took it would lose the object they held: overwrite-rollback.test.ts).
    const prev = versioning === undefined ? undefined : await currentRecord(set, bucket, key);
    const record = recordWith(key, prev ?? null, meta, versioning);
    assertHeld(unlock, `${bucket}/${key}`);
    return await writeRecord(set, bucket, key, record, { prev, mask, fresh: { meta, inline }, src });
  } finally {
    unlock();
  }
}

/** PutObject on this set. */
export async function putObject(
  set: ErasureSet, bucket: string, key: string, body: Readable, opts: PutObjectOptions,
): Promise<ObjectInfo> {
  const layout = layoutFor(set, key);
  const dataDir = randomUUID();
  // The data directory itself is the temp directory (a fresh name): one directory to create per drive, and on the
  // drives whose commit moved it, nothing for dropTemp to find (1 MiB PUTs: docs/performance.md, twenty-second session).
  const tmpDir = `tmp/${dataDir}`;
  let result: EncodeResult | undefined;
  // Drives whose commit moved the temp directory in: nothing left there for dropTemp (two thread-pool round trips per
  // drive on the PUT's path, ~7 % of a 1 MiB PUT's wait at 4 in flight; docs/performance.md, thirty-fifth session).
  let moved: readonly boolean[] = [];
  try {
    result = await encodeToTemp(set, body, layout, `${tmpDir}/part.1`, INLINE_LIMIT, opts.size);
    checkBody(result, opts);
    const inline = result.inline;
    const meta: ObjectMeta = {
      versionId: '',
      key,
      size: result.size,
      etag: result.md5.toString('hex'),
      modTime: Date.now(),
      system: { ...opts.metadata.system },
      user: { ...opts.metadata.user },
      checksums: { ...(opts.checksums?.() ?? {}) },
      erasure: { k: layout.k, m: layout.m, blockSize: BLOCK_SIZE, index: 0, distribution: layout.distribution },
      dataDir: inline === null ? dataDir : null,
      parts: [{ number: 1, size: result.size, etag: result.md5.toString('hex'), ...partLayout(result) }],
      inline: null,
    };
    if (opts.tags !== undefined && opts.tags.length > 0) meta.tags = opts.tags.map((t) => ({ key: t.key, value: t.value }));
    if (opts.internal !== undefined && Object.keys(opts.internal).length > 0) meta.internal = { ...opts.internal };
    const lock = toLockMeta(opts.lock);
    if (lock !== undefined) meta.lock = lock;
    const byShard = shardDrives(layout.distribution);
    const mask = set.drives.map(() => false);
    result.written.forEach((w, s) => { if (w) mask[byShard[s]!] = true; });
    moved = await commitObject(set, bucket, key, meta, mask, inline, () => (
      inline === null ? { srcDataPath: tmpDir, dataDir } : { srcDataPath: null, dataDir: null }
    ), opts.versioning);
    return toObjectInfo(bucket, meta);
  } finally {
    if (result?.inline === null || result === undefined) await dropTemp(set, tmpDir, set.drives.map((_d, i) => moved[i] !== true));
  }
}
