import { test } from 'node:test';
import assert from 'node:assert/strict';
import { S3Error, type S3ErrorCode } from '../s3-error.js';
import {
  corsResponseHeaders, matchActual, matchPreflight, parseRequestHeaders, validateCorsRules, wildcardMatch, type CorsMethod, type CorsRule,
} from './cors-rules.js';

function rule(r: Partial<CorsRule>): CorsRule {
  return { allowedOrigins: ['*'], allowedMethods: ['GET'], allowedHeaders: [], exposeHeaders: [], ...r };
}

const invalid: Array<[string, CorsRule[], S3ErrorCode, RegExp?]> = [
  ['no rule', [], 'MalformedXML'],
  ['101 rules', Array.from({ length: 101 }, () => rule({})), 'MalformedXML'],
  ['no origin', [rule({ allowedOrigins: [] })], 'MalformedXML'],
  ['no method', [rule({ allowedMethods: [] })], 'MalformedXML'],
  ['unknown method', [rule({ allowedMethods: ['PATCH' as CorsMethod] })], 'InvalidRequest', /Unsupported method is PATCH$/],
  ['lowercase method', [rule({ allowedMethods: ['get' as CorsMethod] })], 'InvalidRequest'],
  ['two wildcards in an origin', [rule({ allowedOrigins: ['http://*.*.com'] })], 'InvalidRequest', /^AllowedOrigin "http:\/\/\*\.\*\.com" can not have more than one wildcard\.$/],
  ['two wildcards in a header', [rule({ allowedHeaders: ['x-*-*'] })], 'InvalidRequest', /^AllowedHeader "x-\*-\*"/],
  ['wildcard in an expose header', [rule({ exposeHeaders: ['x-amz-*'] })], 'InvalidRequest', /contains wildcard/],
  ['ID over 255', [rule({ id: 'i'.repeat(256) })], 'InvalidArgument'],
];

for (const [name, rules, code, message] of invalid) {
  test(`validateCorsRules refuses ${name} with ${code}`, () => {
    assert.throws(() => validateCorsRules(rules), (e: unknown) => {
      assert.ok(e instanceof S3Error);
      assert.equal(e.code, code);
      if (message !== undefined) assert.match(e.message, message);
      return true;
    });
  });
}

test('validateCorsRules accepts 100 full rules', () => {
  const full = rule({
    id: 'i'.repeat(255), allowedOrigins: ['https://*.example.com', '*'], allowedMethods: ['GET', 'PUT', 'POST', 'DELETE', 'HEAD'],
    allowedHeaders: ['*', 'x-amz-*'], exposeHeaders: ['ETag', 'x-amz-request-id'], maxAgeSeconds: 3000,
  });
  validateCorsRules(Array.from({ length: 100 }, () => full));
});

const wildcardCases: Array<[string, string, boolean]> = [
  ['*', '', true],
  ['*', 'https://anything', true],
  ['https://a.com', 'https://a.com', true],
  ['https://a.com', 'https://A.com', false],
  ['https://*.a.com', 'https://x.y.a.com', true],
  ['https://*.a.com', 'https://.a.com', true],
  ['https://*.a.com', 'https://a.com', false],
  ['https://*.a.com', 'http://x.a.com', false],
  ['http://*', 'http://', true],
  ['x-*-y', 'x-y', false],
];
for (const [pattern, value, expected] of wildcardCases) {
  test(`wildcardMatch(${JSON.stringify(pattern)}, ${JSON.stringify(value)}) is ${expected}`, () => {
    assert.equal(wildcardMatch(pattern, value), expected);
  });
}

const rules: CorsRule[] = [
  rule({ id: 'site', allowedOrigins: ['https://*.example.com'], allowedMethods: ['PUT', 'POST'], allowedHeaders: ['Content-Type', 'x-amz-*'], exposeHeaders: ['ETag'], maxAgeSeconds: 600 }),
  rule({ id: 'public', allowedOrigins: ['*'], allowedMethods: ['GET', 'HEAD'] }),
];

test('matchPreflight: the first rule matching origin, method and every requested header', () => {
  assert.equal(matchPreflight(rules, { origin: 'https://app.example.com', method: 'PUT', headers: ['content-type', 'x-amz-date'] })?.id, 'site');
  assert.equal(matchPreflight(rules, { origin: 'https://app.example.com', method: 'PUT', headers: ['x-other'] }), undefined);
  assert.equal(matchPreflight(rules, { origin: 'https://evil.com', method: 'PUT', headers: [] }), undefined);
  assert.equal(matchPreflight(rules, { origin: 'https://evil.com', method: 'GET', headers: [] })?.id, 'public');
  assert.equal(matchPreflight(rules, { origin: 'https://evil.com', method: 'GET', headers: ['content-type'] }), undefined);
  assert.equal(matchPreflight(rules, { origin: 'https://app.example.com', method: 'get', headers: [] }), undefined);
  assert.equal(matchPreflight(rules, { origin: 'https://app.example.com', method: 'PATCH', headers: [] }), undefined);
});

test('matchActual: origin and method only', () => {
  assert.equal(matchActual(rules, 'https://app.example.com', 'POST')?.id, 'site');
  assert.equal(matchActual(rules, 'https://app.example.com', 'GET')?.id, 'public');
  assert.equal(matchActual(rules, 'https://x.org', 'DELETE'), undefined);
});

test('parseRequestHeaders lowercases, trims and drops empty names', () => {
  assert.deepEqual(parseRequestHeaders(' Content-Type ,X-Amz-Date,,'), ['content-type', 'x-amz-date']);
  assert.deepEqual(parseRequestHeaders(undefined), []);
});

test('corsResponseHeaders: * for a wildcard-only rule, the origin with credentials otherwise', () => {
  assert.deepEqual(corsResponseHeaders(rules[1]!, 'https://x.org'), {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, HEAD',
  });
  assert.deepEqual(corsResponseHeaders(rules[0]!, 'https://app.example.com', ['content-type']), {
    'access-control-allow-origin': 'https://app.example.com',
    'access-control-allow-methods': 'PUT, POST',
    'access-control-allow-credentials': 'true',
    'access-control-allow-headers': 'content-type',
    'access-control-expose-headers': 'ETag',
    'access-control-max-age': '600',
  });
});
