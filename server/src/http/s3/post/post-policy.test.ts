import { test } from 'node:test';
import assert from 'node:assert/strict';
import { S3Error } from '../s3-error.js';
import { checkPostPolicy, decodePostPolicy } from './post-policy.js';

const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64');
const NOW = new Date('2030-01-01T00:00:00Z');
const code = (c: string) => (e: unknown): boolean => e instanceof S3Error && e.code === c;

test('decodes the three condition forms and the expiration', () => {
  const p = decodePostPolicy(b64({
    expiration: '2030-01-02T00:00:00.000Z',
    conditions: [{ Bucket: 'b' }, ['starts-with', '$Key', 'u/'], ['eq', '$x-amz-meta-a', '1'], ['content-length-range', '1', 10]],
  }));
  assert.equal(p.expiration.toISOString(), '2030-01-02T00:00:00.000Z');
  assert.deepEqual(p.conditions.map((c) => c.kind), ['eq', 'starts-with', 'eq', 'content-length-range']);
  assert.deepEqual(p.conditions[3], { kind: 'content-length-range', min: 1, max: 10 });
});

test('malformed documents are InvalidPolicyDocument', () => {
  for (const bad of [Buffer.from('not json').toString('base64'), b64([]), b64({ conditions: [] }), b64({ expiration: 'soon', conditions: [] }),
    b64({ expiration: '2030-01-01T00:00:00Z' }), b64({ expiration: '2030-01-01T00:00:00Z', conditions: [['gt', '$key', 'a']] }),
    b64({ expiration: '2030-01-01T00:00:00Z', conditions: [['content-length-range', -1, 5]] }),
    b64({ expiration: '2030-01-01T00:00:00Z', conditions: [{ a: '1', b: '2' }] })]) {
    assert.throws(() => decodePostPolicy(bad), code('InvalidPolicyDocument'), bad);
  }
});

test('checks expiration, conditions and extra fields; returns the length range', () => {
  const p = decodePostPolicy(b64({ expiration: '2030-01-02T00:00:00Z', conditions: [{ bucket: 'b' }, ['starts-with', '$key', 'u/'], ['content-length-range', 0, 5]] }));
  const fields = new Map([['key', 'u/x'], ['policy', 'p'], ['x-amz-signature', 's'], ['x-ignore-z', '1']]);
  assert.deepEqual(checkPostPolicy(p, fields, 'b', NOW), { min: 0, max: 5 });
  assert.throws(() => checkPostPolicy(p, fields, 'other', NOW), code('AccessDenied'));
  assert.throws(() => checkPostPolicy(p, new Map([['key', 'v/x']]), 'b', NOW), code('AccessDenied'));
  assert.throws(() => checkPostPolicy(p, new Map([['key', 'u/x'], ['acl', 'public-read']]), 'b', NOW), /Extra input fields: acl/);
  assert.throws(() => checkPostPolicy(p, fields, 'b', new Date('2031-01-01T00:00:00Z')), /Policy expired/);
});
