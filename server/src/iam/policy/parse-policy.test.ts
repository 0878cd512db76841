import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MalformedPolicyError } from './policy-errors.js';
import { MAX_POLICY_BYTES, parseIdentityPolicy, parsePolicy } from './parse-policy.js';

const stmt = (extra: Record<string, unknown> = {}): Record<string, unknown> =>
  ({ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: 'arn:aws:s3:::bkt/*', ...extra });
const doc = (statement: unknown, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ Version: '2012-10-17', Statement: statement, ...extra });

test('parsePolicy normalizes single values to lists and keeps every element', () => {
  const p = parsePolicy(doc([
    stmt({ Sid: 'public' }),
    {
      Effect: 'Deny', NotPrincipal: { AWS: ['arn:aws:iam::123:user/AKIA1'] }, NotAction: ['s3:Get*', 's3:List*'],
      NotResource: 'arn:aws:s3:::bkt', Condition: { NotIpAddress: { 'aws:SourceIp': '10.0.0.0/8' }, Bool: { 'aws:SecureTransport': false } },
    },
  ], { Id: 'p1' }), 'bkt');
  assert.deepEqual(p, {
    version: '2012-10-17',
    id: 'p1',
    statements: [
      { sid: 'public', effect: 'Allow', principal: { kind: 'any' }, actions: ['s3:GetObject'], resources: ['arn:aws:s3:::bkt/*'], conditions: [] },
      {
        effect: 'Deny', notPrincipal: { kind: 'named', values: { AWS: ['arn:aws:iam::123:user/AKIA1'] } }, notActions: ['s3:Get*', 's3:List*'],
        notResources: ['arn:aws:s3:::bkt'],
        conditions: [
          { operator: 'NotIpAddress', key: 'aws:sourceip', values: ['10.0.0.0/8'] },
          { operator: 'Bool', key: 'aws:securetransport', values: ['false'] },
        ],
      },
    ],
  });
  assert.deepEqual(parsePolicy(doc(stmt({ Principal: { AWS: '*' } })), 'bkt').statements[0]?.principal, { kind: 'any' });
  assert.equal(parsePolicy(doc(stmt({ Action: '*', Resource: ['arn:aws:s3:::b*', 'arn:aws:s3:::bkt'] })), 'bkt').statements.length, 1);
  assert.equal(parsePolicy(JSON.stringify({ Version: '2008-10-17', Statement: stmt() }), 'bkt').version, '2008-10-17');
});

