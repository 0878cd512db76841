/**
 * Public API of the storage layer (STYLE.md convention 15): the ObjectLayer contract consumed by
 * http/*, iam and health; `openStorage` for the composition root; the Drive port for cluster/
 * (a remote drive implements it); every typed storage error.
 */
export type {
  BucketConfigKind, BucketInfo, ByteRange, ChecksumAlgorithm, CompletePart, DeleteMarkerInfo, DeleteObjectOptions, DeleteObjectResult,
  ListObjectsOptions, ListObjectsResult, ListPartsResult,
  ListUploadsOptions, ListUploadsResult, MultipartUploadInfo, NamespaceLocker, ObjectInfo, ObjectLayer, Unlock,
  ObjectMetadataInput, ObjectTag, OpenObject, OpenPoolsOptions, OpenStorageOptions, PartInfo, PoolOptions, PutObjectOptions, Storage, StorageHealth,
  StorageLogger, SystemMetadataName, VersioningState, VersionSelector, ListVersionsOptions, ListVersionsResult, ObjectVersionInfo,
  CompleteMultipartOptions, CreateMultipartOptions, MultipartChecksumType, ObjectPartInfo,
  DriveHealState, DriveHealStatus, DriveSlotView, DriveState, DriveViewHooks, PoolLayoutView, HealingHooks, HealQueueStatus, HealStatus, ScanCycleOptions, ScanCycleResult, ScannerOptions, ScannerStatus,
  ObjectLockCheck, ObjectLockState, ObjectRetention, RetentionMode,
} from './engine/index.js';
export { ObjectLockedError } from './engine/index.js';
export {
  BadDigestError, BucketExistsError, BucketNotEmptyError, BucketRecordCache, BucketNotFoundError, DeleteMarkerReadError, EntityTooSmallError,
  FormatMismatchError, IncompleteBodyError, InsufficientReadQuorumError, InsufficientWriteQuorumError, InvalidBucketNameError, StorageFullError,
  InvalidObjectNameError, InvalidPartError, InvalidPartOrderError, InvalidStorageConfigError, LocalLocker,
  MAX_KEY_BYTES, MIN_PART_SIZE, ObjectNotFoundError, UploadNotFoundError, VersionNotFoundError, openPools, openStorage,
} from './engine/index.js';
export type { ChildState, DirScan, DiskInfo, Drive, ReadMetaOptions, RenameDataOptions, ShardReader, ShardWriter, VolumeEntry } from './drive/index.js';
export {
  DiskFullError, DiskNotFoundError, FaultyDiskError, FileCorruptError, FileNotFoundError, InvalidDrivePathError,
  LocalDrive, UnformattedDiskError, VolumeExistsError, VolumeNotFoundError, forgetCachedMeta, readBuffers, setKeyIndexForNewDrives,
  stopSyncShells,
} from './drive/index.js';
export { BitrotMismatchError } from './bitrot/index.js';
export { CorruptRecordError } from './format/index.js';
export { UnsupportedErasureError, defaultParity } from './erasure/index.js';
export { LifecycleService, dueTime, parseLifecycleConfig, runLifecycle } from './engine/index.js';
export type {
  LifecycleConfig, LifecycleFilter, LifecycleRule, LifecycleRunOptions, LifecycleRunReport, LifecycleServiceOptions,
} from './engine/index.js';
