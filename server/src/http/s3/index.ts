/** Public names of http/s3 (STYLE.md convention 15: explicit list, no `export *`). */
export { S3Error, S3_ERRORS, isS3ErrorCode } from './s3-error.js';
export type { S3ErrorCode } from './s3-error.js';
export { resolveOperation } from './router.js';
export type { S3Operation, S3OperationName, RouteInput } from './router.js';
