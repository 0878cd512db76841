import { ExpectedError, ServerError } from '../../common/index.js';

/** Typed engine errors; http/s3/error-mapping.ts maps each class to one S3 error code. */
export class BucketNotFoundError extends ServerError {
  constructor(bucket: string) { super('ERR_BUCKET_NOT_FOUND', `bucket not found: ${bucket}`); }
}
export class BucketExistsError extends ServerError {
  constructor(bucket: string) { super('ERR_BUCKET_EXISTS', `bucket exists: ${bucket}`); }
}
export class BucketNotEmptyError extends ServerError {
  constructor(bucket: string) { super('ERR_BUCKET_NOT_EMPTY', `bucket not empty: ${bucket}`); }
}
/** A version of a key that is a delete marker (S3 versioning). */
export interface DeleteMarkerInfo {
  versionId: string;
  lastModified: Date;
}

export class ObjectNotFoundError extends ExpectedError {
  /** Set when the key exists as a delete marker (its newest version): S3 then answers x-amz-delete-marker. */
  readonly deleteMarker: DeleteMarkerInfo | undefined;
  constructor(bucket: string, key: string, deleteMarker?: DeleteMarkerInfo) {
    super('ERR_OBJECT_NOT_FOUND', `object not found: ${bucket}/${key}`);
    this.deleteMarker = deleteMarker;
  }
}
/** A version id that the key does not have (S3 NoSuchVersion). */
export class VersionNotFoundError extends ObjectNotFoundError {
  readonly versionId: string;
  constructor(bucket: string, key: string, versionId: string) {
    super(bucket, key);
    this.versionId = versionId;
    this.message = `version ${versionId} of ${bucket}/${key} not found`;
  }
}
/** A read addressed a delete marker by its version id (S3 answers 405 MethodNotAllowed). */
export class DeleteMarkerReadError extends ObjectNotFoundError {
  constructor(bucket: string, key: string, marker: DeleteMarkerInfo) {
    super(bucket, key, marker);
    this.message = `version ${marker.versionId} of ${bucket}/${key} is a delete marker`;
  }
}
export class UploadNotFoundError extends ServerError {
  constructor(uploadId: string) { super('ERR_UPLOAD_NOT_FOUND', `upload not found: ${uploadId}`); }
}
export class InvalidPartError extends ServerError {
  constructor(message: string) { super('ERR_INVALID_PART', message); }
}
export class InvalidPartOrderError extends ServerError {
  constructor() { super('ERR_INVALID_PART_ORDER', 'parts must be listed in ascending part number order'); }
}
export class EntityTooSmallError extends ServerError {
  constructor(partNumber: number) { super('ERR_ENTITY_TOO_SMALL', `part ${partNumber} is smaller than 5 MiB and is not the last part`); }
}
export class BadDigestError extends ServerError {
  constructor() { super('ERR_BAD_DIGEST', 'the Content-MD5 you specified did not match what was received'); }
}
/** The body ended before the declared size, or carried more bytes than declared. */
export class IncompleteBodyError extends ServerError {
  constructor(message: string) { super('ERR_INCOMPLETE_BODY', message); }
}
export class InsufficientWriteQuorumError extends ServerError {
  constructor(message = 'storage lacks write quorum') { super('ERR_WRITE_QUORUM', message); }
}
/**
 * Write quorum lost to drives with no space left (quorum-loss.ts). A subclass: whatever handles a lost quorum handles
 * it; the S3 edge tells the operator to free space rather than to bring drives back online.
 */
export class StorageFullError extends InsufficientWriteQuorumError {}
export class InsufficientReadQuorumError extends ServerError {
  constructor(message = 'storage lacks read quorum') { super('ERR_READ_QUORUM', message); }
}
/** A key that cannot be stored (empty, longer than 1024 bytes, or containing NUL). */
export class InvalidObjectNameError extends ServerError {
  constructor(message: string) { super('ERR_INVALID_OBJECT_NAME', message); }
}
/** A bucket name the drives cannot store (the S3 layer validates S3 naming rules before this). */
export class InvalidBucketNameError extends ServerError {
  constructor(bucket: string) { super('ERR_INVALID_BUCKET_NAME', `invalid bucket name: ${JSON.stringify(bucket)}`); }
}
/**
 * A drive's format does not fit this deployment (another deployment id, a changed set layout, a
 * moved drive). The message names the drive and the difference; the server must not start.
 */
export class FormatMismatchError extends ServerError {
  constructor(message: string) { super('ERR_FORMAT_MISMATCH', message); }
}
/** openStorage options that cannot work (set sizes, parity out of range…). */
export class InvalidStorageConfigError extends ServerError {
  constructor(message: string) { super('ERR_STORAGE_CONFIG', message); }
}
