/** Fuzzing header parsers (issue 10 Must show 3): Range, copy-source range, conditionals, tagging header, ellipsis expansion. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, expandEllipsis } from '../../src/config/index.js';
import { evaluatePreconditions } from '../../src/http/s3/headers/conditionals.js';
import { resolveCopySourceRange, resolveRange } from '../../src/http/s3/headers/range.js';
import { parseTaggingHeader } from '../../src/http/s3/headers/tagging.js';
import { S3Error } from '../../src/http/s3/s3-error.js';
import { fc, fuzz, mutated, RUNS, survives, tokenish } from './harness.js';

const isS3 = (e: unknown): boolean => e instanceof S3Error;

test(`Range and x-amz-copy-source-range: ${RUNS} inputs, a range inside the object or an S3 error`, () => {
  const header = fc.oneof(mutated(['bytes=0-99', 'bytes=-5', 'bytes=10-', 'bytes=0-0,5-9'], '0123456789-=,bytes '), tokenish('0123456789-=,'));
  fuzz('range', fc.tuple(header, fc.oneof(fc.nat(1_000_000), fc.constant(0), fc.constant(2 ** 53 - 1))), ([h, size]) => {
    for (const resolve of [resolveRange, resolveCopySourceRange]) {
      survives(() => {
        const r = resolve(h, size);
        if (r !== undefined) assert.ok(r.start >= 0 && r.start <= r.end && r.end < Math.max(size, 1), `${h} of ${size} → ${JSON.stringify(r)}`);
      }, isS3, undefined);
    }
  });
});

test(`conditional headers: ${RUNS} inputs, always one of the three outcomes`, () => {
  const etags = fc.oneof(mutated(['"abc"', 'W/"abc", "def"', '*'], '"*,W/ '), tokenish('"*,'));
  const dates = fc.oneof(mutated(['Sun, 06 Nov 1994 08:49:37 GMT'], '0123456789 :,'), tokenish('0123456789 '), fc.constant(undefined));
  fuzz('conditionals', fc.record({ ifMatch: fc.option(etags, { nil: undefined }), ifNoneMatch: fc.option(etags, { nil: undefined }), ifModifiedSince: dates, ifUnmodifiedSince: dates }), (p) => {
    survives(() => assert.ok(['proceed', 'not-modified', 'precondition-failed'].includes(evaluatePreconditions(p, 'abc', new Date(1_000_000_000_000)))), () => false, undefined);
  });
});

test(`x-amz-tagging header: ${RUNS} inputs, tags or an S3 error`, () => {
  fuzz('tagging-header', fc.oneof(mutated(['a=1&b=2', 'k%20x=v%2F', ''], '%&=+'), tokenish('%&=+')), (s) => survives(parseTaggingHeader, isS3, s), (s) => s);
});

test(`drive ellipsis: ${RUNS} inputs, bounded expansion or a ConfigError`, () => {
  const arg = fc.oneof(mutated(['/data{1...4}', 'http://node{1...4}:9000/d{01...16}', '/d{a...f}{1...2}'], '{}.0123456789af/:'), tokenish('{}.0123456789'));
  fuzz('ellipsis', arg, (s) => survives(() => {
    const out = expandEllipsis(s);
    assert.ok(out.length >= 1 && out.length <= 100_000, `${out.length} drives from ${s}`);
  }, (e) => e instanceof ConfigError, s), (s) => s);
});
