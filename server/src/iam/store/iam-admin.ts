/**
 * The mutations and queries of the IAM store (what the admin API of issue 5 calls): validation with typed
 * IamError refusals against the current cache, then one `commit` of the records to write. The persistence,
 * caching and peer notification behind `commit` are IamStore's.
 */
import { MalformedPolicyError } from '../policy/policy-errors.js';
import { parseIdentityPolicy } from '../policy/parse-policy.js';
import { CANNED_POLICY_NAMES, cannedPolicyText, isCannedPolicy } from '../policy/canned-policies.js';
import {
  checkRemoveGroup, existingPolicies, groupsWithout, planGroupMembers, planGroupPolicies, planPutGroup,
} from './iam-groups.js';
import { generateCredentials } from '../root-credentials.js';
import type { IamChange } from './iam-codec.js';
import { IamError } from './iam-errors.js';
import {
  checkAccessKey, checkPolicyName, checkSecretKey, checkStatus, groupInfo, serviceAccountInfo, userInfo,
} from './iam-model.js';
import type {
  AccountStatus, GroupInfo, GroupRecord, PolicyInfo, PolicyRecord, ServiceAccountInfo, ServiceAccountRecord, UserInfo, UserRecord,
} from './iam-model.js';
import { groupsOfUser } from './iam-snapshot.js';
import type { IamSnapshot } from './iam-snapshot.js';

/** One record to write (undefined: remove it). */
export type IamWrite = readonly [IamChange, UserRecord | PolicyRecord | ServiceAccountRecord | GroupRecord | undefined];

/** Options of {@link IamAdmin.addUser}. */
export interface AddUserOptions {
  status?: AccountStatus;
  policies?: readonly string[];
}

/** Options of {@link IamAdmin.addServiceAccount}. */
export interface AddServiceAccountOptions {
  /** The parent user's access key (or root's). */
  parent: string;
  /** Generated (20 characters) when absent. */
  accessKey?: string;
  /** Generated (40 characters) when absent. */
  secretKey?: string;
  /** Inline identity policy JSON narrowing the parent's permissions. */
  policy?: string;
  status?: AccountStatus;
  /** When the account stops working; must lie in the future. */
  expiration?: Date;
}

/** A created service account: its secret is shown this once. */
export interface CreatedServiceAccount extends ServiceAccountInfo {
  readonly secretKey: string;
}

/** Parses an identity policy, turning a refusal into IamError MalformedPolicy. */
export function checkIdentityPolicy(text: unknown): string {
  if (typeof text !== 'string') throw new IamError('MalformedPolicy', 'The policy document must be a JSON string');
  try {
    parseIdentityPolicy(text);
  } catch (err) {
    if (err instanceof MalformedPolicyError) throw new IamError('MalformedPolicy', err.message, { cause: err });
    throw err;
  }
  return text;
}

/** See the module comment. */
export abstract class IamAdmin {
  /** The current cache; IamError NotReady before the first load (a mutation must see every existing record). */
  protected abstract snapshot(): IamSnapshot;
  protected abstract rootAccessKey(): string;
  protected abstract now(): Date;
  /** Runs `check` (validation against the cache, returning the writes) and persists, caches and announces its writes. */
  protected abstract commit(check: () => readonly IamWrite[]): Promise<void>;

