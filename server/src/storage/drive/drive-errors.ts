import { ExpectedError, ServerError } from '../../common/index.js';

/**
 * Typed errors of a Drive. The engine counts them per drive when it reduces results to a quorum
 * decision (erasure/quorum.ts): "not found" answers vote, "offline"/"faulty" answers do not.
 */

/** The drive's root directory is missing or the drive is unreachable (offline). */
export class DiskNotFoundError extends ExpectedError {
  constructor(drive: string, options?: { cause?: unknown }) {
    super('ERR_DISK_NOT_FOUND', `drive not found: ${drive}`, options);
  }
}

/** The drive's root exists but carries no format file (fresh or wiped drive). */
export class UnformattedDiskError extends ServerError {
  constructor(drive: string) { super('ERR_DISK_UNFORMATTED', `drive is not formatted: ${drive}`); }
}

/** An I/O error other than "not found" (EIO, EACCES, ENOTDIR on the root, corrupt format…). */
export class FaultyDiskError extends ServerError {
  constructor(drive: string, message: string, options?: { cause?: unknown }) {
    super('ERR_DISK_FAULTY', `drive ${drive}: ${message}`, options);
  }
}

/** The drive has no space left (ENOSPC). */
export class DiskFullError extends ServerError {
  constructor(drive: string) { super('ERR_DISK_FULL', `drive is full: ${drive}`); }
}

/** A file or object path does not exist on this drive (every drive answers this for every PUT of a new key). */
export class FileNotFoundError extends ExpectedError {
  constructor(drive: string, path: string) { super('ERR_FILE_NOT_FOUND', `file not found on ${drive}: ${path}`); }
}

/** A file exists but is shorter than its metadata says (torn write, truncation). */
export class FileCorruptError extends ServerError {
  constructor(drive: string, path: string) { super('ERR_FILE_CORRUPT', `file is corrupt on ${drive}: ${path}`); }
}

/** A volume (bucket directory) does not exist on this drive. */
export class VolumeNotFoundError extends ServerError {
  constructor(drive: string, volume: string) { super('ERR_VOLUME_NOT_FOUND', `volume not found on ${drive}: ${volume}`); }
}

/** A volume (bucket directory) already exists on this drive. */
export class VolumeExistsError extends ServerError {
  constructor(drive: string, volume: string) { super('ERR_VOLUME_EXISTS', `volume exists on ${drive}: ${volume}`); }
}

/** A name or path handed to a drive would escape its root or is not representable. */
export class InvalidDrivePathError extends ServerError {
  constructor(message: string) { super('ERR_INVALID_DRIVE_PATH', message); }
}

/** True when the error means the drive itself is unusable (it must not vote in a quorum). */
export function isDriveOfflineError(err: unknown): boolean {
  return err instanceof DiskNotFoundError || err instanceof UnformattedDiskError || err instanceof FaultyDiskError;
}
