import { ServerError } from '../../common/index.js';

/**
 * S3 error codes this layer can produce; the HTTP edge maps each to its status and XML body by table.
 * https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html#ErrorCodeList
 */
export type SigV4ErrorCode =
  | 'AccessDenied'
  | 'AuthorizationHeaderMalformed'
  | 'AuthorizationQueryParametersError'
  | 'BadDigest'
  | 'IncompleteBody'
  | 'InvalidAccessKeyId'
  | 'InvalidArgument'
  | 'InvalidDigest'
  | 'InvalidRequest'
  | 'MalformedTrailerError'
  | 'MissingContentLength'
  | 'RequestTimeTooSkewed'
  | 'SignatureDoesNotMatch'
  | 'XAmzContentSHA256Mismatch';

/**
 * A request failed authentication or its body failed an integrity check.
 * `code` is always `ERR_SIGV4`; `s3Code` is the exact S3 error code; `message` is safe to send to the client.
 * `details` holds extra fields S3 returns with some errors (e.g. CanonicalRequest and StringToSign with
 * SignatureDoesNotMatch), never secrets.
 */
export class SigV4Error extends ServerError {
  readonly s3Code: SigV4ErrorCode;
  readonly details: Readonly<Record<string, string>>;
  constructor(s3Code: SigV4ErrorCode, message: string, options?: { cause?: unknown; details?: Record<string, string> }) {
    super('ERR_SIGV4', message, options);
    this.s3Code = s3Code;
    this.details = Object.freeze({ ...options?.details });
  }
}

/** True when `err` is a SigV4Error. */
export function isSigV4Error(err: unknown): err is SigV4Error {
  return err instanceof SigV4Error;
}
