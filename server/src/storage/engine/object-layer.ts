import type { Readable } from 'node:stream';

/**
 * The storage engine's public contract, consumed by http/s3, http/admin, iam and health.
 * Nothing here knows HTTP or S3 wire formats: keys are plain strings (already URL-decoded),
 * bodies are plain byte streams (aws-chunked framing and signatures are removed upstream).
 * Errors are the typed classes of `storage-errors.ts`.
 */

/** Standard headers S3 stores with an object and returns on GET/HEAD (lower-case names). */
export type SystemMetadataName =
  | 'content-type'
  | 'content-encoding'
  | 'content-disposition'
  | 'content-language'
  | 'cache-control'
  | 'expires';

/** Checksum algorithms of the S3 additional-checksums feature (x-amz-checksum-*). */
export type ChecksumAlgorithm = 'CRC32' | 'CRC32C' | 'CRC64NVME' | 'SHA1' | 'SHA256';

export interface ObjectMetadataInput {
  /** content-type and friends; absent names are not stored. */
  system: Partial<Record<SystemMetadataName, string>>;
  /** x-amz-meta-* with the prefix removed and the name lower-cased. */
  user: Record<string, string>;
}

/** One S3 tag (object or bucket tagging): a key and a value, both plain strings. */
export interface ObjectTag {
  key: string;
  value: string;
}

export interface ObjectInfo {
  bucket: string;
  key: string;
  size: number;
  /** MD5 hex of the body, or `<md5-of-md5s>-<N>` for multipart; no quotes. */
  etag: string;
  lastModified: Date;
  system: Partial<Record<SystemMetadataName, string>>;
  user: Record<string, string>;
  /** Base64 checksum values stored with the object (full-object or `<composite>-N`). */
  checksums: Partial<Record<ChecksumAlgorithm, string>>;
  /** Number of parts for a multipart object, undefined for a single PUT. */
  partCount?: number;
  /** The object's tags in the order they were set; absent when untagged. */
  tags?: ObjectTag[];
  /** S3 version id: a UUID, or "null" for the null version (every object of an unversioned bucket). */
  versionId?: string;
  /** The parts of a multipart object (stored sizes, ETags and part checksums); absent for a single PUT. */
  parts?: ObjectPartInfo[];
  /** Server-reserved metadata stored with the version (PutObjectOptions.internal); absent when none. */
  internal?: Record<string, string>;
  /** Object Lock retention and legal hold of this version; absent when it has neither. */
  lock?: ObjectLockState;
}

/** Object Lock retention modes (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html#object-lock-retention-modes). */
export type RetentionMode = 'GOVERNANCE' | 'COMPLIANCE';

/** A retention period of one object version. */
export interface ObjectRetention {
  mode: RetentionMode;
  retainUntil: Date;
}

/** The Object Lock state of one object version: a retention period and/or a legal hold. */
export interface ObjectLockState {
  retention?: ObjectRetention;
  legalHold?: boolean;
}

/**
 * Asks the engine to refuse removing a locked version (ObjectLockedError): one under a legal hold, or retained
 * until after `now` (GOVERNANCE retention is ignored with `bypassGovernance`).
 */
export interface ObjectLockCheck {
  now: Date;
  bypassGovernance: boolean;
}

/** One part of a stored multipart object. */
export interface ObjectPartInfo {
  partNumber: number;
  /** Bytes of the part as stored. */
  size: number;
  etag: string;
  /** The part's additional checksums, when the upload declared an algorithm. */
  checksums: Partial<Record<ChecksumAlgorithm, string>>;
}

/** Checksum type of a multipart upload (x-amz-checksum-type). */
export type MultipartChecksumType = 'COMPOSITE' | 'FULL_OBJECT';

export interface BucketInfo {
  name: string;
  created: Date;
}

