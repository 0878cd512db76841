/** Public names of the drive layer: the Drive port, the local implementation, drive errors. */
export type { ChildState, DirScan, DiskInfo, Drive, ReadMetaOptions, RenameDataOptions, ShardReader, ShardWriter, VolumeEntry } from './drive.js';
export {
  DiskFullError, DiskNotFoundError, FaultyDiskError, FileCorruptError, FileNotFoundError, InvalidDrivePathError, UnformattedDiskError,
  VolumeExistsError, VolumeNotFoundError, isDriveOfflineError,
} from './drive-errors.js';
export { LocalDrive } from './local-drive.js';
export { setKeyIndexForNewDrives } from './indexed-objects.js';
export { InlineCommits } from './inline-commits.js';
export { stopSyncShells } from './sync-fs.js';
export { forgetCachedMeta } from './meta-cache.js';
export { BufferPool, readBuffers } from './buffer-pool.js';
export { META_FILE, SYS_DIR, encodeKey, encodeSegment, isDataDirName } from './object-path.js';
