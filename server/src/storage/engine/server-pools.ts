import type { Readable } from 'node:stream';
import type { ErasureSets } from './erasure-sets.js';
import { listObjects } from './listing.js';
import { listObjectVersions } from './list-versions.js';
import { listUploads } from './list-uploads.js';
import { newestModTime } from './listing.js';
import type {
  BucketConfigKind, BucketInfo, CompletePart, DeleteObjectOptions, DeleteObjectResult, ListObjectsOptions,
  ListObjectsResult, ListPartsResult, ListUploadsOptions, MultipartUploadInfo, ListUploadsResult, ListVersionsOptions, ListVersionsResult, ObjectInfo,
  ObjectLayer, ObjectTag, OpenObject, PartInfo, PutObjectOptions, StorageHealth, VersionSelector, ObjectLockState,
  CompleteMultipartOptions, CreateMultipartOptions,
} from './object-layer.js';
import { BucketExistsError, BucketNotEmptyError, UploadNotFoundError } from './storage-errors.js';

/** How long a pool's free-space figure is reused for placing new objects. */
const FREE_SPACE_TTL_MS = 5_000;

/** Where a key lives: the pool index and its newest version's modification time. */
interface Located {
  pool: number;
  modTime: number;
}

/**
 * ObjectLayer over several pools (each an {@link ErasureSets} with its own drives, sets and parity; one deployment id).
 * As in MinIO (REFERENCE.md §1.3): buckets and their configuration exist in every pool, pool 1 answers for them;
 * an existing object stays in the pool that holds it (every version, delete markers included); a new object goes
 * to a pool chosen at random in proportion to its free space, so the pool with the most free space takes most new
 * objects and pools fill evenly (a strict "largest pool wins" would send everything to one pool until it filled).
 * Two first writes of one key racing from two nodes can land in two pools: reads and listings take the newest, and
 * an unversioned delete removes the key from every pool holding it.
 */
export class ServerPools implements ObjectLayer {
  readonly deploymentId: string;
  readonly pools: readonly ErasureSets[];
  readonly #free: { value: number; at: number }[];
  readonly #random: () => number;

  constructor(pools: readonly ErasureSets[], random: () => number = Math.random) {
    this.deploymentId = pools[0]!.deploymentId;
    this.pools = pools;
    this.#free = pools.map(() => ({ value: 0, at: 0 }));
    this.#random = random;
  }

