import { BodyTooLargeError } from '../shared/index.js';
import { SigV4Error, type SigV4ErrorCode } from '../../auth/index.js';
import {
  BadDigestError, BucketExistsError, BucketNotEmptyError, BucketNotFoundError, EntityTooSmallError, IncompleteBodyError,
  InsufficientReadQuorumError, InsufficientWriteQuorumError, InvalidBucketNameError, InvalidObjectNameError, InvalidPartError, InvalidPartOrderError,
  StorageFullError,
  DeleteMarkerReadError, ObjectLockedError, ObjectNotFoundError, UploadNotFoundError, VersionNotFoundError, type DeleteMarkerInfo,
} from '../../storage/index.js';
import { MalformedPolicyError } from '../../iam/index.js';
import { S3Error, type S3ErrorCode } from './s3-error.js';

/**
 * Lower-layer errors → S3 errors, by table (STYLE.md convention 2). Anything not listed here becomes
 * InternalError; its details go to the log only.
 */
type ErrorClass = abstract new (...args: never[]) => Error;

interface Mapping {
  code: S3ErrorCode;
  /** Message override; otherwise the S3_ERRORS default is sent (engine messages may name internals). */
  message?: string;
  /** Send the lower layer's own message (only for errors whose messages are written for clients). */
  passMessage?: boolean;
}

/**
 * Headers of an answer about a delete marker (https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html):
 * x-amz-delete-marker and the marker's version id, on the 404 for a key whose newest version is a marker and on
 * the 405 for a read of the marker itself.
 */
function deleteMarkerHeaders(err: unknown): Record<string, string> {
  const marker: DeleteMarkerInfo | undefined = err instanceof ObjectNotFoundError ? err.deleteMarker : undefined;
  if (marker === undefined) return {};
  return { 'x-amz-delete-marker': 'true', 'x-amz-version-id': marker.versionId, 'last-modified': marker.lastModified.toUTCString() };
}

/**
 * Quorum loss is reported as 503 ServiceUnavailable (a standard AWS code SDKs retry), with a message
 * that tells the operator what to do. MinIO uses its own XMinio* codes here; we keep to AWS's vocabulary.
 */
const ERROR_TABLE: ReadonlyArray<readonly [ErrorClass, Mapping]> = [
  [BucketNotFoundError, { code: 'NoSuchBucket' }],
  [BucketExistsError, { code: 'BucketAlreadyOwnedByYou' }],
  [BucketNotEmptyError, { code: 'BucketNotEmpty' }],
  // Subclasses of ObjectNotFoundError first: the table is searched in order.
  [VersionNotFoundError, { code: 'NoSuchVersion' }],
  [DeleteMarkerReadError, { code: 'MethodNotAllowed' }],
  [ObjectNotFoundError, { code: 'NoSuchKey' }],
  [UploadNotFoundError, { code: 'NoSuchUpload' }],
  [InvalidPartError, { code: 'InvalidPart' }],
  [InvalidPartOrderError, { code: 'InvalidPartOrder' }],
  [EntityTooSmallError, { code: 'EntityTooSmall' }],
  [BadDigestError, { code: 'BadDigest', message: 'The Content-MD5 you specified did not match what we received.' }],
  [IncompleteBodyError, { code: 'IncompleteBody' }],
  [InvalidObjectNameError, { code: 'InvalidArgument', passMessage: true }],
  [InvalidBucketNameError, { code: 'InvalidBucketName' }],
  // Before its parent class: a write that lost its quorum to full drives (engine/quorum-loss.ts). Still 503, which SDKs
  // retry with backoff (space may be freed meanwhile); MinIO answers 507 XMinioStorageFull, outside AWS's vocabulary.
  [StorageFullError, {
    code: 'ServiceUnavailable',
    message: 'Storage is full: too many drives have no space left for this write; free space (delete objects, old versions or incomplete uploads) or add a pool, then retry.',
  }],
  [InsufficientWriteQuorumError, {
    code: 'ServiceUnavailable',
    message: 'Storage does not have enough drives online for a write (write quorum lost); bring drives back online and retry.',
  }],
  [InsufficientReadQuorumError, {
    code: 'ServiceUnavailable',
    message: 'Storage does not have enough drives online to read this object (read quorum lost); bring drives back online and retry.',
  }],
  [BodyTooLargeError, { code: 'MaxMessageLengthExceeded' }],
  [MalformedPolicyError, { code: 'MalformedPolicy', passMessage: true }],
  // https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock-managing.html: a locked version is 403.
  [ObjectLockedError, { code: 'AccessDenied', message: 'Access Denied because object protected by object lock.' }],
];

// Compile-time guarantee that every code auth/sigv4 can raise has an entry in S3_ERRORS.
const SIGV4_CODES_ARE_S3_CODES: SigV4ErrorCode extends S3ErrorCode ? true : never = true;
void SIGV4_CODES_ARE_S3_CODES;

/** The S3 error to send for `err`, and whether it is an unexpected (internal) failure to be logged. */
export function toS3Error(err: unknown): { error: S3Error; internal: boolean } {
  if (err instanceof S3Error) return { error: err, internal: err.status >= 500 };
  if (err instanceof SigV4Error) {
    // SigV4Error messages are written to be client-safe (sigv4-errors.ts); extra fields such as
    // CanonicalRequest/StringToSign help users debug signing, as on AWS.
    return { error: new S3Error(err.s3Code, { message: err.message, cause: err, extra: { ...err.details } }), internal: false };
  }
  for (const [cls, mapping] of ERROR_TABLE) {
    if (err instanceof cls) {
      const message = mapping.passMessage === true ? (err as Error).message : mapping.message;
      const s3 = new S3Error(mapping.code, { cause: err, headers: deleteMarkerHeaders(err), ...(message !== undefined ? { message } : {}) });
      return { error: s3, internal: s3.status >= 500 };
    }
  }
  return { error: new S3Error('InternalError', { cause: err }), internal: true };
}
