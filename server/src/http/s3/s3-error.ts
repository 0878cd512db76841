/**
 * The S3 error vocabulary (STYLE.md convention 1): one table of code → HTTP status and default message.
 * Codes and statuses follow https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html#ErrorCodeList;
 * only http/s3 throws S3Error, and one place (reply.ts) renders it.
 */
export const S3_ERRORS = {
  AccessDenied: { status: 403, message: 'Access Denied.' },
  // CORS preflight refusals (https://docs.aws.amazon.com/AmazonS3/latest/userguide/cors-troubleshooting.html).
  AccessForbidden: {
    status: 403,
    message: 'CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request method / '
      + 'Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource\'s CORS spec.',
  },
  AuthorizationHeaderMalformed: { status: 400, message: 'The authorization header you provided is invalid.' },
  AuthorizationQueryParametersError: { status: 400, message: 'Error parsing the X-Amz-Credential parameter.' },
  BadRequest: { status: 400, message: 'Bad Request.' },
  BadDigest: { status: 400, message: 'The Content-MD5 or checksum value that you specified did not match what the server received.' },
  BucketAlreadyExists: { status: 409, message: 'The requested bucket name is not available.' },
  BucketAlreadyOwnedByYou: { status: 409, message: 'The bucket that you tried to create already exists, and you own it.' },
  BucketNotEmpty: { status: 409, message: 'The bucket that you tried to delete is not empty.' },
  EntityTooLarge: { status: 400, message: 'Your proposed upload exceeds the maximum allowed object size.' },
  EntityTooSmall: { status: 400, message: 'Your proposed upload is smaller than the minimum allowed object size.' },
  ExpiredToken: { status: 400, message: 'The provided token has expired.' },
  IncompleteBody: { status: 400, message: 'You did not provide the number of bytes specified by the Content-Length HTTP header.' },
  InternalError: { status: 500, message: 'We encountered an internal error. Please try again.' },
  InvalidAccessKeyId: { status: 403, message: 'The AWS access key ID that you provided does not exist in our records.' },
  InvalidArgument: { status: 400, message: 'Invalid argument.' },
  InvalidBucketName: { status: 400, message: 'The specified bucket is not valid.' },
  InvalidBucketState: { status: 409, message: 'The request is not valid with the current state of the bucket.' },
  InvalidDigest: { status: 400, message: 'The Content-MD5 or checksum value that you specified is not valid.' },
  InvalidEncryptionAlgorithmError: { status: 400, message: 'The encryption request that you specified is not valid. The valid value is AES256.' },
  InvalidLocationConstraint: { status: 400, message: 'The specified location constraint is not valid.' },
  InvalidPart: { status: 400, message: 'One or more of the specified parts could not be found. The part might not have been uploaded, or the specified ETag might not have matched the uploaded part\'s ETag.' },
  InvalidPartOrder: { status: 400, message: 'The list of parts was not in ascending order. The parts list must be specified in order by part number.' },
  InvalidPolicyDocument: { status: 400, message: 'The content of the form does not meet the conditions specified in the policy document.' },
  InvalidRange: { status: 416, message: 'The requested range is not satisfiable.' },
  InvalidRequest: { status: 400, message: 'Invalid Request.' },
  InvalidTag: { status: 400, message: 'The tag provided was not a valid tag.' },
  InvalidURI: { status: 400, message: 'The specified URI couldn\'t be parsed.' },
  KeyTooLongError: { status: 400, message: 'Your key is too long.' },
  IncorrectNumberOfFilesInPostRequest: { status: 400, message: 'POST requires exactly one file upload per request.' },
  MalformedPOSTRequest: { status: 400, message: 'The body of your POST request is not well-formed multipart/form-data.' },
  MalformedPolicy: { status: 400, message: 'Policies must be valid JSON and the first byte must be \'{\'' },
  MalformedTrailerError: { status: 400, message: 'The request contained trailing data that was not well-formed or did not conform to our published schema.' },
  MalformedXML: { status: 400, message: 'The XML that you provided was not well formed or did not validate against our published schema.' },
  MaxPostPreDataLengthExceededError: { status: 400, message: 'Your POST request fields preceding the upload file were too large.' },
  MaxMessageLengthExceeded: { status: 400, message: 'Your request was too large.' },
  MetadataTooLarge: { status: 400, message: 'Your metadata headers exceed the maximum allowed metadata size.' },
  MethodNotAllowed: { status: 405, message: 'The specified method is not allowed against this resource.' },
  MissingContentLength: { status: 411, message: 'You must provide the Content-Length HTTP header.' },
  MissingRequestBodyError: { status: 400, message: 'Request body is empty.' },
  MissingSecurityHeader: { status: 400, message: 'Your request is missing a required header.' },
  NoSuchBucket: { status: 404, message: 'The specified bucket does not exist.' },
  NoSuchBucketPolicy: { status: 404, message: 'The bucket policy does not exist' },
  NoSuchCORSConfiguration: { status: 404, message: 'The CORS configuration does not exist' },
  NoSuchLifecycleConfiguration: { status: 404, message: 'The lifecycle configuration does not exist.' },
  NoSuchObjectLockConfiguration: { status: 404, message: 'The specified object does not have a ObjectLock configuration' },
  NoSuchKey: { status: 404, message: 'The specified key does not exist.' },
  NoSuchTagSet: { status: 404, message: 'The TagSet does not exist.' },
  NoSuchVersion: { status: 404, message: 'The specified version does not exist.' },
  NoSuchUpload: { status: 404, message: 'The specified multipart upload does not exist. The upload ID might not be valid, or the multipart upload might have been aborted or completed.' },
  NotImplemented: { status: 501, message: 'A header or query you provided requested a function that is not implemented.' },
  ObjectLockConfigurationNotFoundError: { status: 404, message: 'Object Lock configuration does not exist for this bucket' },
  PreconditionFailed: { status: 412, message: 'At least one of the preconditions that you specified did not hold.' },
  RequestHeaderSectionTooLarge: { status: 400, message: 'Your request header section exceeds the maximum allowed size.' },
  RequestTimeout: { status: 400, message: 'Your socket connection to the server was not read from or written to within the timeout period.' },
  RequestTimeTooSkewed: { status: 403, message: 'The difference between the request time and the server\'s time is too large.' },
  // Not in AWS's list: quorum loss is a server-side availability problem, so we answer 503 with the
  // standard "ServiceUnavailable" code (SDKs retry it) and a message that tells operators what to do.
  ServiceUnavailable: { status: 503, message: 'The service is unavailable. Please retry.' },
  ServerSideEncryptionConfigurationNotFoundError: { status: 404, message: 'The server side encryption configuration was not found.' },
  SignatureDoesNotMatch: { status: 403, message: 'The request signature we calculated does not match the signature you provided. Check your key and signing method.' },
  SlowDown: { status: 503, message: 'Please reduce your request rate.' },
  XAmzContentSHA256Mismatch: { status: 400, message: 'The provided \'x-amz-content-sha256\' header does not match what was computed.' },
} as const satisfies Record<string, { status: number; message: string }>;