/** Inclusive byte range, already resolved against the object size (start <= end < size). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface PutObjectOptions {
  /** Exact body length when known (Content-Length / x-amz-decoded-content-length); -1 when unknown. */
  size: number;
  metadata: ObjectMetadataInput;
  /** Expected MD5 (from Content-MD5); a mismatch aborts the write with BadDigestError, nothing is committed. */
  md5?: Buffer;
  /**
   * Called once after the body stream ended and before the commit; returns checksums computed while
   * streaming (the caller's verifying stream). Its result is stored in ObjectInfo.checksums.
   */
  checksums?: () => Partial<Record<ChecksumAlgorithm, string>>;
  /** Tags stored with the new object (validated upstream); none when absent or empty. */
  tags?: ObjectTag[];
  /** The bucket's versioning state (absent: never versioned, the write replaces the object). */
  versioning?: VersioningState;
  /**
   * Server-reserved metadata stored with the version and returned in ObjectInfo.internal, opaque to the engine
   * (the API layer keeps its server-side encryption seals here). Read once the body has ended, like `checksums`,
   * so a value computed while streaming can be added to it.
   */
  internal?: Record<string, string>;
  /** Object Lock retention / legal hold of the new version (validated upstream). */
  lock?: ObjectLockState;
}

/** Options of {@link ObjectLayer.createMultipartUpload}. */
export interface CreateMultipartOptions {
  metadata: ObjectMetadataInput;
  checksumAlgorithm?: ChecksumAlgorithm;
  /** Declared checksum type; absent means COMPOSITE when an algorithm is declared. */
  checksumType?: MultipartChecksumType;
  tags?: ObjectTag[];
  /** Server-reserved metadata for the completed object (PutObjectOptions.internal). */
  internal?: Record<string, string>;
  /** Object Lock retention / legal hold of the completed object (validated upstream). */
  lock?: ObjectLockState;
}

/** Options of {@link ObjectLayer.completeMultipartUpload}. */
export interface CompleteMultipartOptions {
  versioning?: VersioningState;
  /** The object's checksums (COMPOSITE `<value>-N` or FULL_OBJECT), computed by the caller from the parts. */
  checksums?: Partial<Record<ChecksumAlgorithm, string>>;
  /** Lock state for the object when the upload was created without one (the bucket's default retention). */
  defaultLock?: ObjectLockState;
}

/** An object opened for reading: metadata read at quorum once, then any range streamed. */
export interface OpenObject {
  info: ObjectInfo;
  /** Streams the whole object or `range`; reconstructs missing/corrupt shards and queues a heal. */
  read(range?: ByteRange, opts?: ReadOptions): Readable;
  /**
   * The bytes of the object (or `range`) when they are already in memory and intact (a healthy inline object), so
   * that a small GET answers with one buffer; undefined otherwise, and then `read` streams them.
   */
  bytes?(range?: ByteRange): Buffer | undefined;
}

/** The writable a read is piped into, as far as the read needs to see it (a ServerResponse is one). */
export interface ReadSink {
  /** Bytes written to it and not yet handed on (for a response: to the kernel). */
  readonly writableLength: number;
  once(event: 'finish', listener: () => void): unknown;
}

/** Options of {@link OpenObject.read}. */
export interface ReadOptions {
  /**
   * The writable the stream is piped into with nothing in between: shard reads then reuse buffers, handed back as
   * soon as `sink` holds none of their bytes (recycling-stream.ts). Any other consumer leaves this unset.
   */
  sink?: ReadSink;
}

export interface ListObjectsOptions {
  prefix: string;
  delimiter: string;
  /** Exclusive: only keys (or common prefixes) strictly greater than this are returned. */
  startAfter: string;
  /** 0..1000 */
  maxKeys: number;
}

export interface ListObjectsResult {
  objects: ObjectInfo[];
  commonPrefixes: string[];
  isTruncated: boolean;
  /** The last key or common prefix returned when truncated (the next request's startAfter). */
  nextMarker?: string;
}

export interface PartInfo {
  partNumber: number;
  etag: string;
  size: number;
  lastModified: Date;
  checksums: Partial<Record<ChecksumAlgorithm, string>>;
}

export interface MultipartUploadInfo {
  key: string;
  uploadId: string;
  initiated: Date;
  metadata: ObjectMetadataInput;
  /** Checksum algorithm declared at CreateMultipartUpload (x-amz-checksum-algorithm), if any. */
  checksumAlgorithm?: ChecksumAlgorithm;
  /** Checksum type declared at CreateMultipartUpload (x-amz-checksum-type), if any. */
  checksumType?: MultipartChecksumType;
  /** Server-reserved metadata given at CreateMultipartUpload, if any. */
  internal?: Record<string, string>;
}

