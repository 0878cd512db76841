/** Public names of http/s3 (STYLE.md convention 15: explicit list, no `export *`). */
export { s3Plugin } from './plugin.js';
export { SERVER_NAME } from './server-name.js';
export { s3FrameworkErrors } from './framework-errors.js';
export type { S3PluginOptions } from './plugin.js';
export { installS3ClientErrorHandler, s3ClientErrorHandler } from './client-error.js';
export { S3Error, S3_ERRORS, isS3ErrorCode } from './s3-error.js';
export type { S3ErrorCode } from './s3-error.js';
export { toS3Error } from './error-mapping.js';
export { resolveOperation } from './router.js';
export { plainObjectSize } from './sse/object-crypto.js';
export { encryptingObjectView } from './sse/object-view.js';
export type { S3Operation, S3OperationName, RouteInput } from './router.js';
