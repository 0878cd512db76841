import { evaluatePolicy, parsePolicy, type BucketPolicy, type ConditionKey } from '../../iam/index.js';
import { BucketNotFoundError, type ObjectLayer } from '../../storage/index.js';
import type { S3Operation } from './router.js';
import { S3Error } from './s3-error.js';

/**
 * Authorization of unsigned requests by bucket policy (https://docs.aws.amazon.com/AmazonS3/latest/userguide/example-bucket-policies.html):
 * an anonymous request is allowed exactly when the policy of every bucket it touches allows each action it
 * needs for Principal "*" and no Deny applies. Signed requests are authorized in authorize-identity.ts.
 */

/** One permission an operation needs: an S3 action on a bucket, or on an object when `key` is set. */
export interface PermissionCheck {
  readonly bucket: string;
  readonly action: string;
  readonly key?: string;
}

function onBucket(bucket: string, action: string): PermissionCheck[] {
  return [{ bucket, action }];
}

/**
 * The permissions of `op` (https://docs.aws.amazon.com/AmazonS3/latest/userguide/using-with-s3-policy-actions.html),
 * or undefined for operations a bucket policy can never grant (ListBuckets, CreateBucket). DeleteObjects needs
 * none at the request level: s3:DeleteObject is checked per key. PreflightCors is never authorized here.
 */
export function requiredPermissions(op: S3Operation): PermissionCheck[] | undefined {
  switch (op.op) {
    case 'ListBuckets':
    case 'CreateBucket':
      return undefined;
    case 'HeadBucket': return onBucket(op.bucket, 's3:ListBucket');
    case 'DeleteBucket': return onBucket(op.bucket, 's3:DeleteBucket');
    case 'GetBucketLocation': return onBucket(op.bucket, 's3:GetBucketLocation');
    case 'GetBucketTagging': return onBucket(op.bucket, 's3:GetBucketTagging');
    case 'PutBucketTagging':
    case 'DeleteBucketTagging':
      return onBucket(op.bucket, 's3:PutBucketTagging');
    case 'GetBucketCors': return onBucket(op.bucket, 's3:GetBucketCORS');
    case 'PutBucketCors':
    case 'DeleteBucketCors':
      return onBucket(op.bucket, 's3:PutBucketCORS');
    case 'PreflightCors': return [];
    case 'GetBucketPolicy': return onBucket(op.bucket, 's3:GetBucketPolicy');
    case 'PutBucketPolicy': return onBucket(op.bucket, 's3:PutBucketPolicy');
    case 'DeleteBucketPolicy': return onBucket(op.bucket, 's3:DeleteBucketPolicy');
    case 'GetBucketPolicyStatus': return onBucket(op.bucket, 's3:GetBucketPolicyStatus');
    case 'GetBucketVersioning': return onBucket(op.bucket, 's3:GetBucketVersioning');
    case 'PutBucketVersioning': return onBucket(op.bucket, 's3:PutBucketVersioning');
    case 'GetObjectLockConfiguration': return onBucket(op.bucket, 's3:GetBucketObjectLockConfiguration');
    case 'PutObjectLockConfiguration': return onBucket(op.bucket, 's3:PutBucketObjectLockConfiguration');
    case 'GetBucketLifecycleConfiguration': return onBucket(op.bucket, 's3:GetLifecycleConfiguration');
    case 'PutBucketLifecycleConfiguration':
    case 'DeleteBucketLifecycle':
      return onBucket(op.bucket, 's3:PutLifecycleConfiguration');
    case 'ListObjectsV1':
    case 'ListObjectsV2':
      return onBucket(op.bucket, 's3:ListBucket');
    case 'ListMultipartUploads': return onBucket(op.bucket, 's3:ListBucketMultipartUploads');
    case 'ListObjectVersions': return onBucket(op.bucket, 's3:ListBucketVersions');
    case 'DeleteObjects': return [];
    case 'GetObject':
    case 'HeadObject':
      return [{ bucket: op.bucket, key: op.key, action: op.versionId === undefined ? 's3:GetObject' : 's3:GetObjectVersion' }];
    case 'PutObject':
    case 'CreateMultipartUpload':
    case 'UploadPart':
    case 'CompleteMultipartUpload':
      return [{ bucket: op.bucket, key: op.key, action: 's3:PutObject' }];
    case 'CopyObject':
    case 'UploadPartCopy':
      return [
        { bucket: op.bucket, key: op.key, action: 's3:PutObject' },
        { bucket: op.source.bucket, key: op.source.key, action: op.source.versionId === undefined ? 's3:GetObject' : 's3:GetObjectVersion' },
      ];
    case 'DeleteObject':
      return [{ bucket: op.bucket, key: op.key, action: op.versionId === undefined ? 's3:DeleteObject' : 's3:DeleteObjectVersion' }];
    case 'GetObjectTagging': return [{ bucket: op.bucket, key: op.key, action: 's3:GetObjectTagging' }];
    case 'PutObjectTagging': return [{ bucket: op.bucket, key: op.key, action: 's3:PutObjectTagging' }];
    case 'DeleteObjectTagging': return [{ bucket: op.bucket, key: op.key, action: 's3:DeleteObjectTagging' }];
    case 'GetObjectRetention': return [{ bucket: op.bucket, key: op.key, action: 's3:GetObjectRetention' }];
    case 'PutObjectRetention': return [{ bucket: op.bucket, key: op.key, action: 's3:PutObjectRetention' }];
    case 'GetObjectLegalHold': return [{ bucket: op.bucket, key: op.key, action: 's3:GetObjectLegalHold' }];
    case 'PutObjectLegalHold': return [{ bucket: op.bucket, key: op.key, action: 's3:PutObjectLegalHold' }];
    case 'AbortMultipartUpload': return [{ bucket: op.bucket, key: op.key, action: 's3:AbortMultipartUpload' }];
    case 'ListParts': return [{ bucket: op.bucket, key: op.key, action: 's3:ListMultipartUploadParts' }];
    default: return op satisfies never;
  }
}

