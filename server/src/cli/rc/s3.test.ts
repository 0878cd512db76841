import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EXIT } from './errors.js';
import { networkCode, toRcError } from './s3.js';
import { adminError } from './admin-client.js';

const sdkError = (name: string, status: number, message = '') => Object.assign(new Error(message || name), { name, $metadata: { httpStatusCode: status } });

test('SDK failures map to the documented exit codes', () => {
  const cases: Array<[unknown, number]> = [
    [Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), EXIT.unreachable],
    [new Error('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ENOTFOUND' }) }), EXIT.unreachable],
    [sdkError('InvalidAccessKeyId', 403), EXIT.auth],
    [sdkError('SignatureDoesNotMatch', 403), EXIT.auth],
    [sdkError('AccessDenied', 403), EXIT.denied],
    [sdkError('Forbidden', 403), EXIT.denied],
    [sdkError('NoSuchBucket', 404), EXIT.notFound],
    [sdkError('NotFound', 404), EXIT.notFound],
    [sdkError('BucketNotEmpty', 409), EXIT.failure],
    [sdkError('InternalError', 500), EXIT.failure],
  ];
  for (const [err, code] of cases) assert.equal(toRcError(err, 'http://h:1', 'a/b/c').exitCode, code, String((err as Error).name));
  assert.equal(networkCode(new Error('plain')), undefined);
  assert.match(toRcError(sdkError('Unknown', 400), 'http://h:1', 'a/b').message, /HTTP 400/);
});

test('admin error answers map to exit codes and keep the server message', () => {
  const denied = adminError(403, JSON.stringify({ code: 'AccessDenied', message: 'admin:ServerInfo is not allowed for user alice' }), 'GET info');
  assert.equal(denied.exitCode, EXIT.denied);
  assert.match(denied.message, /admin:ServerInfo is not allowed for user alice/);
  assert.equal(adminError(403, '{"code":"SignatureDoesNotMatch"}', 'x').exitCode, EXIT.auth);
  assert.equal(adminError(404, '{"code":"NoSuchPolicy","message":"p"}', 'x').exitCode, EXIT.notFound);
  assert.equal(adminError(400, '{"code":"MalformedPolicy","message":"bad"}', 'x').exitCode, EXIT.usage);
  assert.equal(adminError(409, '{"code":"PolicyInUse"}', 'x').exitCode, EXIT.failure);
  assert.match(adminError(404, '<Error><Code>NoSuchBucket</Code></Error>', 'x').message, /does not offer the admin API/);
  assert.equal(adminError(502, 'gateway', 'x').exitCode, EXIT.failure);
});
