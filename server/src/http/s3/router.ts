import { S3Error } from './s3-error.js';
import { checkBucketName, checkObjectKey } from './names.js';

/**
 * The pure S3 router (STYLE.md convention 4, after Garage's `router.rs`): method + raw path + query +
 * headers → one operation of a discriminated union. No I/O; every handler switches exhaustively on `op`.
 * Path-style addressing only: `/<bucket>/<key>`. Keys are percent-decoded exactly once and never
 * normalized (`..`, `//` and `%2F` survive literally), as S3 does.
 */
export type S3Operation =
  | { op: 'ListBuckets' }
  | { op: 'CreateBucket'; bucket: string }
  | { op: 'HeadBucket'; bucket: string }
  | { op: 'DeleteBucket'; bucket: string }
  | { op: 'GetBucketLocation'; bucket: string }
  | { op: 'GetBucketTagging'; bucket: string }
  | { op: 'PutBucketTagging'; bucket: string }
  | { op: 'DeleteBucketTagging'; bucket: string }
  | { op: 'GetBucketCors'; bucket: string }
  | { op: 'PutBucketCors'; bucket: string }
  | { op: 'DeleteBucketCors'; bucket: string }
  | { op: 'PreflightCors'; bucket: string; key?: string }
  | { op: 'GetBucketPolicy'; bucket: string }
  | { op: 'PutBucketPolicy'; bucket: string }
  | { op: 'DeleteBucketPolicy'; bucket: string }
  | { op: 'GetBucketPolicyStatus'; bucket: string }
  | { op: 'GetBucketVersioning'; bucket: string }
  | { op: 'PutBucketVersioning'; bucket: string }
  | { op: 'GetObjectLockConfiguration'; bucket: string }
  | { op: 'PutObjectLockConfiguration'; bucket: string }
  | { op: 'GetBucketLifecycleConfiguration'; bucket: string }
  | { op: 'PutBucketLifecycleConfiguration'; bucket: string }
  | { op: 'DeleteBucketLifecycle'; bucket: string }
  | { op: 'ListObjectsV1'; bucket: string }
  | { op: 'ListObjectsV2'; bucket: string }
  | { op: 'ListMultipartUploads'; bucket: string }
  | { op: 'DeleteObjects'; bucket: string }
  | { op: 'ListObjectVersions'; bucket: string }
  | { op: 'GetObject'; bucket: string; key: string; versionId?: string }
  | { op: 'HeadObject'; bucket: string; key: string; versionId?: string }
  | { op: 'PutObject'; bucket: string; key: string }
  | { op: 'CopyObject'; bucket: string; key: string; source: CopySource }
  | { op: 'DeleteObject'; bucket: string; key: string; versionId?: string }
  | { op: 'GetObjectTagging'; bucket: string; key: string }
  | { op: 'PutObjectTagging'; bucket: string; key: string }
  | { op: 'DeleteObjectTagging'; bucket: string; key: string }
  | { op: 'GetObjectRetention'; bucket: string; key: string; versionId?: string }
  | { op: 'PutObjectRetention'; bucket: string; key: string; versionId?: string }
  | { op: 'GetObjectLegalHold'; bucket: string; key: string; versionId?: string }
  | { op: 'PutObjectLegalHold'; bucket: string; key: string; versionId?: string }
  | { op: 'CreateMultipartUpload'; bucket: string; key: string }
  | { op: 'UploadPart'; bucket: string; key: string; uploadId: string; partNumber: number }
  | { op: 'UploadPartCopy'; bucket: string; key: string; uploadId: string; partNumber: number; source: CopySource }
  | { op: 'CompleteMultipartUpload'; bucket: string; key: string; uploadId: string }
  | { op: 'AbortMultipartUpload'; bucket: string; key: string; uploadId: string }
  | { op: 'ListParts'; bucket: string; key: string; uploadId: string };

/** The object a copy reads: x-amz-copy-source, with the version it names (absent: the newest). */
export interface CopySource {
  bucket: string;
  key: string;
  versionId?: string;
}

/** Name of an S3 operation. */
export type S3OperationName = S3Operation['op'];

