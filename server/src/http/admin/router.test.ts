import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AdminError } from './admin-error.js';
import { requiredActions, resolveAdminCall } from './router.js';

test('resolveAdminCall: every documented call, decoded names, and undefined for anything else', () => {
  const r = (m: string, p: string, q: Record<string, string> = {}) => resolveAdminCall(m, p, q);
  assert.deepEqual(r('GET', 'info'), { op: 'ServerInfo' });
  assert.deepEqual(r('GET', 'heal-status'), { op: 'HealStatus' });
  assert.deepEqual(r('PUT', 'users/a%40b'), { op: 'AddUser', accessKey: 'a@b' });
  assert.deepEqual(r('POST', 'users/a/status'), { op: 'SetUserStatus', accessKey: 'a' });
  assert.deepEqual(r('POST', 'users/a/policies'), { op: 'UserPolicies', accessKey: 'a' });
  assert.deepEqual(r('DELETE', 'groups/g'), { op: 'RemoveGroup', name: 'g' });
  assert.deepEqual(r('POST', 'groups/g/members'), { op: 'GroupMembers', name: 'g' });
  assert.deepEqual(r('PUT', 'policies/p'), { op: 'PutPolicy', name: 'p' });
  assert.deepEqual(r('GET', 'service-accounts', { parent: 'u' }), { op: 'ListServiceAccounts', parent: 'u' });
  assert.deepEqual(r('GET', 'service-accounts'), { op: 'ListServiceAccounts' });
  assert.deepEqual(r('DELETE', 'service-accounts/k'), { op: 'RemoveServiceAccount', accessKey: 'k' });
  for (const [m, p] of [['POST', 'info'], ['GET', 'info/x'], ['GET', ''], ['GET', 'users/'], ['GET', 'users//status'], ['PUT', 'users'],
    ['GET', 'users/a/status'], ['POST', 'users/a/other'], ['GET', 'policies/p/x'], ['PATCH', 'groups/g'], ['GET', 'nothing']] as const) {
    assert.equal(r(m, p), undefined, `${m} ${p}`);
  }
  assert.throws(() => r('GET', 'users/%E0%A4%A'), (e: unknown) => e instanceof AdminError && e.code === 'InvalidArgument');
});

test('requiredActions: MinIO action names, body-dependent for status and members', () => {
  assert.deepEqual(requiredActions({ op: 'ServerInfo' }, undefined), ['admin:ServerInfo']);
  assert.deepEqual(requiredActions({ op: 'SetUserStatus', accessKey: 'a' }, { status: 'disabled' }), ['admin:DisableUser']);
  assert.deepEqual(requiredActions({ op: 'SetUserStatus', accessKey: 'a' }, { status: 'enabled' }), ['admin:EnableUser']);
  assert.deepEqual(requiredActions({ op: 'GroupMembers', name: 'g' }, { add: ['a'], remove: ['b'] }), ['admin:AddUserToGroup', 'admin:RemoveUserFromGroup']);
  assert.deepEqual(requiredActions({ op: 'GroupMembers', name: 'g' }, { remove: ['b'] }), ['admin:RemoveUserFromGroup']);
  assert.deepEqual(requiredActions({ op: 'GetServiceAccount', accessKey: 'k' }, undefined), ['admin:ListServiceAccounts']);
  assert.deepEqual(requiredActions({ op: 'UserPolicies', accessKey: 'a' }, {}), ['admin:AttachUserOrGroupPolicy']);
});
