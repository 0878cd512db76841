/**
 * MinIO's built-in identity policies (https://min.io/docs/minio/linux/administration/identity-access-management/policy-based-access-control.html#built-in-policies),
 * with the same names and grants so that scripts written for `mc admin policy attach` work unchanged. They are
 * part of the server, not of the store: never persisted, never deletable, never replaced.
 */
import { parseIdentityPolicy } from './parse-policy.js';
import type { BucketPolicy } from './policy-types.js';

const ALL_BUCKETS = ['arn:aws:s3:::*'];

/** The documents, as `mc admin policy info <alias> <name>` shows them. */
const DOCUMENTS = {
  // readonly grants GetObject and GetBucketLocation only (no ListBucket), exactly as MinIO's does.
  readonly: [{ Effect: 'Allow', Action: ['s3:GetBucketLocation', 's3:GetObject'], Resource: ALL_BUCKETS }],
  readwrite: [{ Effect: 'Allow', Action: ['s3:*'], Resource: ALL_BUCKETS }],
  writeonly: [{ Effect: 'Allow', Action: ['s3:PutObject'], Resource: ALL_BUCKETS }],
  diagnostics: [{
    Effect: 'Allow',
    Action: [
      'admin:ServerTrace', 'admin:Profiling', 'admin:ConsoleLog', 'admin:ServerInfo', 'admin:TopLocksInfo', 'admin:OBDInfo',
      'admin:BandwidthMonitor', 'admin:Prometheus',
    ],
  }],
  consoleAdmin: [
    { Effect: 'Allow', Action: ['admin:*'] },
    { Effect: 'Allow', Action: ['kms:*'] },
    { Effect: 'Allow', Action: ['s3:*'], Resource: ALL_BUCKETS },
  ],
} as const;

/** Name of a built-in policy. */
export type CannedPolicyName = keyof typeof DOCUMENTS;

/** The built-in policy names, in MinIO's listing order. */
export const CANNED_POLICY_NAMES: readonly CannedPolicyName[] = ['consoleAdmin', 'diagnostics', 'readonly', 'readwrite', 'writeonly'];

/** True when `name` is a built-in policy. */
export function isCannedPolicy(name: string): name is CannedPolicyName {
  return Object.prototype.hasOwnProperty.call(DOCUMENTS, name);
}

/** The JSON text of a built-in policy. */
export function cannedPolicyText(name: CannedPolicyName): string {
  return JSON.stringify({ Version: '2012-10-17', Statement: DOCUMENTS[name] });
}

const PARSED = new Map<CannedPolicyName, BucketPolicy>(CANNED_POLICY_NAMES.map((n) => [n, parseIdentityPolicy(cannedPolicyText(n))]));

/** The parsed form of a built-in policy. */
export function cannedPolicy(name: CannedPolicyName): BucketPolicy {
  return PARSED.get(name)!;
}
