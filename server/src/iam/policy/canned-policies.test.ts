import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CANNED_POLICY_NAMES, cannedPolicy, cannedPolicyText, isCannedPolicy } from './canned-policies.js';
import { evaluatePolicy } from './evaluate-policy.js';
import type { PolicyDecision } from './policy-types.js';

const user = { anonymous: false, accessKey: 'someone' } as const;
const decide = (name: (typeof CANNED_POLICY_NAMES)[number], action: string, resource = 'arn:aws:s3:::b/k'): PolicyDecision =>
  evaluatePolicy(cannedPolicy(name), { principal: user, action, resource, context: {} });

test('the five built-in policies parse and are recognized by name only', () => {
  assert.deepEqual([...CANNED_POLICY_NAMES].sort(), ['consoleAdmin', 'diagnostics', 'readonly', 'readwrite', 'writeonly']);
  for (const n of CANNED_POLICY_NAMES) assert.equal(JSON.parse(cannedPolicyText(n)).Version, '2012-10-17');
  assert.equal(isCannedPolicy('readonly'), true);
  assert.equal(isCannedPolicy('ReadOnly'), false);
  assert.equal(isCannedPolicy('toString'), false);
});

const grants: Array<[(typeof CANNED_POLICY_NAMES)[number], string, PolicyDecision]> = [
  ['readonly', 's3:GetObject', 'allow'],
  ['readonly', 's3:GetBucketLocation', 'allow'],
  ['readonly', 's3:ListBucket', 'implicit-deny'],
  ['readonly', 's3:PutObject', 'implicit-deny'],
  ['writeonly', 's3:PutObject', 'allow'],
  ['writeonly', 's3:GetObject', 'implicit-deny'],
  ['readwrite', 's3:DeleteObject', 'allow'],
  ['readwrite', 'admin:ServerInfo', 'implicit-deny'],
  ['diagnostics', 'admin:ServerInfo', 'allow'],
  ['diagnostics', 'admin:CreateUser', 'implicit-deny'],
  ['diagnostics', 's3:GetObject', 'implicit-deny'],
  ['consoleAdmin', 'admin:CreateUser', 'allow'],
  ['consoleAdmin', 'kms:KeyStatus', 'allow'],
  ['consoleAdmin', 's3:PutBucketPolicy', 'allow'],
];
for (const [name, action, expected] of grants) {
  test(`built-in ${name}: ${action} → ${expected}`, () => assert.equal(decide(name, action), expected));
}
