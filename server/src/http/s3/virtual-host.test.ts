import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeDomains, pathStylePath, virtualHostBucket } from './virtual-host.js';

test('domains are trimmed, lower-cased, de-duplicated, longest first', () => {
  assert.deepEqual(normalizeDomains([' Example.com ', 's3.example.com.', '', 'example.com']), ['s3.example.com', 'example.com']);
});

test('bucket.domain hosts address the bucket; other hosts stay path style', () => {
  const d = normalizeDomains(['s3.example.com', 'example.com']);
  assert.equal(virtualHostBucket('photos.s3.example.com', d), 'photos');
  assert.equal(virtualHostBucket('Photos.S3.Example.com:9000', d), 'photos');
  assert.equal(virtualHostBucket('my.dotted.bucket.s3.example.com', d), 'my.dotted.bucket');
  assert.equal(virtualHostBucket('photos.example.com', d), 'photos');
  assert.equal(virtualHostBucket('photos.s3.example.com.', d), 'photos');
  assert.equal(virtualHostBucket('s3.example.com', d), undefined);
  assert.equal(virtualHostBucket('s3.example.com', normalizeDomains(['example.com'])), 's3');
  assert.equal(virtualHostBucket('example.com:9000', d), undefined);
  assert.equal(virtualHostBucket('127.0.0.1:9000', d), undefined);
  assert.equal(virtualHostBucket('[::1]:9000', d), undefined);
  assert.equal(virtualHostBucket('photos.other.org', d), undefined);
  assert.equal(virtualHostBucket('notexample.com', d), undefined);
  assert.equal(virtualHostBucket('-bad.example.com', d), undefined);
  assert.equal(virtualHostBucket(undefined, d), undefined);
  assert.equal(virtualHostBucket('photos.s3.example.com', []), undefined);
});

test('the path becomes the key under the bucket, literally', () => {
  assert.equal(pathStylePath('b', '/'), '/b');
  assert.equal(pathStylePath('b', '/a/b%20c'), '/b/a/b%20c');
  assert.equal(pathStylePath('b', '//x'), '/b//x');
  assert.equal(pathStylePath('b', 'http://x/y'), 'http://x/y');
});