/** What the condition keys are computed from. */
export interface RequestFacts {
  readonly sourceIp: string;
  readonly secure: boolean;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly query: Readonly<Record<string, string>>;
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Condition keys of a request (https://docs.aws.amazon.com/AmazonS3/latest/userguide/amazon-s3-policy-keys.html).
 * s3:prefix is present on listings only, and "" when the request names no prefix (AWS's examples grant
 * root listings with `"s3:prefix": [""]`).
 */
export function conditionContext(op: S3Operation, facts: RequestFacts): Partial<Record<ConditionKey, string>> {
  const out: Partial<Record<ConditionKey, string>> = {
    'aws:sourceip': facts.sourceIp,
    'aws:securetransport': facts.secure ? 'true' : 'false',
  };
  const referer = first(facts.headers['referer']);
  if (referer !== undefined) out['aws:referer'] = referer;
  const agent = first(facts.headers['user-agent']);
  if (agent !== undefined) out['aws:useragent'] = agent;
  if (op.op === 'ListObjectsV1' || op.op === 'ListObjectsV2' || op.op === 'ListObjectVersions') {
    out['s3:prefix'] = facts.query['prefix'] ?? '';
    if (facts.query['delimiter'] !== undefined) out['s3:delimiter'] = facts.query['delimiter'];
    if (facts.query['max-keys'] !== undefined) out['s3:max-keys'] = facts.query['max-keys'];
  }
  return out;
}

/** The resource ARN of a check. */
export function resourceArn(check: PermissionCheck): string {
  return check.key === undefined ? `arn:aws:s3:::${check.bucket}` : `arn:aws:s3:::${check.bucket}/${check.key}`;
}

/**
 * The bucket's policy text; a missing bucket has none. AWS answers anonymous requests for missing
 * buckets with NoSuchBucket; we answer AccessDenied (as MinIO does), so that unsigned clients cannot
 * probe which bucket names exist.
 */
export async function storedPolicy(layer: ObjectLayer, bucket: string): Promise<string | undefined> {
  try {
    return await layer.getBucketConfig(bucket, 'policy');
  } catch (err) {
    if (err instanceof BucketNotFoundError) return undefined;
    throw err;
  }
}

/** Allows or refuses one (action, key) of the same request; DeleteObjects asks once per key. */
export type KeyAuthorizer = (bucket: string, key: string, action: string) => boolean;

/**
 * Authorizes an anonymous request: AccessDenied unless every permission is allowed by its bucket's
 * policy. A missing bucket is AccessDenied too (see storedPolicy). Returns the per-key authorizer of the
 * request for operations that decide per key.
 */
export async function authorizeAnonymous(layer: ObjectLayer, op: S3Operation, facts: RequestFacts): Promise<KeyAuthorizer> {
  const checks = requiredPermissions(op);
  if (checks === undefined) throw new S3Error('AccessDenied');
  const policies = new Map<string, BucketPolicy | undefined>();
  const policyOf = async (bucket: string): Promise<BucketPolicy | undefined> => {
    if (!policies.has(bucket)) {
      const stored = await storedPolicy(layer, bucket);
      policies.set(bucket, stored === undefined ? undefined : parsePolicy(stored, bucket));
    }
    return policies.get(bucket);
  };
  const context = conditionContext(op, facts);
  const allowed = (policy: BucketPolicy | undefined, check: PermissionCheck): boolean => policy !== undefined
    && evaluatePolicy(policy, { principal: { anonymous: true }, action: check.action, resource: resourceArn(check), context }) === 'allow';
  for (const check of checks) {
    if (!allowed(await policyOf(check.bucket), check)) throw new S3Error('AccessDenied');
  }
  if (op.op === 'DeleteObjects' && (await policyOf(op.bucket)) === undefined) throw new S3Error('AccessDenied');
  return (bucket, key, action) => allowed(policies.get(bucket), { bucket, key, action });
}