const malformed: Array<[string, string, RegExp]> = [
  ['not JSON', '{"Version":', /valid JSON/],
  ['not an object', '["x"]', /first byte must be '\{'/],
  ['a JSON string', '"{}"', /first byte/],
  ['an unknown top-level element', doc(stmt(), { Extra: 1 }), /^Unknown field Extra$/],
  ['an unknown statement element', doc(stmt({ Whatever: 1 })), /^Unknown field Whatever$/],
  ['no version', JSON.stringify({ Statement: stmt() }), /valid version/],
  ['a bad version', doc(stmt(), { Version: '2020-01-01' }), /valid version/],
  ['no statement', JSON.stringify({ Version: '2012-10-17' }), /Missing required field Statement/],
  ['an empty statement list', doc([]), /Statement is empty/],
  ['no effect', doc(stmt({ Effect: undefined })), /Missing required field Effect/],
  ['a bad effect', doc(stmt({ Effect: 'Maybe' })), /Effect/],
  ['no principal', doc(stmt({ Principal: undefined })), /Missing required field Principal/],
  ['Principal and NotPrincipal', doc(stmt({ NotPrincipal: '*' })), /not both/],
  ['an unknown principal type', doc(stmt({ Principal: { Alien: 'x' } })), /Invalid principal/],
  ['a principal string other than *', doc(stmt({ Principal: 'someone' })), /Invalid principal/],
  ['no action', doc(stmt({ Action: undefined })), /Missing required field Action/],
  ['an empty action list', doc(stmt({ Action: [] })), /Action must be/],
  ['an unknown action', doc(stmt({ Action: 's3:GetObjekt' })), /invalid action/],
  ['a wildcard matching no action', doc(stmt({ Action: 's3:Fly*' })), /invalid action/],
  ['another service', doc(stmt({ Action: 'ec2:StartInstances' })), /invalid action/],
  ['no resource', doc(stmt({ Resource: undefined })), /Missing required field Resource/],
  ['a resource of another bucket', doc(stmt({ Resource: 'arn:aws:s3:::other/*' })), /invalid resource/],
  ['a resource that is not an S3 ARN', doc(stmt({ Resource: 'arn:aws:sqs:::bkt' })), /invalid resource/],
  ['an unknown condition operator', doc(stmt({ Condition: { NumericLessThan: { 's3:max-keys': '10' } } })), /Invalid Condition type/],
  ['an unknown condition key', doc(stmt({ Condition: { StringEquals: { 's3:x-amz-acl': 'public-read' } } })), /invalid condition key/],
  ['a bad CIDR', doc(stmt({ Condition: { IpAddress: { 'aws:SourceIp': '300.0.0.1/8' } } })), /Invalid IP address/],
  ['IpAddress on another key', doc(stmt({ Condition: { IpAddress: { 's3:prefix': '10.0.0.0/8' } } })), /aws:SourceIp only/],
  ['a non-boolean Bool', doc(stmt({ Condition: { Bool: { 'aws:SecureTransport': 'yes' } } })), /true or false/],
  ['an object as condition value', doc(stmt({ Condition: { StringLike: { 's3:prefix': { a: 1 } } } })), /must be strings/],
  ['a too large document', doc(stmt({ Sid: 'x'.repeat(MAX_POLICY_BYTES) })), /must not exceed/],
];
for (const [name, text, message] of malformed) {
  test(`parsePolicy refuses ${name}`, () => {
    assert.throws(() => parsePolicy(text, 'bkt'), (e: unknown) => {
      assert.ok(e instanceof MalformedPolicyError, String(e));
      assert.match(e.message, message);
      return true;
    });
  });
}

test('parseIdentityPolicy: no Principal, any S3 resource, admin/kms actions, resourceless admin statements', () => {
  const p = parseIdentityPolicy(doc([
    { Effect: 'Allow', Action: 's3:GetObject', Resource: ['arn:aws:s3:::any-bucket/*', 'arn:aws:s3:::*'] },
    { Effect: 'Allow', Action: ['admin:*', 'kms:*'] },
    { Effect: 'Deny', NotAction: 's3:Get*', Resource: '*' },
  ]));
  assert.deepEqual(p.statements.map((s) => s.principal), [{ kind: 'any' }, { kind: 'any' }, { kind: 'any' }]);
  assert.deepEqual(p.statements[1]?.resources, ['*']);
  assert.deepEqual(p.statements[2]?.notActions, ['s3:Get*']);
});

const badIdentity: Array<[string, string, RegExp]> = [
  ['a Principal', doc(stmt()), /should not specify a principal/],
  ['a NotPrincipal', doc({ Effect: 'Allow', NotPrincipal: '*', Action: 's3:GetObject', Resource: '*' }), /should not specify a principal/],
  ['an S3 action without Resource', doc({ Effect: 'Allow', Action: ['s3:GetObject', 'admin:*'] }), /Missing required field Resource/],
  ['a resource of another service', doc({ Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:sqs:::q' }), /invalid resource/],
  ['a bare S3 ARN prefix', doc({ Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::' }), /invalid resource/],
  ['another service action', doc({ Effect: 'Allow', Action: 'ec2:Run', Resource: '*' }), /invalid action/],
  ['admin actions in a bucket policy', doc(stmt({ Action: 'admin:*' })), /invalid action/],
];
for (const [name, text, message] of badIdentity) {
  test(`parseIdentityPolicy refuses ${name}`, () => {
    const parse = name.includes('bucket policy') ? () => parsePolicy(text, 'bkt') : () => parseIdentityPolicy(text);
    assert.throws(parse, (e: unknown) => e instanceof MalformedPolicyError && message.test(e.message));
  });
}