  get #first(): ErasureSets {
    return this.pools[0]!;
  }

  get #allSets(): ErasureSets['sets'] {
    return this.pools.flatMap((p) => p.sets);
  }

  /**
   * Pools holding `key`, newest first. A pool that cannot answer fails the call: writing elsewhere could fork the key.
   * With `forRead`, a pool that cannot answer is passed over when another pool holds the key (as MinIO's reads do): a
   * GET is served while one pool is below read quorum, at the risk, only if two racing first writes put the key in
   * both pools, of an older copy. With no pool holding it, the failure stands: absence is not proven.
   */
  async #locate(bucket: string, key: string, forRead = false): Promise<Located[]> {
    const answers = await Promise.allSettled(this.pools.map(async (p, pool) => {
      const record = await p.recordOf(bucket, key);
      return record === null ? undefined : { pool, modTime: newestModTime(record) };
    }));
    const found: Located[] = [];
    let failure: PromiseRejectedResult | undefined;
    for (const a of answers) {
      if (a.status === 'rejected') failure ??= a;
      else if (a.value !== undefined) found.push(a.value);
    }
    if (failure !== undefined && !(forRead && found.length > 0)) throw failure.reason;
    return found.sort((a, b) => b.modTime - a.modTime);
  }

  /** The pool of the newest copy of `key`, or pool 1 (whose answer is then the right "not found"). */
  async #readPool(bucket: string, key: string, forRead = false): Promise<ErasureSets> {
    await this.#first.getBucketInfo(bucket);
    const at = await this.#locate(bucket, key, forRead);
    return this.pools[at[0]?.pool ?? 0]!;
  }

  async #freeSpace(pool: number): Promise<number> {
    const cached = this.#free[pool]!;
    if (Date.now() - cached.at > FREE_SPACE_TTL_MS) {
      cached.value = await this.pools[pool]!.freeSpace().catch(() => 0);
      cached.at = Date.now();
    }
    return cached.value;
  }

  /** The pool a write of `key` goes to: the one holding it, else a free-space-weighted random choice. */
  async #writePool(bucket: string, key: string): Promise<ErasureSets> {
    await this.#first.getBucketInfo(bucket);
    const at = await this.#locate(bucket, key);
    if (at[0] !== undefined) return this.pools[at[0].pool]!;
    const free = await Promise.all(this.pools.map((_, i) => this.#freeSpace(i)));
    const total = free.reduce((a, b) => a + b, 0);
    if (total <= 0) return this.#first;
    let pick = this.#random() * total;
    for (let i = 0; i < free.length; i++) {
      pick -= free[i]!;
      if (pick < 0) return this.pools[i]!;
    }
    return this.pools[free.length - 1]!;
  }

  /** Runs `fn` on the pool holding the upload (upload ids are unique, so at most one pool knows it). */
  async #withUpload<T>(fn: (pool: ErasureSets) => Promise<T>): Promise<T> {
    let last: unknown;
    for (const pool of this.pools) {
      try {
        return await fn(pool);
      } catch (err) {
        if (!(err instanceof UploadNotFoundError)) throw err;
        last = err;
      }
    }
    throw last;
  }

  async makeBucket(bucket: string): Promise<void> {
    await this.#first.makeBucket(bucket);
    // Pool 1 decided that the bucket is new; the others may hold it from an earlier half-done create.
    await Promise.all(this.pools.slice(1).map(async (p) => {
      try {
        await p.makeBucket(bucket);
      } catch (err) {
        if (!(err instanceof BucketExistsError)) throw err;
      }
    }));
  }

  getBucketInfo(bucket: string): Promise<BucketInfo> {
    return this.#first.getBucketInfo(bucket);
  }

  listBuckets(): Promise<BucketInfo[]> {
    return this.#first.listBuckets();
  }

  async deleteBucket(bucket: string): Promise<void> {
    await this.#first.getBucketInfo(bucket);
    const empty = await Promise.all(this.pools.map((p) => p.isBucketEmpty(bucket)));
    if (empty.includes(false)) throw new BucketNotEmptyError(bucket);
    for (const p of this.pools.slice(1)) await p.deleteBucket(bucket);
    await this.#first.deleteBucket(bucket);
  }

  async putObject(bucket: string, key: string, body: Readable, opts: PutObjectOptions): Promise<ObjectInfo> {
    return (await this.#writePool(bucket, key)).putObject(bucket, key, body, opts);
  }

  async getObjectInfo(bucket: string, key: string, opts: VersionSelector = {}): Promise<ObjectInfo> {
    return (await this.#readPool(bucket, key, true)).getObjectInfo(bucket, key, opts);
  }

  async openObject(bucket: string, key: string, opts: VersionSelector = {}): Promise<OpenObject> {
    return (await this.#readPool(bucket, key, true)).openObject(bucket, key, opts);
  }

  async putObjectTags(bucket: string, key: string, tags: ObjectTag[]): Promise<ObjectInfo> {
    return (await this.#readPool(bucket, key)).putObjectTags(bucket, key, tags);
  }

  async updateObjectLock(
    bucket: string, key: string, opts: VersionSelector, change: (current: ObjectLockState) => ObjectLockState,
  ): Promise<ObjectInfo> {
    return (await this.#readPool(bucket, key)).updateObjectLock(bucket, key, opts, change);
  }

  getBucketTags(bucket: string): Promise<ObjectTag[] | undefined> {
    return this.#first.getBucketTags(bucket);
  }

  async putBucketTags(bucket: string, tags: ObjectTag[] | undefined): Promise<void> {
    await Promise.all(this.pools.map((p) => p.putBucketTags(bucket, tags)));
  }

  getBucketConfig(bucket: string, kind: BucketConfigKind): Promise<string | undefined> {
    return this.#first.getBucketConfig(bucket, kind);
  }

  async putBucketConfig(bucket: string, kind: BucketConfigKind, data: string | undefined): Promise<void> {
    await Promise.all(this.pools.map((p) => p.putBucketConfig(bucket, kind, data)));
  }

  async deleteObject(bucket: string, key: string, opts: DeleteObjectOptions = {}): Promise<DeleteObjectResult> {
    await this.#first.getBucketInfo(bucket);
    const at = await this.#locate(bucket, key);
    if (opts.versionId === undefined && opts.versioning === undefined && at.length > 1) {
      const results = await Promise.all(at.map((a) => this.pools[a.pool]!.deleteObject(bucket, key, opts)));
      return results[0]!;
    }
    if (opts.versionId !== undefined) {
      // The version is in exactly one of the pools holding the key; deleting a missing version succeeds (S3 semantics).
      for (const a of at) {
        const p = this.pools[a.pool]!;
        if ((await p.recordOf(bucket, key))?.versions.some((v) => v.versionId === opts.versionId)) return p.deleteObject(bucket, key, opts);
      }
    }
    const pool = at[0] !== undefined ? this.pools[at[0].pool]! : await this.#writePool(bucket, key);
    return pool.deleteObject(bucket, key, opts);
  }

  async listObjects(bucket: string, opts: ListObjectsOptions): Promise<ListObjectsResult> {
    await this.#first.getBucketInfo(bucket);
    return listObjects(this.#allSets, bucket, opts);
  }

  async listObjectVersions(bucket: string, opts: ListVersionsOptions): Promise<ListVersionsResult> {
    await this.#first.getBucketInfo(bucket);
    return listObjectVersions(this.#allSets, async (key) => {
      const at = await this.#locate(bucket, key);
      return at[0] === undefined ? null : this.pools[at[0].pool]!.recordOf(bucket, key);
    }, bucket, opts);
  }

  async createMultipartUpload(
    bucket: string, key: string, opts: CreateMultipartOptions,
  ): Promise<string> {
    return (await this.#writePool(bucket, key)).createMultipartUpload(bucket, key, opts);
  }

  putObjectPart(
    bucket: string, key: string, uploadId: string, partNumber: number, body: Readable, opts: Omit<PutObjectOptions, 'metadata'>,
  ): Promise<PartInfo> {
    // The body can be consumed once: find the pool first, then stream into it.
    return this.#withUpload(async (p) => {
      await p.getMultipartInfo(bucket, key, uploadId);
      return p;
    }).then((p) => p.putObjectPart(bucket, key, uploadId, partNumber, body, opts));
  }

  completeMultipartUpload(
    bucket: string, key: string, uploadId: string, parts: CompletePart[], opts: CompleteMultipartOptions = {},
  ): Promise<ObjectInfo> {
    return this.#withUpload((p) => p.completeMultipartUpload(bucket, key, uploadId, parts, opts));
  }

  abortMultipartUpload(bucket: string, key: string, uploadId: string): Promise<void> {
    return this.#withUpload((p) => p.abortMultipartUpload(bucket, key, uploadId));
  }

  listParts(bucket: string, key: string, uploadId: string, opts: { partNumberMarker: number; maxParts: number }): Promise<ListPartsResult> {
    return this.#withUpload((p) => p.listParts(bucket, key, uploadId, opts));
  }

  getMultipartInfo(bucket: string, key: string, uploadId: string): Promise<MultipartUploadInfo> {
    return this.#withUpload((p) => p.getMultipartInfo(bucket, key, uploadId));
  }

  async listMultipartUploads(bucket: string, opts: ListUploadsOptions): Promise<ListUploadsResult> {
    await this.#first.getBucketInfo(bucket);
    return listUploads(this.#allSets, bucket, opts);
  }

  /** Every pool's quorum state combined: the deployment is writable (readable) only when every pool is. */
  async health(): Promise<StorageHealth> {
    const all = await Promise.all(this.pools.map((p) => p.health()));
    return {
      writable: all.every((h) => h.writable),
      readable: all.every((h) => h.readable),
      writeQuorum: Math.max(...all.map((h) => h.writeQuorum)),
      readQuorum: Math.max(...all.map((h) => h.readQuorum)),
      onlineDrives: all.reduce((a, h) => a + h.onlineDrives, 0),
      offlineDrives: all.reduce((a, h) => a + h.offlineDrives, 0),
      healingDrives: all.reduce((a, h) => a + h.healingDrives, 0),
    };
  }

  async drainHeals(): Promise<void> {
    await Promise.all(this.pools.map((p) => p.drainHeals()));
  }

  async close(): Promise<void> {
    await Promise.all(this.pools.map((p) => p.close()));
  }
}
