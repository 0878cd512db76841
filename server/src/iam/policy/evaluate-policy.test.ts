import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePolicy } from './parse-policy.js';
import { conditionHolds, evaluatePolicy, isPublicPolicy } from './evaluate-policy.js';
import type { PolicyDecision, PolicyRequest } from './policy-types.js';

const policy = parsePolicy(JSON.stringify({
  Version: '2012-10-17',
  Statement: [
    { Sid: 'read-public', Effect: 'Allow', Principal: '*', Action: ['s3:GetObject'], Resource: 'arn:aws:s3:::site/public/*' },
    { Sid: 'no-secrets', Effect: 'Deny', Principal: '*', Action: 's3:*', Resource: 'arn:aws:s3:::site/public/secret*' },
    {
      Sid: 'list-public', Effect: 'Allow', Principal: { AWS: ['*'] }, Action: 's3:ListBucket', Resource: 'arn:aws:s3:::site',
      Condition: { StringLike: { 's3:prefix': ['public/*', ''] } },
    },
    {
      Sid: 'upload-from-lan', Effect: 'Allow', Principal: '*', Action: 's3:PutObject', Resource: 'arn:aws:s3:::site/inbox/*',
      Condition: { IpAddress: { 'aws:SourceIp': ['127.0.0.0/8', '::1'] } },
    },
    {
      Sid: 'not-from-outside', Effect: 'Deny', Principal: '*', Action: 's3:PutObject', Resource: 'arn:aws:s3:::site/inbox/*',
      Condition: { NotIpAddress: { 'aws:SourceIp': '127.0.0.0/8' } },
    },
    { Sid: 'key-user', Effect: 'Allow', Principal: { AWS: 'AKIAUSER' }, Action: 's3:Delete*', Resource: 'arn:aws:s3:::site/*' },
  ],
}), 'site');

const anon = { anonymous: true } as const;
const req = (action: string, resource: string, context: PolicyRequest['context'] = {}, principal: PolicyRequest['principal'] = anon): PolicyRequest =>
  ({ principal, action, resource, context });

const cases: Array<[string, PolicyRequest, PolicyDecision]> = [
  ['anonymous GET of a public key', req('s3:GetObject', 'arn:aws:s3:::site/public/a.html'), 'allow'],
  ['action names compare case-insensitively', req('s3:getobject', 'arn:aws:s3:::site/public/a.html'), 'allow'],
  ['anonymous GET outside the prefix', req('s3:GetObject', 'arn:aws:s3:::site/private/a'), 'implicit-deny'],
  ['resources compare case-sensitively', req('s3:GetObject', 'arn:aws:s3:::site/Public/a'), 'implicit-deny'],
  ['Deny beats Allow', req('s3:GetObject', 'arn:aws:s3:::site/public/secret.txt'), 'deny'],
  ['anonymous PUT to a public prefix', req('s3:PutObject', 'arn:aws:s3:::site/public/x'), 'implicit-deny'],
  ['listing with an allowed prefix', req('s3:ListBucket', 'arn:aws:s3:::site', { 's3:prefix': 'public/' }), 'allow'],
  ['listing the root (empty prefix)', req('s3:ListBucket', 'arn:aws:s3:::site', { 's3:prefix': '' }), 'allow'],
  ['listing another prefix', req('s3:ListBucket', 'arn:aws:s3:::site', { 's3:prefix': 'private/' }), 'implicit-deny'],
  ['listing without the prefix key', req('s3:ListBucket', 'arn:aws:s3:::site'), 'implicit-deny'],
  ['upload from loopback', req('s3:PutObject', 'arn:aws:s3:::site/inbox/f', { 'aws:sourceip': '127.0.0.1' }), 'allow'],
  ['upload from mapped loopback', req('s3:PutObject', 'arn:aws:s3:::site/inbox/f', { 'aws:sourceip': '::ffff:127.0.0.1' }), 'allow'],
  ['upload from IPv6 loopback: allowed, then denied by NotIpAddress', req('s3:PutObject', 'arn:aws:s3:::site/inbox/f', { 'aws:sourceip': '::1' }), 'deny'],
  ['upload from elsewhere', req('s3:PutObject', 'arn:aws:s3:::site/inbox/f', { 'aws:sourceip': '192.0.2.1' }), 'deny'],
  ['upload with no source address', req('s3:PutObject', 'arn:aws:s3:::site/inbox/f'), 'deny'],
  ['a named principal is not anonymous', req('s3:DeleteObject', 'arn:aws:s3:::site/x'), 'implicit-deny'],
  ['a named principal matches its access key', req('s3:DeleteObject', 'arn:aws:s3:::site/x', {}, { anonymous: false, accessKey: 'AKIAUSER' }), 'allow'],
  ['another access key', req('s3:DeleteObject', 'arn:aws:s3:::site/x', {}, { anonymous: false, accessKey: 'AKIAOTHER' }), 'implicit-deny'],
];
for (const [name, request, expected] of cases) {
  test(`evaluatePolicy: ${name} → ${expected}`, () => {
    assert.equal(evaluatePolicy(policy, request), expected);
  });
}

