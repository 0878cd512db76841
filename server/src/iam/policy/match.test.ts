import { test } from 'node:test';
import assert from 'node:assert/strict';
import { iamWildcardMatch, ipInCidr, parseCidr } from './match.js';

const globs: Array<[string, string, boolean, boolean?]> = [
  ['*', '', true],
  ['*', 'arn:aws:s3:::b/any/key', true],
  ['arn:aws:s3:::b/public/*', 'arn:aws:s3:::b/public/a/b.txt', true],
  ['arn:aws:s3:::b/public/*', 'arn:aws:s3:::b/public', false],
  ['arn:aws:s3:::b/public/*', 'arn:aws:s3:::b/Public/x', false],
  ['arn:aws:s3:::b/*.jpg', 'arn:aws:s3:::b/x/y.jpg', true],
  ['arn:aws:s3:::b/?', 'arn:aws:s3:::b/a', true],
  ['arn:aws:s3:::b/?', 'arn:aws:s3:::b/ab', false],
  ['a*b*c', 'aXXbYYbZc', true],
  ['a*b*c', 'aXXbYYbZ', false],
  ['[a]', 'a', false],
  ['s3:Get*', 's3:getobject', true, true],
  ['s3:Get*', 's3:getobject', false, false],
];
for (const [pattern, value, expected, ignoreCase] of globs) {
  test(`iamWildcardMatch(${pattern}, ${value}${ignoreCase === true ? ', ignoreCase' : ''}) is ${expected}`, () => {
    assert.equal(iamWildcardMatch(pattern, value, ignoreCase), expected);
  });
}

test('iamWildcardMatch stays fast on pathological patterns', () => {
  assert.equal(iamWildcardMatch(`${'*a'.repeat(50)}b`, 'a'.repeat(5000)), false);
});

const cidrs: Array<[string, string, boolean]> = [
  ['127.0.0.1', '127.0.0.1/32', true],
  ['::ffff:127.0.0.1', '127.0.0.0/8', true],
  ['127.0.0.2', '127.0.0.1', false],
  ['10.1.2.3', '10.0.0.0/8', true],
  ['11.1.2.3', '10.0.0.0/8', false],
  ['::1', '::1/128', true],
  ['2001:db8::5', '2001:db8::/32', true],
  ['127.0.0.1', '::1/128', false],
  ['not-an-ip', '0.0.0.0/0', false],
];
for (const [ip, cidr, expected] of cidrs) {
  test(`ipInCidr(${ip}, ${cidr}) is ${expected}`, () => {
    const block = parseCidr(cidr);
    assert.ok(block !== undefined);
    assert.equal(ipInCidr(ip, block), expected);
  });
}

test('parseCidr refuses what is not a block', () => {
  for (const bad of ['10.0.0.0/33', '::/129', '10.0.0/8', 'host', '10.0.0.0/', '10.0.0.0/-1', '']) assert.equal(parseCidr(bad), undefined, bad);
});
