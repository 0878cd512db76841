import { test } from 'node:test';
import assert from 'node:assert/strict';
import { S3Error } from '../s3-error.js';
import { parseTaggingHeader, validateTags } from './tagging.js';

function code(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    assert.ok(err instanceof S3Error);
    return err.code;
  }
}

test('x-amz-tagging parses URL query form, keeps order, decodes percent and plus', () => {
  assert.deepEqual(parseTaggingHeader(undefined), []);
  assert.deepEqual(parseTaggingHeader(''), []);
  assert.deepEqual(parseTaggingHeader('b=2&a=1&flag&x=a%20b+c%2Bd&k%C3%BC=%3D'), [
    { key: 'b', value: '2' }, { key: 'a', value: '1' }, { key: 'flag', value: '' }, { key: 'x', value: 'a b c+d' }, { key: 'kü', value: '=' },
  ]);
  assert.equal(code(() => parseTaggingHeader('a=%ZZ')), 'InvalidArgument');
  assert.equal(code(() => parseTaggingHeader('a=1&a=2')), 'InvalidTag');
});

test('AWS limits: 10 object tags, 50 bucket tags, key 1..128, value ..256, charset, aws: prefix', () => {
  const n = (count: number) => Array.from({ length: count }, (_, i) => ({ key: `k${i}`, value: 'v' }));
  assert.equal(code(() => validateTags(n(10), 'object')), undefined);
  assert.equal(code(() => validateTags(n(11), 'object')), 'BadRequest');
  assert.equal(code(() => validateTags(n(50), 'bucket')), undefined);
  assert.equal(code(() => validateTags(n(51), 'bucket')), 'InvalidTag');
  assert.equal(code(() => validateTags([{ key: 'ü'.repeat(128), value: 'é'.repeat(256) }], 'object')), undefined);
  assert.equal(code(() => validateTags([{ key: 'k'.repeat(129), value: '' }], 'object')), 'InvalidTag');
  assert.equal(code(() => validateTags([{ key: 'k', value: 'v'.repeat(257) }], 'object')), 'InvalidTag');
  assert.equal(code(() => validateTags([{ key: '', value: 'v' }], 'object')), 'InvalidTag');
  assert.equal(code(() => validateTags([{ key: 'a b+-=._:/@1', value: 'Ω 9' }], 'object')), undefined);
  assert.equal(code(() => validateTags([{ key: 'a,b', value: '' }], 'object')), 'InvalidTag');
  assert.equal(code(() => validateTags([{ key: 'a', value: 'x<y' }], 'object')), 'InvalidTag');
  assert.equal(code(() => validateTags([{ key: 'aws:owner', value: '' }], 'bucket')), 'InvalidTag');
});
