/** Fuzzing the policy JSON parsers (issue 10 Must show 3): bucket and identity policies return or throw MalformedPolicyError. */
import { test } from 'node:test';
import { MalformedPolicyError, parseIdentityPolicy, parsePolicy } from '../../src/iam/index.js';
import { fc, fuzz, mutated, RUNS, survives, tokenish } from './harness.js';

const SAMPLES = [
  JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: '*', Action: ['s3:GetObject'], Resource: ['arn:aws:s3:::b/*'] }] }),
  JSON.stringify({ Version: '2012-10-17', Statement: [{ Sid: 'x', Effect: 'Deny', Principal: { AWS: ['*'] }, Action: 's3:*', Resource: 'arn:aws:s3:::b',
    Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' }, StringLike: { 's3:prefix': ['a/*'] }, Bool: { 'aws:SecureTransport': 'false' } } }] }),
  JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: ['admin:*', 's3:ListBucket'], Resource: ['arn:aws:s3:::*'] }] }),
];

/** JSON documents shaped like policies, with random values where the parser looks. */
const policyShaped = fc.record({
  Version: fc.oneof(fc.constant('2012-10-17'), fc.string()),
  Statement: fc.oneof(fc.jsonValue(), fc.array(fc.record({
    Effect: fc.oneof(fc.constantFrom('Allow', 'Deny'), fc.jsonValue()),
    Principal: fc.oneof(fc.constant('*'), fc.jsonValue()),
    Action: fc.oneof(fc.constantFrom('s3:*', 's3:GetObject', 'admin:ServerInfo'), fc.array(fc.string()), fc.jsonValue()),
    Resource: fc.oneof(fc.constantFrom('arn:aws:s3:::b/*', 'arn:aws:s3:::*'), fc.jsonValue()),
    Condition: fc.oneof(fc.jsonValue(), fc.dictionary(fc.constantFrom('IpAddress', 'StringLike', 'Bool', 'NotIpAddress', 'X'),
      fc.dictionary(fc.constantFrom('aws:SourceIp', 's3:prefix', 'aws:SecureTransport'), fc.oneof(fc.string(), fc.array(fc.string()))))),
  }, { requiredKeys: [] }), { maxLength: 3 })),
}, { requiredKeys: [] }).map((o) => JSON.stringify(o));

const text = fc.oneof(policyShaped, mutated(SAMPLES, '{}[]":,*/ '), tokenish('{}[]":,'), fc.jsonValue().map((v) => JSON.stringify(v)));
const malformed = (e: unknown): boolean => e instanceof MalformedPolicyError;

test(`bucket policy JSON: ${RUNS} inputs, only MalformedPolicy`, () => {
  fuzz('policy-bucket', text, (s) => survives((x: string) => parsePolicy(x, 'b'), malformed, s), (s) => s);
});

test(`identity policy JSON: ${RUNS} inputs, only MalformedPolicy`, () => {
  fuzz('policy-identity', text, (s) => survives(parseIdentityPolicy, malformed, s), (s) => s);
});
