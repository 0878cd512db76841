import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentRange, resolveCopySourceRange, resolveRange } from './range.js';
import { S3Error } from '../s3-error.js';

const ok: Array<[string | undefined, number, { start: number; end: number } | undefined]> = [
  [undefined, 10, undefined],
  ['bytes=0-4', 10, { start: 0, end: 4 }],
  ['bytes=5-', 10, { start: 5, end: 9 }],
  ['bytes=-3', 10, { start: 7, end: 9 }],
  ['bytes=-30', 10, { start: 0, end: 9 }],
  ['bytes=2-100', 10, { start: 2, end: 9 }],
  ['bytes=9-9', 10, { start: 9, end: 9 }],
  ['BYTES = 1 - 2', 10, { start: 1, end: 2 }],
  // Ignored (whole object): bad syntax, reversed bounds, multiple ranges, other units.
  ['bytes=5-2', 10, undefined],
  ['bytes=0-1,3-4', 10, undefined],
  ['items=0-1', 10, undefined],
  ['bytes=-', 10, undefined],
  ['bytes=abc', 10, undefined],
];
for (const [header, size, expected] of ok) {
  test(`resolveRange(${String(header)}, ${size})`, () => assert.deepEqual(resolveRange(header, size), expected));
}

const unsatisfiable: Array<[string, number]> = [['bytes=10-', 10], ['bytes=10-20', 10], ['bytes=-0', 10], ['bytes=0-', 0], ['bytes=-5', 0]];
for (const [header, size] of unsatisfiable) {
  test(`resolveRange(${header}, ${size}) → InvalidRange`, () => {
    assert.throws(() => resolveRange(header, size), (e: unknown) => e instanceof S3Error && e.code === 'InvalidRange' && e.status === 416);
  });
}

test('contentRange formats bytes a-b/size', () => {
  assert.equal(contentRange({ start: 2, end: 5 }, 10), 'bytes 2-5/10');
});

test('x-amz-copy-source-range: closed ranges inside the source only, InvalidArgument otherwise', () => {
  assert.equal(resolveCopySourceRange(undefined, 10), undefined);
  assert.deepEqual(resolveCopySourceRange('bytes=0-9', 10), { start: 0, end: 9 });
  assert.deepEqual(resolveCopySourceRange('bytes=3-3', 10), { start: 3, end: 3 });
  for (const bad of ['0-4', 'bytes=5-', 'bytes=-3', 'bytes=0-1,3-4', 'bytes=a-b', 'bytes=0-10', 'bytes=5-4']) {
    assert.throws(() => resolveCopySourceRange(bad, 10), (e: unknown) => e instanceof S3Error && e.code === 'InvalidArgument', bad);
  }
  assert.throws(() => resolveCopySourceRange('bytes=0-10', 10), /source object of size: 10/);
  assert.throws(() => resolveCopySourceRange('bytes=0-0', 0), /source object of size: 0/);
});
