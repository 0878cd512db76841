import { evaluatePolicy, parsePolicy, type BucketPolicy, type IdentityAuthority, type PolicyDecision } from '../../iam/index.js';
import type { ObjectLayer } from '../../storage/index.js';
import { conditionContext, requiredPermissions, resourceArn, storedPolicy } from './authorize.js';
import type { KeyAuthorizer, PermissionCheck, RequestFacts } from './authorize.js';
import type { S3Operation } from './router.js';
import { S3Error } from './s3-error.js';

/**
 * Authorization of signed requests (issue 4/5: users and service accounts). Root is always allowed. Any other
 * identity is allowed an operation only when every permission it needs is allowed by its identity policies or by
 * the bucket's policy, and no explicit Deny in either applies — the same-account evaluation of
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html. ListBuckets and
 * CreateBucket, which no bucket policy can grant, need s3:ListAllMyBuckets and s3:CreateBucket from the identity.
 */

/** The permissions a signed request needs, bucket-less ones included (resource `arn:aws:s3:::*` for ListAllMyBuckets). */
function identityChecks(op: S3Operation): Array<PermissionCheck & { bucketPolicy: boolean }> {
  const checks = requiredPermissions(op);
  if (checks !== undefined) return checks.map((c) => ({ ...c, bucketPolicy: true }));
  if (op.op === 'ListBuckets') return [{ bucket: '*', action: 's3:ListAllMyBuckets', bucketPolicy: false }];
  if (op.op === 'CreateBucket') return [{ bucket: op.bucket, action: 's3:CreateBucket', bucketPolicy: false }];
  throw new S3Error('AccessDenied');
}

/**
 * Authorizes a signed request of `accessKey`: resolves undefined for root (or without an authority: a server
 * whose only credentials are root's), throws AccessDenied when a permission is missing, and otherwise resolves
 * the per-key authorizer DeleteObjects uses.
 */
export async function authorizeSigned(
  layer: ObjectLayer, authority: IdentityAuthority | undefined, accessKey: string, op: S3Operation, facts: RequestFacts,
): Promise<KeyAuthorizer | undefined> {
  if (authority === undefined || authority.isRoot(accessKey)) return undefined;
  const context = conditionContext(op, facts);
  const policies = new Map<string, BucketPolicy | undefined>();
  const load = async (bucket: string): Promise<void> => {
    if (policies.has(bucket)) return;
    const stored = await storedPolicy(layer, bucket);
    policies.set(bucket, stored === undefined ? undefined : parsePolicy(stored, bucket));
  };
  const allowed = (check: PermissionCheck, bucketPolicy: boolean): boolean => {
    const request = { action: check.action, resource: resourceArn(check), context };
    const identity = authority.decide(accessKey, request);
    if (identity === 'deny') return false;
    const policy = bucketPolicy ? policies.get(check.bucket) : undefined;
    const bucket: PolicyDecision = policy === undefined
      ? 'implicit-deny'
      : evaluatePolicy(policy, { ...request, principal: { anonymous: false, accessKey } });
    if (bucket === 'deny') return false;
    return identity === 'allow' || bucket === 'allow';
  };
  for (const check of identityChecks(op)) {
    if (check.bucketPolicy) await load(check.bucket);
    if (!allowed(check, check.bucketPolicy)) throw new S3Error('AccessDenied');
  }
  if (op.op === 'DeleteObjects') await load(op.bucket);
  return (bucket, key, action) => allowed({ bucket, key, action }, true);
}