test('NotAction, NotResource and NotPrincipal invert their element', () => {
  const p = parsePolicy(JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      { Effect: 'Allow', Principal: '*', NotAction: 's3:Delete*', NotResource: 'arn:aws:s3:::b/private/*' },
      { Effect: 'Deny', NotPrincipal: { AWS: 'AKIAADMIN' }, Action: 's3:PutObject', Resource: 'arn:aws:s3:::b/locked/*' },
    ],
  }), 'b');
  assert.equal(evaluatePolicy(p, req('s3:GetObject', 'arn:aws:s3:::b/x')), 'allow');
  assert.equal(evaluatePolicy(p, req('s3:DeleteObject', 'arn:aws:s3:::b/x')), 'implicit-deny');
  assert.equal(evaluatePolicy(p, req('s3:GetObject', 'arn:aws:s3:::b/private/x')), 'implicit-deny');
  assert.equal(evaluatePolicy(p, req('s3:PutObject', 'arn:aws:s3:::b/locked/x')), 'deny');
  assert.equal(evaluatePolicy(p, req('s3:PutObject', 'arn:aws:s3:::b/locked/x', {}, { anonymous: false, accessKey: 'AKIAADMIN' })), 'allow');
});

const conditionCases: Array<[string, PolicyRequest['context'], boolean]> = [
  ['StringEquals', { 's3:prefix': 'a' }, true],
  ['StringEquals', { 's3:prefix': 'A' }, false],
  ['StringEquals', {}, false],
  ['StringNotEquals', { 's3:prefix': 'b' }, true],
  ['StringNotEquals', {}, true],
  ['StringNotEquals', { 's3:prefix': 'a' }, false],
  ['StringEqualsIgnoreCase', { 's3:prefix': 'A' }, true],
  ['StringNotEqualsIgnoreCase', { 's3:prefix': 'A' }, false],
  ['StringLike', { 's3:prefix': 'a' }, true],
  ['StringNotLike', { 's3:prefix': 'a' }, false],
  ['StringNotLike', {}, true],
];
for (const [operator, context, expected] of conditionCases) {
  test(`conditionHolds ${operator} "a" with ${JSON.stringify(context)} → ${expected}`, () => {
    assert.equal(conditionHolds({ operator: operator as 'StringEquals', key: 's3:prefix', values: ['a'] }, context), expected);
  });
}

test('Bool compares true/false; aws:SecureTransport false matches plain HTTP', () => {
  const c = { operator: 'Bool', key: 'aws:securetransport', values: ['false'] } as const;
  assert.equal(conditionHolds(c, { 'aws:securetransport': 'false' }), true);
  assert.equal(conditionHolds(c, { 'aws:securetransport': 'true' }), false);
  assert.equal(conditionHolds(c, {}), false);
});

test('isPublicPolicy: an unconditioned Allow for everyone; source-address limits make it private', () => {
  assert.equal(isPublicPolicy(policy), true);
  const lan = parsePolicy(JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      { Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: 'arn:aws:s3:::b/*', Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } } },
      { Effect: 'Deny', Principal: '*', Action: 's3:*', Resource: 'arn:aws:s3:::b/*' },
      { Effect: 'Allow', Principal: { AWS: 'AKIAX' }, Action: 's3:*', Resource: 'arn:aws:s3:::b/*' },
    ],
  }), 'b');
  assert.equal(isPublicPolicy(lan), false);
});
