/**
 * The in-memory copy of every IAM record a node serves requests from (issue 4 "cached on every node"), with
 * stored policy documents already parsed, and the pure questions asked of it: which secret signs for an access
 * key, and what the identity policies of that key decide for one request.
 */
import { evaluatePolicy } from '../policy/evaluate-policy.js';
import { cannedPolicy, isCannedPolicy } from '../policy/canned-policies.js';
import type { BucketPolicy, PolicyDecision, PolicyRequest } from '../policy/policy-types.js';
import type { GroupRecord, PolicyRecord, ServiceAccountRecord, UserRecord } from './iam-model.js';

/** A stored policy with its parsed form. */
export interface CachedPolicy {
  readonly record: PolicyRecord;
  readonly parsed: BucketPolicy;
}

/** A service account with its parsed inline policy. */
export interface CachedServiceAccount {
  readonly record: ServiceAccountRecord;
  readonly inline?: BucketPolicy;
}

/** Every IAM record, keyed by access key or policy name. */
export interface IamSnapshot {
  readonly users: Map<string, UserRecord>;
  readonly policies: Map<string, CachedPolicy>;
  readonly serviceAccounts: Map<string, CachedServiceAccount>;
  readonly groups: Map<string, GroupRecord>;
}

/** One request as identity policies see it (the principal is the access key being decided for). */
export type IdentityRequest = Omit<PolicyRequest, 'principal'>;

/** A snapshot with no records. */
export function emptySnapshot(): IamSnapshot {
  return { users: new Map(), policies: new Map(), serviceAccounts: new Map(), groups: new Map() };
}

function expired(sa: ServiceAccountRecord, now: Date): boolean {
  return sa.expiration !== undefined && Date.parse(sa.expiration) <= now.getTime();
}

/** The parent of a usable service account is root or an enabled user. */
function parentUsable(s: IamSnapshot, rootAccessKey: string, parent: string): boolean {
  return parent === rootAccessKey || s.users.get(parent)?.status === 'enabled';
}

/**
 * The secret that signs for `accessKey` when it may sign at all: an enabled user, or an enabled, unexpired
 * service account whose parent is usable. Root is answered by the caller.
 */
export function secretOf(s: IamSnapshot, rootAccessKey: string, accessKey: string, now: Date): string | undefined {
  const user = s.users.get(accessKey);
  if (user !== undefined) return user.status === 'enabled' ? user.secretKey : undefined;
  const sa = s.serviceAccounts.get(accessKey)?.record;
  if (sa === undefined || sa.status !== 'enabled' || expired(sa, now) || !parentUsable(s, rootAccessKey, sa.parent)) return undefined;
  return sa.secretKey;
}

/** Names of the groups `accessKey` is a member of, sorted. */
export function groupsOfUser(s: IamSnapshot, accessKey: string): string[] {
  return [...s.groups.values()].filter((g) => g.members.includes(accessKey)).map((g) => g.name).sort();
}

/**
 * The policies of a user: its own and those of every enabled group it belongs to (MinIO: "users inherit the
 * policies of their groups"); a name that no longer resolves grants nothing.
 */
function policiesOf(s: IamSnapshot, user: UserRecord): BucketPolicy[] {
  const out: BucketPolicy[] = [];
  const names = new Set(user.policies);
  for (const g of s.groups.values()) {
    if (g.status === 'enabled' && g.members.includes(user.accessKey)) for (const p of g.policies) names.add(p);
  }
  for (const name of names) {
    if (isCannedPolicy(name)) out.push(cannedPolicy(name));
    else {
      const stored = s.policies.get(name);
      if (stored !== undefined) out.push(stored.parsed);
    }
  }
  return out;
}

/**
 * Decision of a set of policies attached together: the union of their statements
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html): any Deny wins,
 * then any Allow, else implicit deny.
 */
export function decideAll(policies: readonly BucketPolicy[], request: PolicyRequest): PolicyDecision {
  let allowed = false;
  for (const p of policies) {
    const d = evaluatePolicy(p, request);
    if (d === 'deny') return 'deny';
    if (d === 'allow') allowed = true;
  }
  return allowed ? 'allow' : 'implicit-deny';
}

/**
 * What the identity policies of `accessKey` decide: a user's attached policies; a service account's parent
 * permissions intersected with its inline policy (both must allow, a Deny in either wins), as MinIO evaluates
 * service accounts. A key that cannot sign (unknown, disabled, expired) is denied outright. Root never gets here.
 */
export function decideIdentity(s: IamSnapshot, rootAccessKey: string, accessKey: string, request: IdentityRequest, now: Date): PolicyDecision {
  const full: PolicyRequest = { ...request, principal: { anonymous: false, accessKey } };
  if (secretOf(s, rootAccessKey, accessKey, now) === undefined) return 'deny';
  const user = s.users.get(accessKey);
  if (user !== undefined) return decideAll(policiesOf(s, user), full);
  const sa = s.serviceAccounts.get(accessKey)!;
  const parent = sa.record.parent === rootAccessKey
    ? 'allow'
    : decideAll(policiesOf(s, s.users.get(sa.record.parent)!), { ...full, principal: { anonymous: false, accessKey: sa.record.parent } });
  if (sa.inline === undefined) return parent;
  const inline = evaluatePolicy(sa.inline, full);
  if (parent === 'deny' || inline === 'deny') return 'deny';
  return parent === 'allow' && inline === 'allow' ? 'allow' : 'implicit-deny';
}
