import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { computeChecksum } from '../../common/index.js';
import { decodePayload } from './decode-payload.js';
import { verifyRequest } from './verify-request.js';
import { SigV4Error, type SigV4ErrorCode } from './sigv4-errors.js';
import type { DecodedPayload, SigV4Request } from './types.js';
import {
  chunkedBody, lookup, presign, REGION, sdkSigner, seedSignatureOf, sha256Hex, signWithHeader,
} from './sdk-signer.fixture.js';

const T = new Date('2026-03-01T10:00:00Z');
const opts = { now: new Date(T.getTime() + 5_000) };

async function rejectsWith(p: Promise<unknown>, code: SigV4ErrorCode, message?: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof SigV4Error, `expected SigV4Error, got ${String(err)}`);
    assert.equal(err.s3Code, code, err.message);
    if (message) assert.match(err.message, message);
    return true;
  });
}

async function collect(d: DecodedPayload): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of d.stream) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

async function streamFails(d: DecodedPayload, code: SigV4ErrorCode): Promise<void> {
  await rejectsWith(collect(d), code);
}

async function decodeWith(req: SigV4Request, pieces: Buffer[]): Promise<DecodedPayload> {
  const v = await verifyRequest(req, lookup, opts);
  return decodePayload(v, Readable.from(pieces), req.headers);
}

const tamper = (req: SigV4Request, change: Partial<SigV4Request>): SigV4Request => ({ ...req, ...change });
const withHeader = (req: SigV4Request, name: string, value: string): SigV4Request => ({ ...req, headers: { ...req.headers, [name]: value } });

test('SDK header signature verifies; region is recorded', async () => {
  const req = await signWithHeader({ path: '/bucket/dir/obj.txt', query: { versionId: 'v 1', 'response-content-type': 'text/plain' } }, T);
  const v = await verifyRequest(req, lookup, opts);
  assert.ok(!v.anonymous);
  assert.equal(v.region, REGION);
  assert.equal(v.authType, 'header');
  assert.equal(v.payload, 'sha256');
});

test('SDK signature over keys with characters S3 encodes (spaces, unicode, !*\'()$+, %2F) verifies', async () => {
  for (const key of ['a b/c', 'ünï cødé/ü', "x!*'()$+,;=@:", 'd%2Fe', 'trailing/', '../dots/./x']) {
    const path = '/bucket/' + key.split('/').map((s) => (s === 'd%2Fe' ? s : encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))).join('/');
    await verifyRequest(await signWithHeader({ path }, T), lookup, opts);
  }
});

test('clients that send some characters raw but sign S3 UriEncode still verify', async () => {
  // Signed path is the canonical encoding, the wire path leaves '$', '@' and '(' raw.
  const signed = await signWithHeader({ path: '/bucket/price%24%40%28x' }, T);
  await verifyRequest(tamper(signed, { rawPath: '/bucket/price$@(x' }), lookup, opts);
});

test('tampered path, host, query, signed header or content hash → SignatureDoesNotMatch', async () => {
  const req = await signWithHeader({ method: 'PUT', path: '/bucket/k', headers: { 'x-amz-meta-a': '1', 'content-type': 'text/plain' } }, T);
  await rejectsWith(verifyRequest(tamper(req, { rawPath: '/bucket/K' }), lookup, opts), 'SignatureDoesNotMatch');
  await rejectsWith(verifyRequest(tamper(req, { rawQuery: 'acl' }), lookup, opts), 'SignatureDoesNotMatch');
  await rejectsWith(verifyRequest(tamper(req, { method: 'POST' }), lookup, opts), 'SignatureDoesNotMatch');
  await rejectsWith(verifyRequest(withHeader(req, 'host', 'evil.example'), lookup, opts), 'SignatureDoesNotMatch');
  await rejectsWith(verifyRequest(withHeader(req, 'x-amz-meta-a', '2'), lookup, opts), 'SignatureDoesNotMatch');
  await rejectsWith(verifyRequest(withHeader(req, 'content-type', 'text/html'), lookup, opts), 'SignatureDoesNotMatch');
  await rejectsWith(verifyRequest(withHeader(req, 'x-amz-content-sha256', sha256Hex('x')), lookup, opts), 'SignatureDoesNotMatch');
});

