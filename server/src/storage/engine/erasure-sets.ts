import type { Readable } from 'node:stream';
import { VolumeExistsError, VolumeNotFoundError } from '../drive/index.js';
import { countOk, majorityQuorum } from '../erasure/index.js';
import { decodeBucketRecord, encodeBucketRecord } from '../format/index.js';
import type { BucketRecord, ObjectRecord } from '../format/index.js';
import type { ErasureSet } from './erasure-set.js';
import { toObjectInfo } from './erasure-set.js';
import type { HealQueue } from './heal-queue.js';
import { hasAnyKey, listObjects } from './listing.js';
import { abortUpload, completeUpload, createUpload, listParts, listSetUploads, putPart, uploadInfo } from './multipart.js';
import { listUploads } from './list-uploads.js';
import type {
  BucketConfigKind, BucketInfo, CompletePart, DeleteObjectOptions, DeleteObjectResult, ListObjectsOptions, ListObjectsResult, ListPartsResult, ListUploadsOptions,
  ListUploadsResult, ObjectInfo, ObjectLayer, ObjectTag, OpenObject, PartInfo, PutObjectOptions, StorageHealth,
  ListVersionsOptions, ListVersionsResult, VersionSelector, ObjectLockState,
  CompleteMultipartOptions, CreateMultipartOptions, MultipartUploadInfo,
} from './object-layer.js';
import { listObjectVersions } from './list-versions.js';
import { deleteObject } from './object-delete.js';
import { selectVersion } from './versions.js';
import { checkObjectName, compareUtf8 } from './object-name.js';
import { openObject } from './object-read.js';
import { putObject } from './object-write.js';
import { putBucketTags, putObjectTags, tagsOf } from './tagging.js';
import { configOf, putBucketConfig } from './bucket-config.js';
import { BucketRecordCache } from './bucket-record-cache.js';
import { mergeBucketRecords, readBucketRecords } from './bucket-record.js';
import { updateObjectLock } from './retention.js';
import { setIndexFor } from './placement.js';
import {
  BucketExistsError, BucketNotEmptyError, BucketNotFoundError, InsufficientReadQuorumError, InsufficientWriteQuorumError,
  InvalidBucketNameError, ObjectNotFoundError, VersionNotFoundError,
} from './storage-errors.js';

/** How long a positive "bucket exists" answer is reused (saves N reads per PUT/GET). */
const BUCKET_CACHE_MS = 1000;

/** Names the drives can hold as a directory (S3 naming rules are enforced by the S3 layer). */
const BUCKET_RE = /^(?!\.\.?$)(?!\.svc\.sys$)[A-Za-z0-9._-]{1,255}$/;

/** Drive-liveness hooks the object layer needs from the monitor. */
export interface DriveChecker {
  /** Re-reads the format of every drive now (on demand from health()). */
  checkNow(): Promise<void>;
  stop(): void;
}

/** A read of `versionId` on a key that has no versions at all is NoSuchVersion (as S3 answers), not NoSuchKey. */
async function versionRead<T>(bucket: string, key: string, versionId: string | undefined, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (versionId !== undefined && err instanceof ObjectNotFoundError && err.deleteMarker === undefined && !(err instanceof VersionNotFoundError)) {
      throw new VersionNotFoundError(bucket, key, versionId);
    }
    throw err;
  }
}

/**
 * ObjectLayer over several erasure sets: an object lives in the set chosen by
 * `setIndexFor(deploymentId, key)` (placement.ts); buckets exist on every drive of every set
 * and are created/deleted with a majority (N/2+1) of each set's drives (REFERENCE.md fact 2).
 */
export class ErasureSets implements ObjectLayer {
  readonly deploymentId: string;
  readonly sets: readonly ErasureSet[];
  readonly #heals: HealQueue;
  #checker: DriveChecker | undefined;
  readonly #bucketSeen = new Map<string, number>();
  readonly #records: BucketRecordCache;

  /** `records`: the bucket record cache (a cluster node's is shared with the peer notifications); by default one that is on when every drive is local. */
  constructor(deploymentId: string, sets: readonly ErasureSet[], heals: HealQueue, records?: BucketRecordCache) {
    this.deploymentId = deploymentId;
    this.sets = sets;
    this.#heals = heals;
    this.#records = records ?? new BucketRecordCache(sets.every((s) => s.drives.every((d) => d.drive.isLocal)));
  }

