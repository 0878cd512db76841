import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeContinuationToken, encodeContinuationToken, listEncoder, parseIntegerMarker, parseMaxEntries } from './list-params.js';
import { S3Error } from './s3-error.js';

const invalidArgument = (e: unknown): boolean => e instanceof S3Error && e.code === 'InvalidArgument';

test('parseMaxEntries defaults to 1000, caps at 1000, accepts 0 and rejects junk', () => {
  assert.equal(parseMaxEntries(undefined, 'max-keys'), 1000);
  assert.equal(parseMaxEntries('0', 'max-keys'), 0);
  assert.equal(parseMaxEntries('5', 'max-keys'), 5);
  assert.equal(parseMaxEntries('5000', 'max-keys'), 1000);
  for (const bad of ['-1', 'ten', '1.5', '99999999999']) assert.throws(() => parseMaxEntries(bad, 'max-keys'), invalidArgument);
  assert.equal(parseIntegerMarker('12', 'part-number-marker'), 12);
  assert.throws(() => parseIntegerMarker('x', 'part-number-marker'), invalidArgument);
});

test('continuation tokens round-trip any key and reject foreign tokens', () => {
  for (const marker of ['', 'a/b', '日本/..//x', 'k'.repeat(1024)]) {
    assert.equal(decodeContinuationToken(encodeContinuationToken(marker)), marker);
  }
  for (const bad of ['', 'abc', Buffer.from('other:x').toString('base64'), '!!!!']) {
    assert.throws(() => decodeContinuationToken(bad), invalidArgument);
  }
});

test('listEncoder encodes like a URL component but keeps slashes', () => {
  assert.equal(listEncoder(undefined).encode('a b'), 'a b');
  const { encodingType, encode } = listEncoder('url');
  assert.equal(encodingType, 'url');
  assert.equal(encode('a b+c/日\u0001'), 'a%20b%2Bc/%E6%97%A5%01');
  assert.throws(() => listEncoder('base64'), invalidArgument);
});
