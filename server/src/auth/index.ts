/**
 * Public names of the auth layer (STYLE.md convention 15: explicit list, no `export *`).
 * verifyRequest authenticates a request (AWS SigV4, header or presigned; anonymous requests resolve to
 * `{ anonymous: true }`), decodePayload turns its body into verified object bytes, SigV4Error carries the
 * S3 error code of any failure.
 */
export type { LookupSecret } from './credentials.js';
export { verifyRequest } from './sigv4/verify-request.js';
export type { VerifyOptions } from './sigv4/verify-common.js';
export { decodePayload } from './sigv4/decode-payload.js';
export { verifyPostPolicySignature } from './sigv4/verify-post-policy.js';
export type { PostSignatureFields } from './sigv4/verify-post-policy.js';
export { SigV4Error, isSigV4Error } from './sigv4/sigv4-errors.js';
export type { SigV4ErrorCode } from './sigv4/sigv4-errors.js';
export type {
  AnonymousRequest,
  AuthenticatedRequest,
  DecodedPayload,
  PayloadChecksum,
  PayloadMode,
  SigV4Headers,
  SigV4Request,
  VerifiedRequest,
} from './sigv4/types.js';