  /** Attaches the drive monitor (constructed after the sets). */
  setChecker(checker: DriveChecker): void {
    this.#checker = checker;
  }

  #setFor(key: string): ErasureSet {
    return this.sets[setIndexFor(this.deploymentId, key, this.sets.length)]!;
  }

  async #requireBucket(bucket: string): Promise<void> {
    if (!BUCKET_RE.test(bucket)) throw new BucketNotFoundError(bucket);
    const seen = this.#bucketSeen.get(bucket);
    if (seen !== undefined && Date.now() - seen < BUCKET_CACHE_MS) return;
    await this.getBucketInfo(bucket);
  }

  async makeBucket(bucket: string): Promise<void> {
    if (!BUCKET_RE.test(bucket)) throw new InvalidBucketNameError(bucket);
    return this.#records.changing(bucket, () => this.#makeBucket(bucket));
  }

  async #makeBucket(bucket: string): Promise<void> {
    const record = encodeBucketRecord({ created: Date.now() });
    const results = await Promise.all(this.sets.map((s) => s.each((d) => d.makeVolume(bucket, record))));
    let exists = 0;
    let total = 0;
    for (const res of results) for (const r of res) { total++; if (!r.ok && r.error instanceof VolumeExistsError) exists++; }
    if (exists >= majorityQuorum(total)) throw new BucketExistsError(bucket);
    const short = this.sets.findIndex((s, i) => countOk(results[i]!) + results[i]!.filter((r) => !r.ok && r.error instanceof VolumeExistsError).length < majorityQuorum(s.n));
    if (short >= 0) {
      await Promise.all(this.sets.map((s, i) => s.each((d) => d.deleteVolume(bucket), results[i]!.map((r) => r.ok))));
      throw new InsufficientWriteQuorumError(`cannot create bucket ${bucket}: set ${short} lacks a majority of drives`);
    }
    this.#bucketSeen.set(bucket, Date.now());
  }

  async getBucketInfo(bucket: string): Promise<BucketInfo> {
    if (!BUCKET_RE.test(bucket)) throw new BucketNotFoundError(bucket);
    const results = (await Promise.all(this.sets.map((s) => s.each((d) => d.statVolume(bucket))))).flat();
    let found = 0;
    let missing = 0;
    let created = Number.POSITIVE_INFINITY;
    for (const r of results) {
      if (r.ok) {
        found++;
        try { created = Math.min(created, decodeBucketRecord(r.value).created); } catch { /* legacy */ }
      } else if (r.error instanceof VolumeNotFoundError) missing++;
    }
    if (found === 0 && missing === 0) throw new InsufficientReadQuorumError(`no drive answered for bucket ${bucket}`);
    // Creates and deletes reach a majority, so a majority of the answering drives decides.
    if (found === 0 || found < missing) throw new BucketNotFoundError(bucket);
    this.#bucketSeen.set(bucket, Date.now());
    return { name: bucket, created: new Date(Number.isFinite(created) ? created : 0) };
  }

  /** Buckets held by at least half of the answering drives; names starting with "." are internal. */
  async listBuckets(): Promise<BucketInfo[]> {
    const results = (await Promise.all(this.sets.map((s) => s.each((d) => d.listVolumes())))).flat();
    const answered = results.filter((r) => r.ok).length;
    if (answered === 0) throw new InsufficientReadQuorumError('no drive answered');
    const seen = new Map<string, { n: number; created: number }>();
    for (const r of results) {
      if (!r.ok) continue;
      for (const v of r.value) {
        if (v.name.startsWith('.')) continue;
        const e = seen.get(v.name) ?? { n: 0, created: Number.POSITIVE_INFINITY };
        e.n++;
        try { e.created = Math.min(e.created, decodeBucketRecord(v.meta).created); } catch { /* legacy */ }
        seen.set(v.name, e);
      }
    }
    return [...seen.entries()]
      .filter(([, e]) => e.n * 2 >= answered)
      .map(([name, e]) => ({ name, created: new Date(Number.isFinite(e.created) ? e.created : 0) }))
      .sort((a, b) => compareUtf8(a.name, b.name));
  }

  /** True when the bucket holds no key and no upload: noncurrent versions and delete markers count, as on S3. */
  async isBucketEmpty(bucket: string): Promise<boolean> {
    if (await hasAnyKey(this.sets, bucket)) return false;
    const uploads = await Promise.all(this.sets.map((s) => listSetUploads(s, bucket)));
    return uploads.every((u) => u.length === 0);
  }

  deleteBucket(bucket: string): Promise<void> {
    return this.#records.changing(bucket, () => this.#deleteBucket(bucket));
  }

  async #deleteBucket(bucket: string): Promise<void> {
    await this.getBucketInfo(bucket);
    if (!(await this.isBucketEmpty(bucket))) throw new BucketNotEmptyError(bucket);
    this.#bucketSeen.delete(bucket);
    const results = await Promise.all(this.sets.map(async (s) => {
      const res = await s.each((d) => d.deleteVolume(bucket));
      await s.each((d) => d.deleteSysPath(`multipart/${bucket}`));
      return res;
    }));
    this.sets.forEach((s, i) => {
      const ok = results[i]!.filter((r) => r.ok || r.error instanceof VolumeNotFoundError).length;
      if (ok < majorityQuorum(s.n)) throw new InsufficientWriteQuorumError(`cannot delete bucket ${bucket}: set ${i} lacks a majority of drives`);
    });
  }

  async putObject(bucket: string, key: string, body: Readable, opts: PutObjectOptions): Promise<ObjectInfo> {
    checkObjectName(key);
    await this.#requireBucket(bucket);
    return putObject(this.#setFor(key), bucket, key, body, opts);
  }

  async getObjectInfo(bucket: string, key: string, opts: VersionSelector = {}): Promise<ObjectInfo> {
    checkObjectName(key);
    await this.#requireBucket(bucket);
    return versionRead(bucket, key, opts.versionId, async () => {
      const q = await this.#setFor(key).readObjectMeta(bucket, key);
      return toObjectInfo(bucket, selectVersion(bucket, q, opts.versionId).meta);
    });
  }

  async openObject(bucket: string, key: string, opts: VersionSelector = {}): Promise<OpenObject> {
    checkObjectName(key);
    await this.#requireBucket(bucket);
    return versionRead(bucket, key, opts.versionId, () => openObject(this.#setFor(key), bucket, key, opts.versionId));
  }

  async putObjectTags(bucket: string, key: string, tags: ObjectTag[]): Promise<ObjectInfo> {
    checkObjectName(key);
    await this.#requireBucket(bucket);
    return putObjectTags(this.#setFor(key), bucket, key, tags);
  }

  async updateObjectLock(
    bucket: string, key: string, opts: VersionSelector, change: (current: ObjectLockState) => ObjectLockState,
  ): Promise<ObjectInfo> {
    checkObjectName(key);
    await this.#requireBucket(bucket);
    return versionRead(bucket, key, opts.versionId, () => updateObjectLock(this.#setFor(key), bucket, key, opts.versionId, change));
  }

  async getBucketTags(bucket: string): Promise<ObjectTag[] | undefined> {
    if (!BUCKET_RE.test(bucket)) throw new BucketNotFoundError(bucket);
    return tagsOf(await this.#bucketRecord(bucket));
  }

  async putBucketTags(bucket: string, tags: ObjectTag[] | undefined): Promise<void> {
    if (!BUCKET_RE.test(bucket)) throw new BucketNotFoundError(bucket);
    return this.#records.changing(bucket, () => putBucketTags(this.sets, bucket, tags));
  }

  async getBucketConfig(bucket: string, kind: BucketConfigKind): Promise<string | undefined> {
    if (!BUCKET_RE.test(bucket)) throw new BucketNotFoundError(bucket);
    return configOf(await this.#bucketRecord(bucket), kind);
  }

  /** The merged record of `bucket` (its tags and configuration documents), through the cache. */
  #bucketRecord(bucket: string): Promise<BucketRecord> {
    return this.#records.get(bucket, async () => mergeBucketRecords(await readBucketRecords(this.sets, bucket)));
  }

  async putBucketConfig(bucket: string, kind: BucketConfigKind, data: string | undefined): Promise<void> {
    if (!BUCKET_RE.test(bucket)) throw new BucketNotFoundError(bucket);
    return this.#records.changing(bucket, () => putBucketConfig(this.sets, bucket, kind, data));
  }

  async deleteObject(bucket: string, key: string, opts: DeleteObjectOptions = {}): Promise<DeleteObjectResult> {
    checkObjectName(key);
    await this.#requireBucket(bucket);
    return deleteObject(this.#setFor(key), bucket, key, opts);
  }

  async listObjects(bucket: string, opts: ListObjectsOptions): Promise<ListObjectsResult> {
    await this.#requireBucket(bucket);
    return listObjects(this.sets, bucket, opts);
  }

  async listObjectVersions(bucket: string, opts: ListVersionsOptions): Promise<ListVersionsResult> {
    await this.#requireBucket(bucket);
    return listObjectVersions(this.sets, (key) => this.recordOf(bucket, key), bucket, opts);
  }

  /** Every version of `key` read at quorum, or null when the key has none (pool placement, version paging). */
  async recordOf(bucket: string, key: string): Promise<ObjectRecord | null> {
    try {
      return (await this.#setFor(key).readQuorumMeta(bucket, key)).record;
    } catch (err) {
      if (err instanceof ObjectNotFoundError) return null;
      throw err;
    }
  }

  /** Free bytes over the online drives (pool placement weighs new objects by it). */
  async freeSpace(): Promise<number> {
    const res = await Promise.all(this.sets.map((s) => s.each((d) => d.diskInfo())));
    return res.flat().reduce((sum, r) => sum + (r.ok ? r.value.free : 0), 0);
  }

  async createMultipartUpload(
    bucket: string, key: string, opts: CreateMultipartOptions,
  ): Promise<string> {
    checkObjectName(key);
    await this.#requireBucket(bucket);
    return createUpload(this.#setFor(key), bucket, key, opts);
  }

  async putObjectPart(
    bucket: string, key: string, uploadId: string, partNumber: number, body: Readable, opts: Omit<PutObjectOptions, 'metadata'>,
  ): Promise<PartInfo> {
    checkObjectName(key);
    await this.#requireBucket(bucket);
    return putPart(this.#setFor(key), bucket, key, uploadId, partNumber, body, opts);
  }

  async completeMultipartUpload(
    bucket: string, key: string, uploadId: string, parts: CompletePart[], opts: CompleteMultipartOptions = {},
  ): Promise<ObjectInfo> {
    checkObjectName(key);
    await this.#requireBucket(bucket);
    return completeUpload(this.#setFor(key), bucket, key, uploadId, parts, opts);
  }

  async abortMultipartUpload(bucket: string, key: string, uploadId: string): Promise<void> {
    checkObjectName(key);
    await this.#requireBucket(bucket);
    return abortUpload(this.#setFor(key), bucket, key, uploadId);
  }

  async listParts(
    bucket: string, key: string, uploadId: string, opts: { partNumberMarker: number; maxParts: number },
  ): Promise<ListPartsResult> {
    checkObjectName(key);
    await this.#requireBucket(bucket);
    return listParts(this.#setFor(key), bucket, key, uploadId, opts);
  }

  async getMultipartInfo(bucket: string, key: string, uploadId: string): Promise<MultipartUploadInfo> {
    checkObjectName(key);
    await this.#requireBucket(bucket);
    return uploadInfo(this.#setFor(key), bucket, key, uploadId);
  }

  async listMultipartUploads(bucket: string, opts: ListUploadsOptions): Promise<ListUploadsResult> {
    await this.#requireBucket(bucket);
    return listUploads(this.sets, bucket, opts);
  }

  async health(): Promise<StorageHealth> {
    await this.#checker?.checkNow();
    let writable = true;
    let readable = true;
    let writeQuorum = 0;
    let readQuorum = 0;
    let online = 0;
    let offline = 0;
    let healing = 0;
    for (const s of this.sets) {
      const up = s.onlineCount();
      online += up;
      offline += s.n - up;
      healing += s.drives.filter((d) => d.online && d.healing).length;
      writeQuorum = Math.max(writeQuorum, s.writeQuorum);
      readQuorum = Math.max(readQuorum, s.readQuorum);
      if (up < s.writeQuorum) writable = false;
      if (up < s.readQuorum) readable = false;
    }
    return { writable, readable, writeQuorum, readQuorum, onlineDrives: online, offlineDrives: offline, healingDrives: healing };
  }

  /** Resolves when the heal queue is empty and idle (tests, admin). */
  drainHeals(): Promise<void> {
    return this.#heals.drain();
  }

  async close(): Promise<void> {
    this.#checker?.stop();
    await this.#heals.close();
    // Local drives let go of their key indexes (flushed, closed in their workers: nothing writes them after this).
    await Promise.allSettled(this.sets.flatMap((s) => s.drives.map((d) => d.drive.close?.())));
  }
}