/** What the router looks at: the raw (still percent-encoded) path and the decoded query. */
export interface RouteInput {
  method: string;
  /** Path part of the request target, without `?query`, still percent-encoded. */
  rawPath: string;
  query: Readonly<Record<string, string>>;
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

// Sub-resources of the S3 API we recognise but do not implement: answer NotImplemented rather than
// silently treating e.g. `PUT ?tagging` as a PutObject that would overwrite the object.
const UNSUPPORTED_SUBRESOURCES = [
  'accelerate', 'acl', 'analytics', 'attributes', 'encryption', 'intelligent-tiering', 'inventory',
  'legal-hold', 'lifecycle', 'logging', 'metadataTable', 'metrics', 'notification', 'object-lock',
  'ownershipControls', 'publicAccessBlock', 'replication', 'requestPayment',
  'restore', 'retention', 'select', 'torrent', 'website',
] as const;

function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch (cause) {
    throw new S3Error('InvalidURI', { cause, resource: raw });
  }
}

function has(query: RouteInput['query'], name: string): boolean {
  return Object.prototype.hasOwnProperty.call(query, name);
}

function header(headers: RouteInput['headers'], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Part numbers are 1..10000 (https://docs.aws.amazon.com/AmazonS3/latest/API/API_UploadPart.html). */
export function parsePartNumber(raw: string): number {
  if (!/^\d{1,5}$/.test(raw) || Number(raw) < 1 || Number(raw) > 10000) {
    throw new S3Error('InvalidArgument', {
      message: 'Part number must be an integer between 1 and 10000, inclusive',
      extra: { ArgumentName: 'partNumber', ArgumentValue: raw },
    });
  }
  return Number(raw);
}

const VERSION_ID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Checks a version id: "null" or the UUID form this server issues. Anything else cannot name a version here and
 * is InvalidArgument, as AWS answers for malformed ids (a well-formed unknown id is NoSuchVersion later).
 */
export function parseVersionId(raw: string, argumentName = 'versionId'): string {
  if (raw === '') {
    throw new S3Error('InvalidArgument', { message: 'Version id cannot be the empty string', extra: { ArgumentName: argumentName, ArgumentValue: raw } });
  }
  if (raw !== 'null' && !VERSION_ID_RE.test(raw)) {
    throw new S3Error('InvalidArgument', { message: 'Invalid version id specified', extra: { ArgumentName: argumentName, ArgumentValue: raw } });
  }
  return raw;
}

/**
 * Parses `x-amz-copy-source`: `[/]bucket/key[?versionId=…]`, URL-encoded
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/API_CopyObject.html#API_CopyObject_RequestSyntax).
 */
export function parseCopySource(raw: string): CopySource {
  const q = raw.indexOf('?');
  const pathPart = q === -1 ? raw : raw.slice(0, q);
  let versionId: string | undefined;
  if (q !== -1) {
    const found = new URLSearchParams(raw.slice(q + 1)).get('versionId');
    if (found !== null) versionId = parseVersionId(found, 'x-amz-copy-source');
  }
  const decoded = (() => {
    try {
      return decodeURIComponent(pathPart);
    } catch (cause) {
      throw new S3Error('InvalidArgument', { message: 'Copy Source must mention the source bucket and key: sourcebucket/sourcekey', cause });
    }
  })();
  const path = decoded.startsWith('/') ? decoded.slice(1) : decoded;
  const slash = path.indexOf('/');
  if (slash <= 0 || slash === path.length - 1) {
    throw new S3Error('InvalidArgument', { message: 'Copy Source must mention the source bucket and key: sourcebucket/sourcekey' });
  }
  const bucket = path.slice(0, slash);
  const key = path.slice(slash + 1);
  checkBucketName(bucket, false);
  checkObjectKey(key);
  return versionId === undefined ? { bucket, key } : { bucket, key, versionId };
}

function rejectUnsupported(query: RouteInput['query']): void {
  for (const name of UNSUPPORTED_SUBRESOURCES) {
    if (has(query, name)) {
      throw new S3Error('NotImplemented', { message: `The ${name} sub-resource is not implemented by this server.` });
    }
  }
}

function rejectVersionId(query: RouteInput['query']): void {
  // Tagging addresses the newest version only: the one id accepted is "null"
  // (https://docs.aws.amazon.com/AmazonS3/latest/userguide/AddingObjectstoVersionSuspendedBuckets.html).
  if (has(query, 'versionId') && query['versionId'] !== 'null') {
    throw new S3Error('InvalidArgument', { message: 'Invalid version id specified', extra: { ArgumentName: 'versionId' } });
  }
}

/** The `versionId` query parameter, checked; absent when not given. */
function versionOf(query: RouteInput['query']): { versionId?: string } {
  const raw = query['versionId'];
  return raw === undefined ? {} : { versionId: parseVersionId(raw) };
}

function methodNotAllowed(method: string, resource: string): S3Error {
  return new S3Error('MethodNotAllowed', { resource, extra: { Method: method, ResourceType: resource === '/' ? 'SERVICE' : 'BUCKET' } });
}

function bucketOperation(method: string, bucket: string, input: RouteInput): S3Operation {
  const { query } = input;
  switch (method) {
    case 'GET':
      if (has(query, 'location')) return { op: 'GetBucketLocation', bucket };
      if (has(query, 'uploads')) return { op: 'ListMultipartUploads', bucket };
      if (has(query, 'cors')) return { op: 'GetBucketCors', bucket };
      if (has(query, 'policy')) return { op: 'GetBucketPolicy', bucket };
      if (has(query, 'policyStatus')) return { op: 'GetBucketPolicyStatus', bucket };
      if (has(query, 'versioning')) return { op: 'GetBucketVersioning', bucket };
      if (has(query, 'versions')) return { op: 'ListObjectVersions', bucket };
      if (has(query, 'object-lock')) return { op: 'GetObjectLockConfiguration', bucket };
      if (has(query, 'lifecycle')) return { op: 'GetBucketLifecycleConfiguration', bucket };
      rejectUnsupported(query);
      if (has(query, 'tagging')) return { op: 'GetBucketTagging', bucket };
      if (query['list-type'] === '2') return { op: 'ListObjectsV2', bucket };
      if (has(query, 'list-type')) throw new S3Error('InvalidArgument', { message: 'Invalid list type specified', extra: { ArgumentName: 'list-type' } });
      return { op: 'ListObjectsV1', bucket };
    case 'HEAD':
      return { op: 'HeadBucket', bucket };
    case 'PUT':
      if (has(query, 'cors')) return { op: 'PutBucketCors', bucket };
      if (has(query, 'policy')) return { op: 'PutBucketPolicy', bucket };
      if (has(query, 'versioning')) return { op: 'PutBucketVersioning', bucket };
      if (has(query, 'object-lock')) return { op: 'PutObjectLockConfiguration', bucket };
      if (has(query, 'lifecycle')) return { op: 'PutBucketLifecycleConfiguration', bucket };
      rejectUnsupported(query);
      if (has(query, 'tagging')) return { op: 'PutBucketTagging', bucket };
      return { op: 'CreateBucket', bucket };
    case 'DELETE':
      if (has(query, 'cors')) return { op: 'DeleteBucketCors', bucket };
      if (has(query, 'policy')) return { op: 'DeleteBucketPolicy', bucket };
      if (has(query, 'lifecycle')) return { op: 'DeleteBucketLifecycle', bucket };
      rejectUnsupported(query);
      if (has(query, 'tagging')) return { op: 'DeleteBucketTagging', bucket };
      return { op: 'DeleteBucket', bucket };
    case 'POST':
      if (has(query, 'delete')) return { op: 'DeleteObjects', bucket };
      rejectUnsupported(query);
      throw new S3Error('NotImplemented', { message: 'POST object uploads (browser forms) are not implemented by this server.' });
    case 'OPTIONS':
      // A CORS preflight (https://docs.aws.amazon.com/AmazonS3/latest/API/API_OPTIONSobject.html).
      return { op: 'PreflightCors', bucket };
    default:
      throw methodNotAllowed(method, `/${bucket}`);
  }
}

function objectOperation(method: string, bucket: string, key: string, input: RouteInput): S3Operation {
  const { query, headers } = input;
  const uploadId = query['uploadId'];
  switch (method) {
    case 'GET':
      if (uploadId !== undefined) return { op: 'ListParts', bucket, key, uploadId };
      if (has(query, 'retention')) return { op: 'GetObjectRetention', bucket, key, ...versionOf(query) };
      if (has(query, 'legal-hold')) return { op: 'GetObjectLegalHold', bucket, key, ...versionOf(query) };
      rejectUnsupported(query);
      if (has(query, 'tagging')) {
        rejectVersionId(query);
        return { op: 'GetObjectTagging', bucket, key };
      }
      if (has(query, 'partNumber')) throw new S3Error('NotImplemented', { message: 'GetObject by partNumber is not implemented by this server.' });
      return { op: 'GetObject', bucket, key, ...versionOf(query) };
    case 'HEAD':
      if (has(query, 'partNumber')) throw new S3Error('NotImplemented', { message: 'HeadObject by partNumber is not implemented by this server.' });
      return { op: 'HeadObject', bucket, key, ...versionOf(query) };
    case 'PUT': {
      if (has(query, 'retention')) return { op: 'PutObjectRetention', bucket, key, ...versionOf(query) };
      if (has(query, 'legal-hold')) return { op: 'PutObjectLegalHold', bucket, key, ...versionOf(query) };
      rejectUnsupported(query);
      if (has(query, 'tagging')) {
        rejectVersionId(query);
        return { op: 'PutObjectTagging', bucket, key };
      }
      const copySource = header(headers, 'x-amz-copy-source');
      if (uploadId !== undefined || has(query, 'partNumber')) {
        if (uploadId === undefined) throw new S3Error('InvalidRequest', { message: 'A partNumber requires an uploadId.' });
        const partNumber = parsePartNumber(query['partNumber'] ?? '');
        if (copySource !== undefined) return { op: 'UploadPartCopy', bucket, key, uploadId, partNumber, source: parseCopySource(copySource) };
        return { op: 'UploadPart', bucket, key, uploadId, partNumber };
      }
      if (copySource !== undefined) return { op: 'CopyObject', bucket, key, source: parseCopySource(copySource) };
      return { op: 'PutObject', bucket, key };
    }
    case 'DELETE':
      if (uploadId !== undefined) return { op: 'AbortMultipartUpload', bucket, key, uploadId };
      rejectUnsupported(query);
      if (has(query, 'tagging')) {
        rejectVersionId(query);
        return { op: 'DeleteObjectTagging', bucket, key };
      }
      return { op: 'DeleteObject', bucket, key, ...versionOf(query) };
    case 'POST':
      if (has(query, 'uploads')) return { op: 'CreateMultipartUpload', bucket, key };
      if (uploadId !== undefined) return { op: 'CompleteMultipartUpload', bucket, key, uploadId };
      rejectUnsupported(query);
      throw methodNotAllowed(method, `/${bucket}/${key}`);
    case 'OPTIONS':
      return { op: 'PreflightCors', bucket, key };
    default:
      throw methodNotAllowed(method, `/${bucket}/${key}`);
  }
}

/**
 * Resolves a request to its S3 operation, or throws S3Error (InvalidURI, InvalidBucketName,
 * KeyTooLongError, InvalidArgument, MethodNotAllowed, NotImplemented). Pure.
 */
export function resolveOperation(input: RouteInput): S3Operation {
  const method = input.method.toUpperCase();
  if (!input.rawPath.startsWith('/')) throw new S3Error('InvalidURI', { resource: input.rawPath });
  const path = input.rawPath.slice(1);
  if (path === '') {
    if (method === 'GET') return { op: 'ListBuckets' };
    throw methodNotAllowed(method, '/');
  }
  const slash = path.indexOf('/');
  const bucket = decodeSegment(slash === -1 ? path : path.slice(0, slash));
  const rawKey = slash === -1 ? '' : path.slice(slash + 1);
  checkBucketName(bucket, method === 'PUT' && rawKey === '');
  if (rawKey === '') return bucketOperation(method, bucket, input);
  const key = decodeSegment(rawKey);
  checkObjectKey(key);
  return objectOperation(method, bucket, key, input);
}