  #stamp(): string {
    return this.now().toISOString();
  }

  #checkPoliciesExist(s: IamSnapshot, names: readonly string[]): string[] {
    return existingPolicies(s, names);
  }

  #checkFreeKey(s: IamSnapshot, accessKey: string): void {
    if (accessKey === this.rootAccessKey()) throw new IamError('ReservedAccessKey');
    if (s.users.has(accessKey)) throw new IamError('UserExists');
    if (s.serviceAccounts.has(accessKey)) throw new IamError('ServiceAccountExists');
  }

  #user(s: IamSnapshot, accessKey: string): UserRecord {
    const u = s.users.get(accessKey);
    if (u === undefined) throw new IamError('NoSuchUser', `The user ${accessKey} does not exist.`);
    return u;
  }

  #serviceAccount(s: IamSnapshot, accessKey: string): ServiceAccountRecord {
    const sa = s.serviceAccounts.get(accessKey)?.record;
    if (sa === undefined) throw new IamError('NoSuchServiceAccount', `The service account ${accessKey} does not exist.`);
    return sa;
  }

  /** Creates a user (`mc admin user add`); UserExists, ReservedAccessKey, NoSuchPolicy, Invalid*. */
  async addUser(accessKey: string, secretKey: string, opts: AddUserOptions = {}): Promise<UserInfo> {
    checkAccessKey(accessKey);
    checkSecretKey(secretKey);
    const status = checkStatus(opts.status ?? 'enabled');
    let created: UserRecord | undefined;
    await this.commit(() => {
      const s = this.snapshot();
      this.#checkFreeKey(s, accessKey);
      created = { accessKey, secretKey, status, policies: this.#checkPoliciesExist(s, opts.policies ?? []), updatedAt: this.#stamp() };
      return [[{ kind: 'user', name: accessKey }, created]];
    });
    return userInfo(created!);
  }

  async #updateUser(accessKey: string, change: (u: UserRecord, s: IamSnapshot) => Partial<UserRecord>): Promise<UserInfo> {
    let updated: UserRecord | undefined;
    await this.commit(() => {
      const s = this.snapshot();
      const u = this.#user(s, accessKey);
      updated = { ...u, ...change(u, s), updatedAt: this.#stamp() };
      return [[{ kind: 'user', name: accessKey }, updated]];
    });
    return userInfo(updated!);
  }

  /** Enables or disables a user (a disabled user and its service accounts cannot sign). */
  async setUserStatus(accessKey: string, status: AccountStatus): Promise<UserInfo> {
    checkStatus(status);
    return this.#updateUser(accessKey, () => ({ status }));
  }

  /** Replaces a user's secret key. */
  async setUserSecret(accessKey: string, secretKey: string): Promise<UserInfo> {
    checkSecretKey(secretKey);
    return this.#updateUser(accessKey, () => ({ secretKey }));
  }

  /** Attaches policies to a user (`mc admin policy attach`); NoSuchPolicy for unknown names. */
  async attachPolicies(accessKey: string, names: readonly string[]): Promise<UserInfo> {
    return this.#updateUser(accessKey, (u, s) => ({ policies: this.#checkPoliciesExist(s, [...u.policies, ...names]) }));
  }

  /** Detaches policies from a user (names not attached are ignored). */
  async detachPolicies(accessKey: string, names: readonly string[]): Promise<UserInfo> {
    return this.#updateUser(accessKey, (u) => ({ policies: u.policies.filter((p) => !names.includes(p)) }));
  }

  /** Removes a user, its service accounts and its group memberships (as MinIO does); NoSuchUser. */
  async removeUser(accessKey: string): Promise<void> {
    await this.commit(() => {
      const s = this.snapshot();
      this.#user(s, accessKey);
      const owned = [...s.serviceAccounts.values()].filter((sa) => sa.record.parent === accessKey);
      return [
        ...owned.map((sa): IamWrite => [{ kind: 'service-account', name: sa.record.accessKey }, undefined]),
        ...groupsWithout(s, accessKey, this.#stamp()).map((g): IamWrite => [{ kind: 'group', name: g.name }, g]),
        [{ kind: 'user', name: accessKey }, undefined],
      ];
    });
  }

  /** One user, without its secret. */
  getUser(accessKey: string): UserInfo | undefined {
    const u = this.snapshot().users.get(accessKey);
    return u === undefined ? undefined : userInfo(u);
  }

  /** Every user, by access key. */
  listUsers(): UserInfo[] {
    return [...this.snapshot().users.values()].map(userInfo).sort((a, b) => (a.accessKey < b.accessKey ? -1 : 1));
  }

  /** Creates or replaces a named policy (`mc admin policy create`); CannedPolicy, MalformedPolicy, InvalidPolicyName. */
  async putPolicy(name: string, policy: string): Promise<PolicyInfo> {
    checkPolicyName(name);
    if (isCannedPolicy(name)) throw new IamError('CannedPolicy');
    checkIdentityPolicy(policy);
    await this.commit(() => {
      this.snapshot();
      return [[{ kind: 'policy', name }, { name, policy, updatedAt: this.#stamp() }]];
    });
    return { name, policy, builtIn: false };
  }

  /** Removes a named policy; CannedPolicy, NoSuchPolicy, PolicyInUse while a user has it attached. */
  async removePolicy(name: string): Promise<void> {
    if (isCannedPolicy(name)) throw new IamError('CannedPolicy');
    await this.commit(() => {
      const s = this.snapshot();
      if (!s.policies.has(name)) throw new IamError('NoSuchPolicy', `The policy ${name} does not exist.`);
      const user = [...s.users.values()].find((u) => u.policies.includes(name));
      if (user !== undefined) throw new IamError('PolicyInUse', `The policy ${name} is attached to user ${user.accessKey}; detach it first.`);
      const group = [...s.groups.values()].find((g) => g.policies.includes(name));
      if (group !== undefined) throw new IamError('PolicyInUse', `The policy ${name} is attached to group ${group.name}; detach it first.`);
      return [[{ kind: 'policy', name }, undefined]];
    });
  }

  /** A built-in or stored policy. */
  getPolicy(name: string): PolicyInfo | undefined {
    if (isCannedPolicy(name)) return { name, policy: cannedPolicyText(name), builtIn: true };
    const p = this.snapshot().policies.get(name);
    return p === undefined ? undefined : { name, policy: p.record.policy, builtIn: false };
  }

  /** Built-in policies first, then the stored ones by name. */
  listPolicies(): PolicyInfo[] {
    const stored = [...this.snapshot().policies.values()].map((p) => ({ name: p.record.name, policy: p.record.policy, builtIn: false }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    return [...CANNED_POLICY_NAMES.map((n) => ({ name: n, policy: cannedPolicyText(n), builtIn: true })), ...stored];
  }

  /** Names of the groups a user belongs to. */
  groupsOf(accessKey: string): string[] {
    return groupsOfUser(this.snapshot(), accessKey);
  }

  async #writeGroup(plan: (s: IamSnapshot, stamp: string) => GroupRecord): Promise<GroupInfo> {
    let updated: GroupRecord | undefined;
    await this.commit(() => {
      updated = plan(this.snapshot(), this.#stamp());
      return [[{ kind: 'group', name: updated.name }, updated]];
    });
    return groupInfo(updated!);
  }

  /** Creates a group or adds members and policies to it (`mc admin group add`); NoSuchUser, NoSuchPolicy, InvalidGroupName. */
  putGroup(name: string, opts: { members?: readonly string[]; policies?: readonly string[] } = {}): Promise<GroupInfo> {
    return this.#writeGroup((s, stamp) => planPutGroup(s, name, opts.members ?? [], opts.policies ?? [], stamp));
  }

  /** Adds, then removes members; NoSuchGroup, NoSuchUser. */
  updateGroupMembers(name: string, add: readonly string[], remove: readonly string[]): Promise<GroupInfo> {
    return this.#writeGroup((s, stamp) => planGroupMembers(s, name, add, remove, stamp));
  }

  /** Attaches, then detaches policies; NoSuchGroup, NoSuchPolicy. */
  updateGroupPolicies(name: string, attach: readonly string[], detach: readonly string[]): Promise<GroupInfo> {
    return this.#writeGroup((s, stamp) => planGroupPolicies(s, name, attach, detach, stamp));
  }

  /** Removes an empty group; NoSuchGroup, GroupNotEmpty. */
  async removeGroup(name: string): Promise<void> {
    await this.commit(() => {
      checkRemoveGroup(this.snapshot(), name);
      return [[{ kind: 'group', name }, undefined]];
    });
  }

  /** One group. */
  getGroup(name: string): GroupInfo | undefined {
    const g = this.snapshot().groups.get(name);
    return g === undefined ? undefined : groupInfo(g);
  }

  /** Every group, by name. */
  listGroups(): GroupInfo[] {
    return [...this.snapshot().groups.values()].map(groupInfo).sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** Creates a service account of `parent` (`mc admin user svcacct add`); the secret is returned this once. */
  async addServiceAccount(opts: AddServiceAccountOptions): Promise<CreatedServiceAccount> {
    const generated = generateCredentials();
    const accessKey = checkAccessKey(opts.accessKey ?? generated.accessKey);
    const secretKey = checkSecretKey(opts.secretKey ?? generated.secretKey);
    const status = checkStatus(opts.status ?? 'enabled');
    const policy = opts.policy === undefined ? undefined : checkIdentityPolicy(opts.policy);
    if (opts.expiration !== undefined && !(opts.expiration.getTime() > this.now().getTime())) throw new IamError('InvalidExpiration');
    let created: ServiceAccountRecord | undefined;
    await this.commit(() => {
      const s = this.snapshot();
      if (opts.parent !== this.rootAccessKey()) this.#user(s, opts.parent);
      this.#checkFreeKey(s, accessKey);
      created = {
        accessKey, secretKey, parent: opts.parent, status, updatedAt: this.#stamp(),
        ...(policy !== undefined ? { policy } : {}),
        ...(opts.expiration !== undefined ? { expiration: opts.expiration.toISOString() } : {}),
      };
      return [[{ kind: 'service-account', name: accessKey }, created]];
    });
    return { ...serviceAccountInfo(created!), secretKey };
  }

  /** Enables or disables a service account. */
  async setServiceAccountStatus(accessKey: string, status: AccountStatus): Promise<ServiceAccountInfo> {
    checkStatus(status);
    let updated: ServiceAccountRecord | undefined;
    await this.commit(() => {
      updated = { ...this.#serviceAccount(this.snapshot(), accessKey), status, updatedAt: this.#stamp() };
      return [[{ kind: 'service-account', name: accessKey }, updated]];
    });
    return serviceAccountInfo(updated!);
  }

  /** Removes a service account; NoSuchServiceAccount. */
  async removeServiceAccount(accessKey: string): Promise<void> {
    await this.commit(() => {
      this.#serviceAccount(this.snapshot(), accessKey);
      return [[{ kind: 'service-account', name: accessKey }, undefined]];
    });
  }

  /** One service account, without its secret. */
  getServiceAccount(accessKey: string): ServiceAccountInfo | undefined {
    const sa = this.snapshot().serviceAccounts.get(accessKey)?.record;
    return sa === undefined ? undefined : serviceAccountInfo(sa);
  }

  /** Service accounts, all or those of one parent. */
  listServiceAccounts(parent?: string): ServiceAccountInfo[] {
    return [...this.snapshot().serviceAccounts.values()].map((sa) => sa.record)
      .filter((sa) => parent === undefined || sa.parent === parent)
      .map(serviceAccountInfo)
      .sort((a, b) => (a.accessKey < b.accessKey ? -1 : 1));
  }
}
