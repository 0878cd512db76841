/**
 * Wire constants of AWS Signature Version 4 for S3.
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-authenticating-requests.html
 */

/** The only signing algorithm accepted (SigV4a and SigV2 are not supported). */
export const ALGORITHM = 'AWS4-HMAC-SHA256';
/** Last element of a credential scope. */
export const SCOPE_TERMINATOR = 'aws4_request';
/** Service name that must appear in the credential scope. */
export const SERVICE = 's3';

/** x-amz-content-sha256 when the body is not signed (sig-v4-header-based-auth). */
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
/** x-amz-content-sha256 of an aws-chunked body with signed chunks (sigv4-streaming). */
export const STREAMING_SIGNED = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD';
/** x-amz-content-sha256 of signed chunks followed by a signed trailer (sigv4-streaming-trailers). */
export const STREAMING_SIGNED_TRAILER = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER';
/** x-amz-content-sha256 of unsigned chunks followed by a trailer (sigv4-streaming-trailers). */
export const STREAMING_UNSIGNED_TRAILER = 'STREAMING-UNSIGNED-PAYLOAD-TRAILER';

/** First line of the string to sign of each aws-chunked data chunk. */
export const CHUNK_STS_ALGORITHM = 'AWS4-HMAC-SHA256-PAYLOAD';
/** First line of the string to sign of the trailer chunk. */
export const TRAILER_STS_ALGORITHM = 'AWS4-HMAC-SHA256-TRAILER';

/** Hex SHA-256 of the empty string; the fixed 5th line of a chunk string to sign. */
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** Default tolerated difference between the request time and the server clock (S3: 15 minutes). */
export const DEFAULT_MAX_SKEW_MS = 15 * 60 * 1000;
/** Longest validity of a presigned URL: 7 days (sigv4-query-string-auth). */
export const MAX_PRESIGN_EXPIRES_SECONDS = 604800;

/** Query parameters of presigned (query-string) authentication. */
export const Q = {
  algorithm: 'X-Amz-Algorithm',
  credential: 'X-Amz-Credential',
  date: 'X-Amz-Date',
  expires: 'X-Amz-Expires',
  signedHeaders: 'X-Amz-SignedHeaders',
  signature: 'X-Amz-Signature',
  securityToken: 'X-Amz-Security-Token',
  contentSha256: 'X-Amz-Content-Sha256',
} as const;

/** Lower-case request header names used by verification and payload decoding. */
export const H = {
  authorization: 'authorization',
  date: 'date',
  amzDate: 'x-amz-date',
  contentSha256: 'x-amz-content-sha256',
  securityToken: 'x-amz-security-token',
  contentLength: 'content-length',
  decodedContentLength: 'x-amz-decoded-content-length',
  trailer: 'x-amz-trailer',
  sdkChecksumAlgorithm: 'x-amz-sdk-checksum-algorithm',
} as const;
