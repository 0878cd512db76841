/** Public names of the kernel layer (STYLE.md convention 15: explicit list, no `export *`). */
export { ExpectedError, ServerError, isServerError } from './errors.js';
export { withDeadline } from './deadline.js';
export { syncDir } from './sync-dir.js';
export { JobWorker } from './job-worker.js';
export { loadAddon } from './native-addon.js';
export type { JobReply, JobWorkerOptions } from './job-worker.js';
export {
  CHECKSUM_ALGORITHMS,
  checksumAlgorithmFromHeaderName,
  checksumByteLength,
  checksumHeaderName,
  combineCompositeChecksum,
  combineFullObjectChecksum,
  computeChecksum,
  createChecksum,
  decodeChecksumValue,
  parseChecksumAlgorithm,
} from './checksum.js';
export type { ChecksumAlgorithm, ChecksumHasher, FullObjectChecksumAlgorithm } from './checksum.js';
export { VERSION } from './version.js';
export { isoTime } from './iso-time.js';
export { HmacSha256, sha256Hex } from './hmac-sha256.js';
export { defaultParity } from './erasure-defaults.js';
export { ERROR_CODES } from './codes.js';
export type { ServerErrorCode } from './codes.js';
