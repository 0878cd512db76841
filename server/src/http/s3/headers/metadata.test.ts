import { test } from 'node:test';
import assert from 'node:assert/strict';
import { metadataHeaders, parseContentMd5, parseMetadata, responseOverrides } from './metadata.js';
import { S3Error } from '../s3-error.js';

test('parseMetadata keeps system headers, x-amz-meta-* and drops aws-chunked from Content-Encoding', () => {
  const meta = parseMetadata({
    'content-type': 'text/plain',
    'content-encoding': 'aws-chunked,gzip',
    'cache-control': 'no-cache',
    'x-amz-meta-color': 'blue',
    'x-amz-meta-empty': '',
    'x-amz-date': 'ignored',
  });
  assert.deepEqual(meta, {
    system: { 'content-type': 'text/plain', 'content-encoding': 'gzip', 'cache-control': 'no-cache' },
    user: { color: 'blue', empty: '' },
  });
  assert.deepEqual(parseMetadata({ 'content-encoding': 'aws-chunked' }).system, {});
  assert.deepEqual(metadataHeaders(meta), {
    'content-type': 'text/plain', 'content-encoding': 'gzip', 'cache-control': 'no-cache', 'x-amz-meta-color': 'blue', 'x-amz-meta-empty': '',
  });
});

test('user metadata over 2 KB is MetadataTooLarge; exactly 2 KB is accepted', () => {
  const name = 'x-amz-meta-k';
  assert.doesNotThrow(() => parseMetadata({ [name]: 'v'.repeat(2047) }));
  assert.throws(() => parseMetadata({ [name]: 'v'.repeat(2048) }), (e: unknown) => e instanceof S3Error && e.code === 'MetadataTooLarge');
});

test('parseContentMd5 accepts 16-byte base64 and rejects anything else with InvalidDigest', () => {
  assert.equal(parseContentMd5({}), undefined);
  assert.equal(parseContentMd5({ 'content-md5': '1B2M2Y8AsgTpgAmY7PhCfg==' })?.toString('hex'), 'd41d8cd98f00b204e9800998ecf8427e');
  for (const bad of ['nope', '1B2M2Y8AsgTpgAmY7PhCfg', 'AAAA', 'd41d8cd98f00b204e9800998ecf8427e']) {
    assert.throws(() => parseContentMd5({ 'content-md5': bad }), (e: unknown) => e instanceof S3Error && e.code === 'InvalidDigest');
  }
});

test('responseOverrides maps response-* parameters to header names', () => {
  assert.deepEqual(responseOverrides({ 'response-content-type': 'a/b', 'response-expires': 'x', other: 'y' }), {
    'content-type': 'a/b', expires: 'x',
  });
});
