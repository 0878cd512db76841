/**
 * Pure routing of the admin API (docs/admin-api.md): (method, path under `/svc/admin/v3/`, query) → one call,
 * and the admin actions (MinIO's names) each call needs. Unknown paths or methods resolve to undefined (404).
 */
import { AdminError } from './admin-error.js';

/** URL prefix of the admin API on the S3 port. */
export const ADMIN_PREFIX = '/svc/admin/v3';

/** One admin call with its decoded path parameters. */
export type AdminCall =
  | { readonly op: 'ServerInfo' }
  | { readonly op: 'HealStatus' }
  | { readonly op: 'ListUsers' }
  | { readonly op: 'AddUser'; readonly accessKey: string }
  | { readonly op: 'GetUser'; readonly accessKey: string }
  | { readonly op: 'RemoveUser'; readonly accessKey: string }
  | { readonly op: 'SetUserStatus'; readonly accessKey: string }
  | { readonly op: 'UserPolicies'; readonly accessKey: string }
  | { readonly op: 'ListGroups' }
  | { readonly op: 'GetGroup'; readonly name: string }
  | { readonly op: 'PutGroup'; readonly name: string }
  | { readonly op: 'GroupMembers'; readonly name: string }
  | { readonly op: 'GroupPolicies'; readonly name: string }
  | { readonly op: 'RemoveGroup'; readonly name: string }
  | { readonly op: 'ListPolicies' }
  | { readonly op: 'PutPolicy'; readonly name: string }
  | { readonly op: 'GetPolicy'; readonly name: string }
  | { readonly op: 'RemovePolicy'; readonly name: string }
  | { readonly op: 'AddServiceAccount' }
  | { readonly op: 'ListServiceAccounts'; readonly parent?: string }
  | { readonly op: 'GetServiceAccount'; readonly accessKey: string }
  | { readonly op: 'RemoveServiceAccount'; readonly accessKey: string };

/** Calls whose request carries a JSON body. */
export const BODY_CALLS: ReadonlySet<AdminCall['op']> = new Set([
  'AddUser', 'SetUserStatus', 'UserPolicies', 'PutGroup', 'GroupMembers', 'GroupPolicies', 'PutPolicy', 'AddServiceAccount',
]);

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new AdminError('InvalidArgument', `The path segment "${segment}" is not valid percent-encoding.`);
  }
}

/**
 * The call of `method` on `path` (relative to the prefix, no leading slash, still percent-encoded), or
 * undefined when there is none.
 */
