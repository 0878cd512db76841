import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluatePreconditions, type ConditionResult, type Preconditions } from './conditionals.js';

const etag = 'abc123';
const lastModified = new Date('2024-05-01T12:00:00.750Z');
const before = 'Wed, 01 May 2024 11:00:00 GMT';
const same = 'Wed, 01 May 2024 12:00:00 GMT';
const after = 'Wed, 01 May 2024 13:00:00 GMT';

const cases: Array<[string, Preconditions, ConditionResult]> = [
  ['no headers', {}, 'proceed'],
  ['If-Match equal (quoted)', { ifMatch: '"abc123"' }, 'proceed'],
  ['If-Match in list', { ifMatch: '"x", "abc123"' }, 'proceed'],
  ['If-Match *', { ifMatch: '*' }, 'proceed'],
  ['If-Match different', { ifMatch: '"zzz"' }, 'precondition-failed'],
  ['If-None-Match equal', { ifNoneMatch: '"abc123"' }, 'not-modified'],
  ['If-None-Match weak equal', { ifNoneMatch: 'W/"abc123"' }, 'not-modified'],
  ['If-None-Match different', { ifNoneMatch: '"zzz"' }, 'proceed'],
  ['If-Modified-Since before', { ifModifiedSince: before }, 'proceed'],
  ['If-Modified-Since same second', { ifModifiedSince: same }, 'not-modified'],
  ['If-Modified-Since after', { ifModifiedSince: after }, 'not-modified'],
  ['If-Modified-Since invalid date is ignored', { ifModifiedSince: 'yesterday' }, 'proceed'],
  ['If-Unmodified-Since before', { ifUnmodifiedSince: before }, 'precondition-failed'],
  ['If-Unmodified-Since same second', { ifUnmodifiedSince: same }, 'proceed'],
  // AWS: If-Match true + If-Unmodified-Since false → 200.
  ['If-Match true beats If-Unmodified-Since false', { ifMatch: '"abc123"', ifUnmodifiedSince: before }, 'proceed'],
  // AWS: If-None-Match false + If-Modified-Since true → 304.
  ['If-None-Match false beats If-Modified-Since true', { ifNoneMatch: '"abc123"', ifModifiedSince: before }, 'not-modified'],
  ['If-None-Match true beats If-Modified-Since false', { ifNoneMatch: '"zzz"', ifModifiedSince: after }, 'proceed'],
  ['412 wins over 304', { ifMatch: '"zzz"', ifNoneMatch: '"abc123"' }, 'precondition-failed'],
];
for (const [name, p, expected] of cases) {
  test(`preconditions: ${name}`, () => assert.equal(evaluatePreconditions(p, etag, lastModified), expected));
}