/** Every S3 error code this server can return. */
export type S3ErrorCode = keyof typeof S3_ERRORS;

/** True when `code` is one of the codes of S3_ERRORS. */
export function isS3ErrorCode(code: string): code is S3ErrorCode {
  return Object.prototype.hasOwnProperty.call(S3_ERRORS, code);
}

/** An error that is sent to the client as-is: an S3 code, its HTTP status, a message and a resource. */
export class S3Error extends Error {
  readonly code: S3ErrorCode;
  readonly status: number;
  readonly resource: string | undefined;
  /** Extra elements appended to the XML body (e.g. `Key`, `BucketName`, `ArgumentName`). */
  readonly extra: Readonly<Record<string, string>>;
  /** Response headers the error answer carries (e.g. x-amz-delete-marker on a delete marker's 404/405). */
  readonly headers: Readonly<Record<string, string>>;
  constructor(
    code: S3ErrorCode,
    opts: { message?: string; resource?: string; cause?: unknown; extra?: Record<string, string>; headers?: Record<string, string> } = {},
  ) {
    super(opts.message ?? S3_ERRORS[code].message, { cause: opts.cause });
    this.name = 'S3Error';
    this.code = code;
    this.status = S3_ERRORS[code].status;
    this.resource = opts.resource;
    this.extra = opts.extra ?? {};
    this.headers = opts.headers ?? {};
  }
}
