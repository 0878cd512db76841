/**
 * Groups of the IAM store (issue 5, MinIO's `mc admin group`): pure planners that validate a change against the
 * cache and return the records to write; IamAdmin commits them. Members must be existing users; a group with
 * members cannot be removed (GroupNotEmpty), as MinIO refuses it.
 */
import { isCannedPolicy } from '../policy/canned-policies.js';
import { IamError } from './iam-errors.js';
import { checkAccessKey, checkGroupName, checkPolicyName } from './iam-model.js';
import type { GroupRecord } from './iam-model.js';
import type { IamSnapshot } from './iam-snapshot.js';

/** The names, validated, each an existing built-in or stored policy (NoSuchPolicy otherwise), without repeats. */
export function existingPolicies(s: IamSnapshot, names: readonly string[]): string[] {
  for (const n of names) {
    checkPolicyName(n);
    if (!isCannedPolicy(n) && !s.policies.has(n)) throw new IamError('NoSuchPolicy', `The policy ${n} does not exist.`);
  }
  return [...new Set(names)];
}

function existingUsers(s: IamSnapshot, keys: readonly string[]): string[] {
  for (const k of keys) {
    checkAccessKey(k);
    if (!s.users.has(k)) throw new IamError('NoSuchUser', `The user ${k} does not exist.`);
  }
  return [...new Set(keys)];
}

/** The group named `name`; NoSuchGroup. */
export function groupOf(s: IamSnapshot, name: string): GroupRecord {
  const g = s.groups.get(name);
  if (g === undefined) throw new IamError('NoSuchGroup', `The group ${name} does not exist.`);
  return g;
}

/** `PUT groups/{name}`: creates the group or adds members and policies to it. */
export function planPutGroup(s: IamSnapshot, name: string, members: readonly string[], policies: readonly string[], stamp: string): GroupRecord {
  checkGroupName(name);
  const existing = s.groups.get(name);
  return {
    name,
    members: existingUsers(s, [...(existing?.members ?? []), ...members]),
    policies: existingPolicies(s, [...(existing?.policies ?? []), ...policies]),
    status: existing?.status ?? 'enabled',
    updatedAt: stamp,
  };
}

/** Adds then removes members (removing a non-member is a no-op); NoSuchGroup, NoSuchUser for an unknown added user. */
export function planGroupMembers(s: IamSnapshot, name: string, add: readonly string[], remove: readonly string[], stamp: string): GroupRecord {
  const g = groupOf(s, name);
  const members = existingUsers(s, [...g.members, ...add]).filter((m) => !remove.includes(m));
  return { ...g, members, updatedAt: stamp };
}

/** Attaches then detaches policies; NoSuchGroup, NoSuchPolicy for an unknown attached policy. */
export function planGroupPolicies(s: IamSnapshot, name: string, attach: readonly string[], detach: readonly string[], stamp: string): GroupRecord {
  const g = groupOf(s, name);
  const policies = existingPolicies(s, [...g.policies, ...attach]).filter((p) => !detach.includes(p));
  return { ...g, policies, updatedAt: stamp };
}

/** Checks a group may be removed: NoSuchGroup, GroupNotEmpty while it has members. */
export function checkRemoveGroup(s: IamSnapshot, name: string): void {
  const g = groupOf(s, name);
  if (g.members.length > 0) throw new IamError('GroupNotEmpty', `The group ${name} has ${g.members.length} member(s); remove them first.`);
}

/** The groups `accessKey` belongs to, without it (when a user is removed). */
export function groupsWithout(s: IamSnapshot, accessKey: string, stamp: string): GroupRecord[] {
  return [...s.groups.values()].filter((g) => g.members.includes(accessKey))
    .map((g) => ({ ...g, members: g.members.filter((m) => m !== accessKey), updatedAt: stamp }));
}