export interface ListPartsResult {
  upload: MultipartUploadInfo;
  parts: PartInfo[];
  isTruncated: boolean;
  nextPartNumberMarker: number;
}

export interface ListUploadsOptions {
  prefix: string;
  delimiter: string;
  keyMarker: string;
  uploadIdMarker: string;
  maxUploads: number;
}

export interface ListUploadsResult {
  uploads: MultipartUploadInfo[];
  commonPrefixes: string[];
  isTruncated: boolean;
  nextKeyMarker?: string;
  nextUploadIdMarker?: string;
}

export interface CompletePart {
  partNumber: number;
  /** As sent by the client, quotes removed. */
  etag: string;
}

/** Quorum state of the storage, for /health/ready and the /minio/health/cluster* probes. */
export interface StorageHealth {
  /** Every erasure set has write quorum. */
  writable: boolean;
  /** Every erasure set has read quorum. */
  readable: boolean;
  /** Largest write/read quorum over all sets (for X-Minio-Write-Quorum / X-Minio-Read-Quorum). */
  writeQuorum: number;
  readQuorum: number;
  onlineDrives: number;
  offlineDrives: number;
  healingDrives: number;
}

/**
 * Kinds of bucket configuration documents the bucket record can hold (one document per kind). New kinds
 * are added here; records written before a kind existed simply lack it.
 */
export type BucketConfigKind = 'cors' | 'policy' | 'versioning' | 'encryption' | 'object-lock' | 'lifecycle';

/**
 * How writes treat existing versions (https://docs.aws.amazon.com/AmazonS3/latest/userguide/Versioning.html):
 * 'enabled' adds a version with a new id, 'suspended' replaces the "null" version; absent means the bucket was
 * never versioned (a write replaces the object).
 */
export type VersioningState = 'enabled' | 'suspended';

/** Options of {@link ObjectLayer.listObjectVersions}. */
export interface ListVersionsOptions {
  prefix: string;
  delimiter: string;
  /** Exclusive: keys after this one (or, with versionIdMarker, versions of it after that version). */
  keyMarker: string;
  /** "" for none; only meaningful with keyMarker. */
  versionIdMarker: string;
  /** 0..1000, counting versions, delete markers and common prefixes. */
  maxKeys: number;
}

/** One entry of a version listing: an object version (with `info`) or a delete marker. */
export interface ObjectVersionInfo {
  key: string;
  versionId: string;
  isLatest: boolean;
  lastModified: Date;
  deleteMarker: boolean;
  /** Size, ETag, checksums… of an object version; absent for a delete marker. */
  info?: ObjectInfo;
}

export interface ListVersionsResult {
  /** Versions and delete markers: keys ascending, each key's versions newest first. */
  versions: ObjectVersionInfo[];
  commonPrefixes: string[];
  isTruncated: boolean;
  /** Set when truncated: where the next page starts. */
  nextKeyMarker?: string;
  /** Set when truncated after a version (not after a common prefix). */
  nextVersionIdMarker?: string;
}

/** Options of {@link ObjectLayer.deleteObject}. */
export interface DeleteObjectOptions {
  /** Removes exactly this version (permanently). */
  versionId?: string;
  /** The bucket's versioning state: without versionId a versioned bucket gets a delete marker. */
  versioning?: VersioningState;
  /** With versionId: refuse (ObjectLockedError) when that version is locked, checked under the object's lock. */
  objectLock?: ObjectLockCheck;
  /**
   * Without versionId: act only while the key's newest version still has this modification time (ms), checked under
   * the object's lock; otherwise nothing changes and the result says `skipped`. A background expiry that listed the
   * object must not delete (or hide behind a delete marker) a newer object written since.
   */
  ifNewestModifiedAt?: number;
}

/** What a delete did (x-amz-version-id / x-amz-delete-marker of the S3 answer). */
export interface DeleteObjectResult {
  /** The version removed or the delete marker created; absent for an unversioned delete. */
  versionId?: string;
  /** A delete marker was created, or the version removed was one. */
  deleteMarker: boolean;
  /** `ifNewestModifiedAt` did not match: nothing was deleted. */
  skipped?: boolean;
}

/** Which version a read addresses. */
export interface VersionSelector {
  /** The version id (a UUID or "null"); absent: the newest version. */
  versionId?: string;
}

