/** Fuzzing the SigV4 parsers (issue 10 Must show 3): Authorization header, credential scope, query strings, dates, aws-chunked framing. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AwsChunkedParser } from '../../src/auth/sigv4/chunked-decoder.js';
import { parseAmzDate, parseHttpDate } from '../../src/auth/sigv4/amz-date.js';
import { canonicalQueryCandidates, canonicalUriCandidates, parseQuery, percentDecode } from '../../src/auth/sigv4/encoding.js';
import { isSigV4Error } from '../../src/auth/sigv4/sigv4-errors.js';
import { parseAuthorizationHeader } from '../../src/auth/sigv4/verify-header.js';
import { fc, fuzz, mutated, RUNS, survives, tokenish } from './harness.js';

const AUTH_SAMPLES = [
  'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7',
  'AWS4-HMAC-SHA256 Credential=a/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
];

test(`Authorization header: ${RUNS} inputs, only SigV4 errors`, () => {
  const n = fuzz('authorization', fc.oneof(mutated(AUTH_SAMPLES, '=,;/ AWS4-HMAC-SHA256\t'), tokenish('=,;/ ')),
    (s) => survives(parseAuthorizationHeader, isSigV4Error, s), (s) => s);
  assert.ok(n >= RUNS);
});

test(`query strings and paths: ${RUNS} inputs, never a throw`, () => {
  fuzz('query', fc.oneof(mutated(['a=1&b=%20x&X-Amz-Signature=abc', 'versions&prefix=a%2Fb&list-type=2', 'uploads'], '%&=+;/'), tokenish('%&=+')), (s) => {
    survives((q: string) => { parseQuery(q); canonicalQueryCandidates(q, 'X-Amz-Signature'); percentDecode(q); canonicalUriCandidates(`/${q}`); }, () => false, s);
  }, (s) => s);
});

test(`dates: ${RUNS} inputs, parse or undefined`, () => {
  fuzz('dates', fc.oneof(mutated(['20150830T123600Z', 'Sun, 06 Nov 1994 08:49:37 GMT'], '0123456789TZ :,'), tokenish('0123456789TZ')), (s) => {
    survives((d: string) => {
      for (const r of [parseAmzDate(d), parseHttpDate(d)]) if (r !== undefined) assert.ok(!Number.isNaN(r.getTime()), `valid Date for ${d}`);
    }, () => false, s);
  }, (s) => s);
});

test(`aws-chunked bodies: ${RUNS} inputs fed in random pieces, only SigV4 errors, never more data out than in`, () => {
  const valid = ['4\r\nabcd\r\n0\r\n\r\n', '5;chunk-signature=00\r\nhello\r\n0;chunk-signature=00\r\n\r\n',
    '3\r\nabc\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n', 'a\r\n0123456789\r\n0\r\n'];
  const body = fc.oneof(mutated(valid, '0123456789abcdef;\r\n=:'), tokenish('0123456789abcdef;\r\n'));
  fuzz('aws-chunked', fc.tuple(body, fc.boolean(), fc.array(fc.nat(64), { maxLength: 6 })), ([text, trailers, cuts]) => {
    survives(() => {
      const p = new AwsChunkedParser({ trailers });
      const buf = Buffer.from(text, 'latin1');
      let out = 0;
      let at = 0;
      for (const c of cuts) {
        const end = Math.min(buf.length, at + c);
        p.write(buf.subarray(at, end), (d) => { out += d.length; });
        at = end;
      }
      p.write(buf.subarray(at), (d) => { out += d.length; });
      p.end();
      assert.ok(out <= buf.length);
    }, isSigV4Error, undefined);
  });
});
