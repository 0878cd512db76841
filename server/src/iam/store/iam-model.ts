/**
 * The records the IAM store keeps (issue 4: users, policies, service accounts) and their validation rules.
 * Limits follow MinIO: access keys of 3..128 characters, secret keys of 8..40
 * (https://min.io/docs/minio/linux/reference/minio-mc-admin/mc-admin-user-add.html).
 */
import { IamError } from './iam-errors.js';

/** Whether an identity may sign requests. */
export type AccountStatus = 'enabled' | 'disabled';

/** A user: long-lived credentials with named policies attached. */
export interface UserRecord {
  readonly accessKey: string;
  readonly secretKey: string;
  readonly status: AccountStatus;
  /** Names of built-in or stored policies; the user may do what any of them allows. */
  readonly policies: readonly string[];
  /** ISO time of the last change. */
  readonly updatedAt: string;
}

/** A named identity policy stored by an administrator. */
export interface PolicyRecord {
  readonly name: string;
  /** The policy JSON as given (validated with parseIdentityPolicy). */
  readonly policy: string;
  readonly updatedAt: string;
}

/**
 * A service account (MinIO "access key"): credentials of a parent user (or of root) that inherit the parent's
 * permissions, optionally narrowed by an inline policy.
 */
export interface ServiceAccountRecord {
  readonly accessKey: string;
  readonly secretKey: string;
  /** The parent user's access key, or the root access key. */
  readonly parent: string;
  /** Inline policy JSON: the account may do only what both this and the parent allow. */
  readonly policy?: string;
  readonly status: AccountStatus;
  /** ISO time after which the account can no longer sign requests. */
  readonly expiration?: string;
  readonly updatedAt: string;
}

/**
 * A group (MinIO's `mc admin group`): users who are members get the group's policies on top of their own while
 * the group is enabled.
 */
export interface GroupRecord {
  readonly name: string;
  /** Access keys of member users. */
  readonly members: readonly string[];
  readonly policies: readonly string[];
  readonly status: AccountStatus;
  readonly updatedAt: string;
}

/** A group as shown to callers. */
export interface GroupInfo {
  readonly name: string;
  readonly members: readonly string[];
  readonly policies: readonly string[];
  readonly status: AccountStatus;
}

/** A user as shown to callers (never the secret). */
export interface UserInfo {
  readonly accessKey: string;
  readonly status: AccountStatus;
  readonly policies: readonly string[];
  readonly updatedAt: string;
}

/** A service account as shown to callers (never the secret). */
export interface ServiceAccountInfo {
  readonly accessKey: string;
  readonly parent: string;
  readonly status: AccountStatus;
  readonly policy?: string;
  readonly expiration?: string;
  readonly updatedAt: string;
}

/** A policy as shown to callers. */
export interface PolicyInfo {
  readonly name: string;
  readonly policy: string;
  /** True for the built-in policies (readwrite, readonly…). */
  readonly builtIn: boolean;
}

const ACCESS_KEY_RE = /^[A-Za-z0-9._@+-]{3,128}$/;
const POLICY_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const GROUP_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$/;

/**
 * Access keys name objects in the store (`iam/users/<key>.json`), so their alphabet excludes `/` and anything a
 * path or a SigV4 credential scope could trip over.
 */
export function checkAccessKey(accessKey: unknown): string {
  if (typeof accessKey !== 'string' || !ACCESS_KEY_RE.test(accessKey)) throw new IamError('InvalidAccessKey');
  return accessKey;
}

/** Secret keys: 8..40 characters, any printable ASCII. */
export function checkSecretKey(secretKey: unknown): string {
  if (typeof secretKey !== 'string' || secretKey.length < 8 || secretKey.length > 40 || !/^[\x21-\x7e]+$/.test(secretKey)) {
    throw new IamError('InvalidSecretKey');
  }
  return secretKey;
}

/** Policy names: also object names in the store. */
export function checkPolicyName(name: unknown): string {
  if (typeof name !== 'string' || !POLICY_NAME_RE.test(name)) throw new IamError('InvalidPolicyName');
  return name;
}

/** Group names: also object names in the store (`iam/groups/<name>.json`). */
export function checkGroupName(name: unknown): string {
  if (typeof name !== 'string' || !GROUP_NAME_RE.test(name)) throw new IamError('InvalidGroupName');
  return name;
}

/** `enabled` or `disabled`. */
export function checkStatus(status: unknown): AccountStatus {
  if (status !== 'enabled' && status !== 'disabled') throw new IamError('InvalidStatus');
  return status;
}

/** The user without its secret. */
export function userInfo(u: UserRecord): UserInfo {
  return { accessKey: u.accessKey, status: u.status, policies: [...u.policies], updatedAt: u.updatedAt };
}

/** The group as shown to callers. */
export function groupInfo(g: GroupRecord): GroupInfo {
  return { name: g.name, members: [...g.members], policies: [...g.policies], status: g.status };
}

/** The service account without its secret. */
export function serviceAccountInfo(s: ServiceAccountRecord): ServiceAccountInfo {
  return {
    accessKey: s.accessKey, parent: s.parent, status: s.status, updatedAt: s.updatedAt,
    ...(s.policy !== undefined ? { policy: s.policy } : {}),
    ...(s.expiration !== undefined ? { expiration: s.expiration } : {}),
  };
}