export function resolveAdminCall(method: string, path: string, query: Readonly<Record<string, string>>): AdminCall | undefined {
  const parts = path.split('/');
  if (parts.some((p) => p === '')) return undefined;
  const [head, rawName, sub, ...rest] = parts;
  if (rest.length > 0) return undefined;
  const name = rawName === undefined ? undefined : decode(rawName);
  const m = method === 'HEAD' ? 'GET' : method;
  switch (head) {
    case 'info': return name === undefined && m === 'GET' ? { op: 'ServerInfo' } : undefined;
    case 'heal-status': return name === undefined && m === 'GET' ? { op: 'HealStatus' } : undefined;
    case 'users': {
      if (name === undefined) return m === 'GET' ? { op: 'ListUsers' } : undefined;
      if (sub === undefined) {
        if (m === 'GET') return { op: 'GetUser', accessKey: name };
        if (m === 'PUT') return { op: 'AddUser', accessKey: name };
        if (m === 'DELETE') return { op: 'RemoveUser', accessKey: name };
        return undefined;
      }
      if (m !== 'POST') return undefined;
      if (sub === 'status') return { op: 'SetUserStatus', accessKey: name };
      if (sub === 'policies') return { op: 'UserPolicies', accessKey: name };
      return undefined;
    }
    case 'groups': {
      if (name === undefined) return m === 'GET' ? { op: 'ListGroups' } : undefined;
      if (sub === undefined) {
        if (m === 'GET') return { op: 'GetGroup', name };
        if (m === 'PUT') return { op: 'PutGroup', name };
        if (m === 'DELETE') return { op: 'RemoveGroup', name };
        return undefined;
      }
      if (m !== 'POST') return undefined;
      if (sub === 'members') return { op: 'GroupMembers', name };
      if (sub === 'policies') return { op: 'GroupPolicies', name };
      return undefined;
    }
    case 'policies': {
      if (sub !== undefined) return undefined;
      if (name === undefined) return m === 'GET' ? { op: 'ListPolicies' } : undefined;
      if (m === 'GET') return { op: 'GetPolicy', name };
      if (m === 'PUT') return { op: 'PutPolicy', name };
      if (m === 'DELETE') return { op: 'RemovePolicy', name };
      return undefined;
    }
    case 'service-accounts': {
      if (sub !== undefined) return undefined;
      if (name === undefined) {
        if (m === 'PUT') return { op: 'AddServiceAccount' };
        if (m === 'GET') return query['parent'] !== undefined && query['parent'] !== '' ? { op: 'ListServiceAccounts', parent: query['parent'] } : { op: 'ListServiceAccounts' };
        return undefined;
      }
      if (m === 'GET') return { op: 'GetServiceAccount', accessKey: name };
      if (m === 'DELETE') return { op: 'RemoveServiceAccount', accessKey: name };
      return undefined;
    }
    default: return undefined;
  }
}

function listOf(body: unknown, field: string): unknown[] {
  const v = (body as Record<string, unknown> | undefined)?.[field];
  return Array.isArray(v) ? v : [];
}

/**
 * The admin actions a call needs (docs/admin-api.md "Permissions"), all of them required. Calls whose action
 * depends on the body (enable vs disable, add vs remove members) are decided on the parsed body.
 */
export function requiredActions(call: AdminCall, body: unknown): string[] {
  switch (call.op) {
    case 'ServerInfo': return ['admin:ServerInfo'];
    case 'HealStatus': return ['admin:Heal'];
    case 'ListUsers': return ['admin:ListUsers'];
    case 'GetUser': return ['admin:GetUser'];
    case 'AddUser': return ['admin:CreateUser'];
    case 'RemoveUser': return ['admin:DeleteUser'];
    case 'SetUserStatus':
      return [(body as { status?: unknown } | undefined)?.status === 'disabled' ? 'admin:DisableUser' : 'admin:EnableUser'];
    case 'UserPolicies':
    case 'GroupPolicies':
      return ['admin:AttachUserOrGroupPolicy'];
    case 'ListGroups': return ['admin:ListGroups'];
    case 'GetGroup': return ['admin:GetGroup'];
    case 'PutGroup': return ['admin:AddUserToGroup'];
    case 'GroupMembers': {
      const actions: string[] = [];
      if (listOf(body, 'add').length > 0) actions.push('admin:AddUserToGroup');
      if (listOf(body, 'remove').length > 0) actions.push('admin:RemoveUserFromGroup');
      return actions.length > 0 ? actions : ['admin:AddUserToGroup'];
    }
    // MinIO removes a group with the RemoveUserFromGroup action.
    case 'RemoveGroup': return ['admin:RemoveUserFromGroup'];
    case 'ListPolicies': return ['admin:ListUserPolicies'];
    case 'GetPolicy': return ['admin:GetPolicy'];
    case 'PutPolicy': return ['admin:CreatePolicy'];
    case 'RemovePolicy': return ['admin:DeletePolicy'];
    case 'AddServiceAccount': return ['admin:CreateServiceAccount'];
    case 'ListServiceAccounts':
    case 'GetServiceAccount':
      return ['admin:ListServiceAccounts'];
    case 'RemoveServiceAccount': return ['admin:RemoveServiceAccount'];
    default: return call satisfies never;
  }
}