test('an unsigned x-amz-* header is AccessDenied (HeadersNotSigned)', async () => {
  const req = await signWithHeader({ path: '/bucket/k' }, T);
  await assert.rejects(verifyRequest(withHeader(req, 'x-amz-acl', 'public-read'), lookup, opts), (err: unknown) => {
    assert.ok(err instanceof SigV4Error);
    assert.equal(err.s3Code, 'AccessDenied');
    assert.equal(err.details['HeadersNotSigned'], 'x-amz-acl');
    return true;
  });
});

test('skewed request time → RequestTimeTooSkewed; credential date must match X-Amz-Date', async () => {
  const req = await signWithHeader({ path: '/bucket/k' }, T);
  await rejectsWith(verifyRequest(req, lookup, { now: new Date(T.getTime() + 20 * 60_000) }), 'RequestTimeTooSkewed');
  const other = withHeader(req, 'x-amz-date', '20260302T100000Z');
  await rejectsWith(verifyRequest(other, lookup, { now: new Date('2026-03-02T10:00:00Z') }), 'AuthorizationHeaderMalformed', /Invalid credential date/);
});

test('malformed Authorization headers are rejected with a helpful message', async () => {
  const req = await signWithHeader({ path: '/bucket/k' }, T);
  const auth = String(req.headers['authorization']);
  const cases: [string, SigV4ErrorCode, RegExp][] = [
    [auth.replace('/s3/', '/ec2/'), 'AuthorizationHeaderMalformed', /incorrect service "ec2"/],
    [auth.replace('aws4_request', 'aws4_reqest'), 'AuthorizationHeaderMalformed', /incorrect terminal/],
    [auth.replace(/Credential=[^/]+\//, 'Credential=/'), 'AuthorizationHeaderMalformed', /Credential is mal-formed/],
    [auth.replace(/SignedHeaders=[^,]+,/, ''), 'AuthorizationHeaderMalformed', /SignedHeaders component is missing/],
    [auth.replace('host;', ''), 'AuthorizationHeaderMalformed', /must include "host"/],
    [auth.replace('Signature=', 'Sig='), 'AuthorizationHeaderMalformed', /unexpected component/],
    [auth + ', Signature=00', 'AuthorizationHeaderMalformed', /unexpected component/],
    ['AWS AKID:c2lnbmF0dXJl', 'InvalidRequest', /Please use AWS4-HMAC-SHA256/],
    ['AWS4-ECDSA-P256-SHA256 Credential=x', 'InvalidRequest', /Please use AWS4-HMAC-SHA256/],
  ];
  for (const [value, code, message] of cases) {
    await rejectsWith(verifyRequest(withHeader(req, 'authorization', value), lookup, opts), code, message);
  }
});

test('missing or invalid x-amz-content-sha256 and missing date are rejected', async () => {
  const req = await signWithHeader({ path: '/bucket/k' }, T);
  const without = (name: string): SigV4Request => ({ ...req, headers: { ...req.headers, [name]: undefined } });
  await rejectsWith(verifyRequest(without('x-amz-content-sha256'), lookup, opts), 'InvalidRequest', /x-amz-content-sha256/);
  await rejectsWith(verifyRequest(withHeader(req, 'x-amz-content-sha256', 'nope'), lookup, opts), 'InvalidArgument');
  await rejectsWith(verifyRequest(without('x-amz-date'), lookup, opts), 'AccessDenied', /valid Date or x-amz-date/);
  await rejectsWith(verifyRequest(withHeader(req, 'x-amz-date', '2026-03-01T10:00:00Z'), lookup, opts), 'AccessDenied');
});

test('header auth and query auth together → InvalidArgument; SigV2 query → InvalidRequest', async () => {
  const req = await signWithHeader({ path: '/bucket/k' }, T);
  await rejectsWith(verifyRequest(tamper(req, { rawQuery: 'X-Amz-Algorithm=AWS4-HMAC-SHA256' }), lookup, opts), 'InvalidArgument');
  const v2: SigV4Request = { method: 'GET', rawPath: '/b/k', rawQuery: 'AWSAccessKeyId=AK&Expires=1&Signature=x', headers: { host: 'h' } };
  await rejectsWith(verifyRequest(v2, lookup, opts), 'InvalidRequest');
});

test('SDK presigned URL verifies until it expires, then AccessDenied "Request has expired"', async () => {
  const req = await presign({ path: '/bucket/photo%20one.jpg', query: { 'response-content-disposition': 'attachment; filename="a b.jpg"' } }, T, 3600);
  const v = await verifyRequest(req, lookup, { now: new Date(T.getTime() + 3599_000) });
  assert.ok(!v.anonymous);
  assert.equal(v.authType, 'presigned');
  assert.equal(v.expiresAt?.toISOString(), new Date(T.getTime() + 3600_000).toISOString());
  await rejectsWith(verifyRequest(req, lookup, { now: new Date(T.getTime() + 3601_000) }), 'AccessDenied', /^Request has expired$/);
  await rejectsWith(verifyRequest(req, lookup, { now: new Date(T.getTime() - 3600_000) }), 'AccessDenied', /not valid yet/);
  await rejectsWith(verifyRequest(tamper(req, { rawPath: '/bucket/photo%20two.jpg' }), lookup, opts), 'SignatureDoesNotMatch');
  await rejectsWith(verifyRequest(tamper(req, { rawQuery: req.rawQuery.replace('X-Amz-Expires=3600', 'X-Amz-Expires=7200') }), lookup, opts), 'SignatureDoesNotMatch');
});

test('presigned URL parameter errors → AuthorizationQueryParametersError', async () => {
  const req = await presign({ path: '/bucket/k' }, T, 60);
  const q = (from: RegExp, to: string): SigV4Request => tamper(req, { rawQuery: req.rawQuery.replace(from, to) });
  const cases: [SigV4Request, RegExp][] = [
    [q(/X-Amz-Expires=60/, 'X-Amz-Expires=604801'), /less than a week/],
    [q(/X-Amz-Expires=60/, 'X-Amz-Expires=soon'), /should be a number/],
    [q(/X-Amz-Expires=60/, 'X-Amz-Expires=0'), /positive/],
    [q(/X-Amz-Algorithm=[^&]+/, 'X-Amz-Algorithm=AWS4-HMAC-SHA1'), /only supports/],
    [q(/&?X-Amz-SignedHeaders=[^&]+/, ''), /requires the X-Amz-Algorithm/],
    [q(/X-Amz-Date=[^&]+/, 'X-Amz-Date=yesterday'), /ISO8601/],
    [q(/%2Fs3%2F/, '%2Fsqs%2F'), /incorrect service "sqs"/],
    [tamper(req, { rawQuery: `${req.rawQuery}&X-Amz-Signature=00` }), /single X-Amz-Signature/],
  ];
  for (const [r, message] of cases) await rejectsWith(verifyRequest(r, lookup, opts), 'AuthorizationQueryParametersError', message);
});

test('unsigned payload: body passes through with its length', async () => {
  const req = await signWithHeader({ method: 'PUT', path: '/b/k', contentSha256: 'UNSIGNED-PAYLOAD', headers: { 'content-length': '5' } }, T);
  const d = await decodeWith(req, [Buffer.from('he'), Buffer.from('llo')]);
  assert.equal(d.decodedLength, 5);
  assert.equal((await collect(d)).toString(), 'hello');
  await streamFails(await decodeWith(req, [Buffer.from('hell')]), 'IncompleteBody');
});

test('signed payload hash: checked at end of stream', async () => {
  const body = Buffer.from('payload bytes');
  const req = await signWithHeader({ method: 'PUT', path: '/b/k', contentSha256: sha256Hex(body) }, T);
  assert.ok((await collect(await decodeWith(req, [body]))).equals(body));
  await streamFails(await decodeWith(req, [Buffer.from('payload bytez')]), 'XAmzContentSHA256Mismatch');
});

async function signedChunkedRequest(decodedLength: number, trailer?: string): Promise<SigV4Request> {
  return signWithHeader({
    method: 'PUT', path: '/b/chunked',
    contentSha256: trailer === undefined ? 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD' : 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER',
    headers: {
      'content-encoding': 'aws-chunked', 'x-amz-decoded-content-length': String(decodedLength),
      ...(trailer === undefined ? {} : { 'x-amz-trailer': trailer }),
    },
  }, T);
}

test('signed aws-chunked body from the SDK signer decodes; any altered chunk or signature fails', async () => {
  const chunks = [Buffer.alloc(8192, 1), Buffer.alloc(8192, 2), Buffer.from('tail')];
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const req = await signedChunkedRequest(total);
  const body = await chunkedBody({ chunks, signingDate: T, seed: seedSignatureOf(req) });
  const d = await decodeWith(req, [body]);
  assert.equal(d.decodedLength, total);
  assert.ok((await collect(d)).equals(Buffer.concat(chunks)));

  const flipped = Buffer.from(body);
  flipped[9000] = flipped[9000]! ^ 1;
  await streamFails(await decodeWith(req, [flipped]), 'SignatureDoesNotMatch');
  const frame = body.indexOf('\r\n', 0) + 2 + 8192 + 2;
  const reordered = Buffer.concat([body.subarray(frame, 2 * frame), body.subarray(0, frame), body.subarray(2 * frame)]);
  await streamFails(await decodeWith(req, [reordered]), 'SignatureDoesNotMatch');
  const otherSeed = await chunkedBody({ chunks, signingDate: T, seed: '0'.repeat(64) });
  await streamFails(await decodeWith(req, [otherSeed]), 'SignatureDoesNotMatch');
  await streamFails(await decodeWith(req, [body.subarray(0, body.length - 100)]), 'IncompleteBody');
  await streamFails(await decodeWith(await signedChunkedRequest(total + 1), [body]), 'SignatureDoesNotMatch');
});

test('signed aws-chunked with a signed checksum trailer: verified, checksum returned; bad trailer fails', async () => {
  const data = Buffer.from('0123456789abcdef'.repeat(700));
  const crc = computeChecksum('CRC32C', data);
  const req = await signedChunkedRequest(data.length, 'x-amz-checksum-crc32c');
  const seed = seedSignatureOf(req);
  const good = await chunkedBody({ chunks: [data.subarray(0, 9000), data.subarray(9000)], signingDate: T, seed, trailer: { name: 'x-amz-checksum-crc32c', value: crc } });
  const d = await decodeWith(req, [good]);
  assert.ok((await collect(d)).equals(data));
  assert.deepEqual(d.checksum(), { algorithm: 'CRC32C', value: crc });

  const wrongCrc = await chunkedBody({ chunks: [data], signingDate: T, seed, trailer: { name: 'x-amz-checksum-crc32c', value: 'AAAAAA==' } });
  await streamFails(await decodeWith(req, [wrongCrc]), 'BadDigest');
  const forgedTrailer = Buffer.from(good.toString('latin1').replace(`x-amz-checksum-crc32c:${crc}`, 'x-amz-checksum-crc32c:AAAAAA=='), 'latin1');
  await streamFails(await decodeWith(req, [forgedTrailer]), 'SignatureDoesNotMatch');
  const noTrailerSig = Buffer.from(good.toString('latin1').replace(/x-amz-trailer-signature:[0-9a-f]+\r\n/, ''), 'latin1');
  await streamFails(await decodeWith(req, [noTrailerSig]), 'SignatureDoesNotMatch');
  const missing = await chunkedBody({ chunks: [data], signingDate: T, seed });
  await streamFails(await decodeWith(req, [missing]), 'MalformedTrailerError');
});

test('unsigned trailer (what the JS SDK sends): CRC32 trailer verified and returned', async () => {
  const data = Buffer.from('hello unsigned trailer');
  const crc = computeChecksum('CRC32', data);
  const req = await signWithHeader({
    method: 'PUT', path: '/b/k', contentSha256: 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
    headers: { 'content-encoding': 'aws-chunked', 'x-amz-decoded-content-length': String(data.length), 'x-amz-trailer': 'x-amz-checksum-crc32', 'x-amz-sdk-checksum-algorithm': 'CRC32' },
  }, T);
  const body = await chunkedBody({ chunks: [data], signingDate: T, trailer: { name: 'x-amz-checksum-crc32', value: crc } });
  const d = await decodeWith(req, [body]);
  assert.ok((await collect(d)).equals(data));
  assert.deepEqual(d.checksum(), { algorithm: 'CRC32', value: crc });
  const bad = await chunkedBody({ chunks: [Buffer.from('hello unsigned trailes')], signingDate: T, trailer: { name: 'x-amz-checksum-crc32', value: crc } });
  await assert.rejects(collect(await decodeWith(req, [bad])), (err: unknown) => {
    assert.ok(err instanceof SigV4Error);
    assert.equal(err.s3Code, 'BadDigest');
    assert.equal(err.message, 'The CRC32 you specified did not match the calculated checksum.');
    return true;
  });
});

test('aws-chunked frames split at every byte boundary decode identically', async () => {
  const chunks = [Buffer.from('first chunk data'), Buffer.from('2nd')];
  const data = Buffer.concat(chunks);
  const crc = computeChecksum('CRC64NVME', data);
  const req = await signedChunkedRequest(data.length, 'x-amz-checksum-crc64nvme');
  const body = await chunkedBody({ chunks, signingDate: T, seed: seedSignatureOf(req), trailer: { name: 'x-amz-checksum-crc64nvme', value: crc } });
  for (let i = 1; i < body.length; i++) {
    const d = await decodeWith(req, [body.subarray(0, i), body.subarray(i)]);
    assert.ok((await collect(d)).equals(data), `split at ${i}`);
    assert.equal(d.checksum()?.value, crc, `split at ${i}`);
  }
  const bytes = [...body].map((b) => Buffer.from([b]));
  const d = await decodeWith(req, bytes);
  assert.ok((await collect(d)).equals(data));
  assert.equal(d.checksum()?.value, crc);
});

test('x-amz-checksum-* header verified while streaming; x-amz-sdk-checksum-algorithm alone is computed', async () => {
  const data = Buffer.from('checksummed body');
  const sha1 = computeChecksum('SHA1', data);
  const req = await signWithHeader({ method: 'PUT', path: '/b/k', contentSha256: 'UNSIGNED-PAYLOAD', headers: { 'x-amz-checksum-sha1': sha1 } }, T);
  const d = await decodeWith(req, [data]);
  await collect(d);
  assert.deepEqual(d.checksum(), { algorithm: 'SHA1', value: sha1 });
  await streamFails(await decodeWith(req, [Buffer.from('checksummed bodY')]), 'BadDigest');

  const sdkOnly = await signWithHeader({ method: 'PUT', path: '/b/k', contentSha256: 'UNSIGNED-PAYLOAD', headers: { 'x-amz-sdk-checksum-algorithm': 'sha256' } }, T);
  const d2 = await decodeWith(sdkOnly, [data]);
  assert.equal(d2.checksum(), undefined);
  await collect(d2);
  assert.deepEqual(d2.checksum(), { algorithm: 'SHA256', value: computeChecksum('SHA256', data) });
});

test('invalid checksum headers are rejected before reading the body', async () => {
  const base = { method: 'PUT', path: '/b/k', contentSha256: 'UNSIGNED-PAYLOAD' };
  const cases: [Record<string, string>, RegExp][] = [
    [{ 'x-amz-checksum-crc32': 'not base64' }, /x-amz-checksum-crc32 header is invalid/],
    [{ 'x-amz-checksum-crc32': 'AAAAAA==', 'x-amz-checksum-sha1': 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=' }, /Multiple checksum/],
    [{ 'x-amz-sdk-checksum-algorithm': 'MD5' }, /x-amz-sdk-checksum-algorithm header is invalid/],
    [{ 'x-amz-sdk-checksum-algorithm': 'CRC32C', 'x-amz-checksum-crc32': 'AAAAAA==' }, /does not match/],
    [{ 'x-amz-trailer': 'x-amz-checksum-crc32' }, /x-amz-trailer requires/],
  ];
  for (const [headers, message] of cases) {
    const req = await signWithHeader({ ...base, headers }, T);
    const v = await verifyRequest(req, lookup, opts);
    assert.throws(() => decodePayload(v, Readable.from([]), req.headers), (err: unknown) => {
      assert.ok(err instanceof SigV4Error);
      assert.equal(err.s3Code, 'InvalidRequest');
      assert.match(err.message, message);
      return true;
    });
  }
});

test('signed aws-chunked without x-amz-decoded-content-length → MissingContentLength', async () => {
  const req = await signWithHeader({ method: 'PUT', path: '/b/k', contentSha256: 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD', headers: { 'content-encoding': 'aws-chunked' } }, T);
  const v = await verifyRequest(req, lookup, opts);
  assert.throws(() => decodePayload(v, Readable.from([]), req.headers), (err: unknown) => err instanceof SigV4Error && err.s3Code === 'MissingContentLength');
});

test('malformed aws-chunked framing → InvalidRequest, never a hang', async () => {
  const req = await signWithHeader({
    method: 'PUT', path: '/b/k', contentSha256: 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
    headers: { 'content-encoding': 'aws-chunked', 'x-amz-decoded-content-length': '3' },
  }, T);
  for (const bad of ['zz\r\nabc\r\n0\r\n\r\n', '3\r\nabcX\r\n0\r\n\r\n', '3\nabc\r\n0\r\n\r\n', '3\r\nabc\r\n0\r\n\r\nGARBAGE', `${'1'.repeat(5000)}\r\n`]) {
    await streamFails(await decodeWith(req, [Buffer.from(bad)]), 'InvalidRequest');
  }
  await streamFails(await decodeWith(req, [Buffer.from('4\r\nabcd\r\n0\r\n\r\n')]), 'InvalidRequest');
  await streamFails(await decodeWith(req, [Buffer.from('')]), 'IncompleteBody');
  await streamFails(await decodeWith(req, [Buffer.from('3\r\nab')]), 'IncompleteBody');
});

test('region of a foreign scope is accepted and recorded', async () => {
  const req = await signWithHeader({ path: '/b/k' }, T, sdkSigner('ap-southeast-7'));
  const v = await verifyRequest(req, lookup, opts);
  assert.ok(!v.anonymous);
  assert.equal(v.region, 'ap-southeast-7');
  assert.equal(v.scope, '20260301/ap-southeast-7/s3/aws4_request');
});

test('a rejecting lookup propagates unchanged', async () => {
  const req = await signWithHeader({ path: '/b/k' }, T);
  const boom = new Error('iam down');
  await assert.rejects(verifyRequest(req, async () => { throw boom; }, opts), (err) => err === boom);
});

