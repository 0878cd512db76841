/**
 * The IAM calls of the admin API (docs/admin-api.md "IAM calls"): users, groups, policies and service accounts,
 * each a thin translation of a JSON body to one IamStore method and of its answer to JSON. Secrets are never
 * answered, except a new service account's, once.
 */
import type { IamStore, ServiceAccountInfo, UserInfo } from '../../iam/index.js';
import { AdminError } from './admin-error.js';
import type { AdminCall } from './router.js';

/** A JSON answer: status and body (undefined for 204). */
export interface AdminAnswer {
  status: number;
  body?: unknown;
}

/** Who is calling: service accounts default to the caller as their parent. */
export interface Caller {
  accessKey: string;
}

function object(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AdminError('InvalidRequest', 'The request body must be a JSON object.');
  return body as Record<string, unknown>;
}

function names(o: Record<string, unknown>, field: string): string[] | undefined {
  const v = o[field];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((x): x is string => typeof x === 'string')) {
    throw new AdminError('InvalidArgument', `${field} must be a list of strings.`);
  }
  return v;
}

function text(o: Record<string, unknown>, field: string, required: boolean): string | undefined {
  const v = o[field];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string') throw new AdminError('InvalidArgument', `${field} must be a string.`);
  return v;
}

function status(o: Record<string, unknown>, required: boolean): 'enabled' | 'disabled' | undefined {
  const v = o['status'];
  if (v === undefined && !required) return undefined;
  if (v !== 'enabled' && v !== 'disabled') throw new AdminError('InvalidArgument', 'status must be "enabled" or "disabled".');
  return v;
}

function userJson(iam: IamStore, u: UserInfo): unknown {
  return { accessKey: u.accessKey, status: u.status, policies: [...u.policies], groups: iam.groupsOf(u.accessKey) };
}

function serviceAccountJson(sa: ServiceAccountInfo, withPolicy: boolean): Record<string, unknown> {
  return {
    accessKey: sa.accessKey, parent: sa.parent, status: sa.status, expiration: sa.expiration ?? null,
    ...(withPolicy ? { policy: sa.policy === undefined ? null : JSON.parse(sa.policy) as unknown } : {}),
  };
}

function found<T>(value: T | undefined, code: 'NoSuchUser' | 'NoSuchGroup' | 'NoSuchPolicy' | 'NoSuchServiceAccount', what: string): T {
  if (value === undefined) throw new AdminError(code, `${what} does not exist.`);
  return value;
}

/** The policy document: the raw body, which must be JSON (a MalformedPolicy otherwise). */
function policyText(raw: Buffer): string {
  const t = raw.toString('utf8');
  try {
    JSON.parse(t);
  } catch {
    throw new AdminError('MalformedPolicy', 'The policy document is not valid JSON.');
  }
  return t;
}

function expiration(o: Record<string, unknown>): Date | undefined {
  const v = text(o, 'expiration', false);
  if (v === undefined) return undefined;
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) throw new AdminError('InvalidArgument', 'expiration must be an ISO 8601 time.');
  return d;
}

