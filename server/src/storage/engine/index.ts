/** Public names of the engine layer: the ObjectLayer contract, its implementation, and engine errors. */
export type {
  BucketConfigKind, BucketInfo, ByteRange, ChecksumAlgorithm, CompletePart, DeleteObjectOptions, DeleteObjectResult, ListObjectsOptions, ListObjectsResult, ListPartsResult,
  ListUploadsOptions, ListUploadsResult, MultipartUploadInfo, ObjectInfo, ObjectLayer, ObjectMetadataInput, ObjectTag, OpenObject,
  PartInfo, PutObjectOptions, StorageHealth, SystemMetadataName, VersioningState, VersionSelector, ListVersionsOptions, ListVersionsResult, ObjectVersionInfo,
  CompleteMultipartOptions, CreateMultipartOptions, MultipartChecksumType, ObjectPartInfo,
  ObjectLockCheck, ObjectLockState, ObjectRetention, RetentionMode,
} from './object-layer.js';
export { ObjectLockedError } from './retention.js';
export {
  BadDigestError, BucketExistsError, BucketNotEmptyError, BucketNotFoundError, EntityTooSmallError, FormatMismatchError,
  IncompleteBodyError, InsufficientReadQuorumError, InsufficientWriteQuorumError, InvalidBucketNameError, StorageFullError,
  DeleteMarkerReadError, InvalidObjectNameError, InvalidPartError, InvalidPartOrderError, InvalidStorageConfigError, ObjectNotFoundError,
  UploadNotFoundError, VersionNotFoundError,
} from './storage-errors.js';
export type { DeleteMarkerInfo } from './storage-errors.js';
export { openPools, openStorage } from './open-storage.js';
export { BucketRecordCache } from './bucket-record-cache.js';
export type { OpenPoolsOptions, OpenStorageOptions, PoolOptions, Storage } from './open-storage.js';
export type { HealStatus, HealingHooks } from './heal-status.js';
export type { DriveSlotView, DriveViewHooks, PoolLayoutView } from './drive-view.js';
export type { DriveState } from './set-drive.js';
export type { HealQueueStatus } from './heal-queue.js';
export type { DriveHealState, DriveHealStatus } from './drive-heal-tracker.js';
export type { ScanCycleOptions, ScanCycleResult, ScannerOptions, ScannerStatus } from './scanner.js';
export type { StorageLogger } from './erasure-set.js';
export { LocalLocker } from './locker.js';
export type { NamespaceLocker, Unlock } from './locker.js';
export { MAX_KEY_BYTES, checkObjectName, compareUtf8 } from './object-name.js';
export { MIN_PART_SIZE } from './multipart.js';
export { LifecycleService } from './lifecycle/service.js';
export type { LifecycleServiceOptions } from './lifecycle/service.js';
export { runLifecycle } from './lifecycle/run.js';
export type { LifecycleRunOptions, LifecycleRunReport } from './lifecycle/run.js';
export { dueTime, filterMatches, parseLifecycleConfig } from './lifecycle/rules.js';
export type { LifecycleConfig, LifecycleFilter, LifecycleRule } from './lifecycle/rules.js';