export interface ObjectLayer {
  makeBucket(bucket: string): Promise<void>;
  getBucketInfo(bucket: string): Promise<BucketInfo>;
  listBuckets(): Promise<BucketInfo[]>;
  /** Fails with BucketNotEmptyError when objects or in-progress uploads remain. */
  deleteBucket(bucket: string): Promise<void>;

  putObject(bucket: string, key: string, body: Readable, opts: PutObjectOptions): Promise<ObjectInfo>;
  /**
   * The newest version or `opts.versionId`. ObjectNotFoundError (with `deleteMarker` when the newest version is
   * a delete marker), VersionNotFoundError, DeleteMarkerReadError when the id names a delete marker.
   */
  getObjectInfo(bucket: string, key: string, opts?: VersionSelector): Promise<ObjectInfo>;
  /** Opens the newest version or `opts.versionId` (errors as getObjectInfo). */
  openObject(bucket: string, key: string, opts?: VersionSelector): Promise<OpenObject>;
  /**
   * Replaces the tag set of an existing object (an empty list removes it). Only the metadata record is
   * rewritten, at write quorum under the object's lock; data and Last-Modified are unchanged.
   */
  putObjectTags(bucket: string, key: string, tags: ObjectTag[]): Promise<ObjectInfo>;
  /**
   * Replaces the Object Lock state of the newest version or `opts.versionId` with `change(current)`, called
   * under the object's lock (it may throw to refuse). Only the metadata record is rewritten, at write quorum.
   */
  updateObjectLock(
    bucket: string, key: string, opts: VersionSelector, change: (current: ObjectLockState) => ObjectLockState,
  ): Promise<ObjectInfo>;
  /** The bucket's tag set, or undefined when none was set. */
  getBucketTags(bucket: string): Promise<ObjectTag[] | undefined>;
  /** Replaces the bucket's tag set (undefined removes it) in the bucket record on every drive. */
  putBucketTags(bucket: string, tags: ObjectTag[] | undefined): Promise<void>;
  /** The bucket's configuration document of `kind` as last stored, or undefined when none. */
  getBucketConfig(bucket: string, kind: BucketConfigKind): Promise<string | undefined>;
  /**
   * Replaces the bucket's configuration document of `kind` (undefined removes it) in the bucket record on
   * every drive; the tags and the other kinds are kept. The document is opaque to the engine.
   */
  putBucketConfig(bucket: string, kind: BucketConfigKind, data: string | undefined): Promise<void>;
  /**
   * Idempotent: deleting a missing key or version succeeds (S3 semantics). With `versionId` that version is
   * removed permanently; without it a versioned bucket gets a delete marker.
   */
  deleteObject(bucket: string, key: string, opts?: DeleteObjectOptions): Promise<DeleteObjectResult>;
  listObjects(bucket: string, opts: ListObjectsOptions): Promise<ListObjectsResult>;
  /** ListObjectVersions: every version and delete marker (see ListVersionsOptions). */
  listObjectVersions(bucket: string, opts: ListVersionsOptions): Promise<ListVersionsResult>;

  createMultipartUpload(bucket: string, key: string, opts: CreateMultipartOptions): Promise<string>;
  putObjectPart(
    bucket: string,
    key: string,
    uploadId: string,
    partNumber: number,
    body: Readable,
    opts: Omit<PutObjectOptions, 'metadata'>,
  ): Promise<PartInfo>;
  completeMultipartUpload(
    bucket: string, key: string, uploadId: string, parts: CompletePart[], opts?: CompleteMultipartOptions,
  ): Promise<ObjectInfo>;
  abortMultipartUpload(bucket: string, key: string, uploadId: string): Promise<void>;
  listParts(bucket: string, key: string, uploadId: string, opts: { partNumberMarker: number; maxParts: number }): Promise<ListPartsResult>;
  /**
   * The upload's own record (UploadNotFoundError when there is none): what UploadPart, UploadPartCopy and completion
   * look up first. Reads no part record, unlike listParts, whose cost grows with the parts uploaded so far.
   */
  getMultipartInfo(bucket: string, key: string, uploadId: string): Promise<MultipartUploadInfo>;
  listMultipartUploads(bucket: string, opts: ListUploadsOptions): Promise<ListUploadsResult>;

  health(): Promise<StorageHealth>;
  /** Stops background work (heal queue) and releases drives. */
  close(): Promise<void>;
}