/** Runs one IAM call; `body` is the parsed JSON (undefined when none), `raw` the verified bytes. */
export async function runIamCall(iam: IamStore, call: AdminCall, body: unknown, raw: Buffer, caller: Caller): Promise<AdminAnswer> {
  switch (call.op) {
    case 'ListUsers': return { status: 200, body: { users: iam.listUsers().map((u) => userJson(iam, u)) } };
    case 'GetUser': return { status: 200, body: userJson(iam, found(iam.getUser(call.accessKey), 'NoSuchUser', `The user ${call.accessKey}`)) };
    case 'AddUser': {
      const o = object(body);
      const secretKey = text(o, 'secretKey', true)!;
      const policies = names(o, 'policies');
      const st = status(o, false);
      const u = await iam.addUser(call.accessKey, secretKey, { ...(policies ? { policies } : {}), ...(st ? { status: st } : {}) });
      return { status: 200, body: userJson(iam, u) };
    }
    case 'RemoveUser':
      await iam.removeUser(call.accessKey);
      return { status: 204 };
    case 'SetUserStatus':
      return { status: 200, body: userJson(iam, await iam.setUserStatus(call.accessKey, status(object(body), true)!)) };
    case 'UserPolicies': {
      const o = object(body);
      const attach = names(o, 'attach') ?? [];
      const detach = names(o, 'detach') ?? [];
      let u = found(iam.getUser(call.accessKey), 'NoSuchUser', `The user ${call.accessKey}`);
      if (attach.length > 0) u = await iam.attachPolicies(call.accessKey, attach);
      if (detach.length > 0) u = await iam.detachPolicies(call.accessKey, detach);
      return { status: 200, body: userJson(iam, u) };
    }
    case 'ListGroups': return { status: 200, body: { groups: iam.listGroups() } };
    case 'GetGroup': return { status: 200, body: found(iam.getGroup(call.name), 'NoSuchGroup', `The group ${call.name}`) };
    case 'PutGroup': {
      const o = object(body);
      const members = names(o, 'members') ?? [];
      const policies = names(o, 'policies') ?? [];
      return { status: 200, body: await iam.putGroup(call.name, { members, policies }) };
    }
    case 'GroupMembers': {
      const o = object(body);
      return { status: 200, body: await iam.updateGroupMembers(call.name, names(o, 'add') ?? [], names(o, 'remove') ?? []) };
    }
    case 'GroupPolicies': {
      const o = object(body);
      return { status: 200, body: await iam.updateGroupPolicies(call.name, names(o, 'attach') ?? [], names(o, 'detach') ?? []) };
    }
    case 'RemoveGroup':
      await iam.removeGroup(call.name);
      return { status: 204 };
    case 'ListPolicies': return { status: 200, body: { policies: iam.listPolicies().map((p) => ({ name: p.name, canned: p.builtIn })) } };
    case 'GetPolicy': {
      const p = found(iam.getPolicy(call.name), 'NoSuchPolicy', `The policy ${call.name}`);
      return { status: 200, body: { name: p.name, canned: p.builtIn, policy: JSON.parse(p.policy) as unknown } };
    }
    case 'PutPolicy': {
      const p = await iam.putPolicy(call.name, policyText(raw));
      return { status: 200, body: { name: p.name } };
    }
    case 'RemovePolicy':
      await iam.removePolicy(call.name);
      return { status: 204 };
    case 'AddServiceAccount': {
      const o = object(body);
      const policy = o['policy'];
      if (policy !== undefined && (typeof policy !== 'object' || policy === null || Array.isArray(policy))) {
        throw new AdminError('MalformedPolicy', 'policy must be an IAM policy JSON object.');
      }
      const accessKey = text(o, 'accessKey', false);
      const secretKey = text(o, 'secretKey', false);
      const exp = expiration(o);
      const st = status(o, false);
      const sa = await iam.addServiceAccount({
        parent: text(o, 'parent', false) ?? caller.accessKey,
        ...(accessKey !== undefined ? { accessKey } : {}),
        ...(secretKey !== undefined ? { secretKey } : {}),
        ...(policy !== undefined ? { policy: JSON.stringify(policy) } : {}),
        ...(exp !== undefined ? { expiration: exp } : {}),
        ...(st !== undefined ? { status: st } : {}),
      });
      return { status: 200, body: { ...serviceAccountJson(sa, true), secretKey: sa.secretKey } };
    }
    case 'ListServiceAccounts':
      return { status: 200, body: { serviceAccounts: iam.listServiceAccounts(call.parent).map((sa) => serviceAccountJson(sa, false)) } };
    case 'GetServiceAccount':
      return { status: 200, body: serviceAccountJson(found(iam.getServiceAccount(call.accessKey), 'NoSuchServiceAccount', `The service account ${call.accessKey}`), true) };
    case 'RemoveServiceAccount':
      await iam.removeServiceAccount(call.accessKey);
      return { status: 204 };
    case 'ServerInfo':
    case 'HealStatus':
      throw new AdminError('NotFound');
    default: return call satisfies never;
  }
}
