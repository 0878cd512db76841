import { test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyRequest } from './verify-request.js';
import { SigV4Error, type SigV4ErrorCode } from './sigv4-errors.js';
import type { SigV4Request } from './types.js';
import {
  CHUNKED_PUT, EXAMPLE_ACCESS_KEY, EXAMPLE_SECRET, EXAMPLE_TIME, GET_LIFECYCLE, GET_OBJECT, LIST_OBJECTS, PRESIGNED_GET, PUT_OBJECT,
} from './aws-examples.fixture.js';

const lookup = async (key: string): Promise<string | undefined> => (key === EXAMPLE_ACCESS_KEY ? EXAMPLE_SECRET : undefined);
const now = new Date(EXAMPLE_TIME.getTime() + 60_000);

async function rejectsWith(p: Promise<unknown>, code: SigV4ErrorCode, message?: RegExp): Promise<SigV4Error> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof SigV4Error, `expected SigV4Error, got ${String(err)}`);
    assert.equal(err.s3Code, code, err.message);
    if (message) assert.match(err.message, message);
    return err;
  }
  assert.fail(`expected ${code}`);
}

function withHeaders(req: SigV4Request, headers: Record<string, string | undefined>): SigV4Request {
  return { ...req, headers: { ...req.headers, ...headers } };
}

test('published S3 header-auth examples verify', async () => {
  for (const req of [GET_OBJECT, PUT_OBJECT, GET_LIFECYCLE, LIST_OBJECTS]) {
    const v = await verifyRequest(req, lookup, { now });
    assert.equal(v.anonymous, false);
    if (v.anonymous) continue;
    assert.equal(v.authType, 'header');
    assert.equal(v.accessKey, EXAMPLE_ACCESS_KEY);
    assert.equal(v.region, 'us-east-1');
    assert.equal(v.payload, 'sha256');
    assert.equal(v.amzDate, '20130524T000000Z');
  }
});

test('published chunked-upload seed signature verifies as streaming-signed', async () => {
  const v = await verifyRequest(CHUNKED_PUT, lookup, { now });
  assert.ok(!v.anonymous);
  assert.equal(v.payload, 'streaming-signed');
  assert.equal(v.signature, '4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9');
});

test('published presigned URL verifies and records its expiry', async () => {
  const v = await verifyRequest(PRESIGNED_GET, lookup, { now: new Date('2013-05-24T12:00:00Z') });
  assert.ok(!v.anonymous);
  assert.equal(v.authType, 'presigned');
  assert.equal(v.payload, 'unsigned');
  assert.equal(v.expiresAt?.toISOString(), '2013-05-25T00:00:00.000Z');
});

test('presigned URL past X-Amz-Expires is AccessDenied "Request has expired"', async () => {
  await rejectsWith(verifyRequest(PRESIGNED_GET, lookup, { now: new Date('2013-05-25T00:00:01Z') }), 'AccessDenied', /^Request has expired$/);
});

test('tampering with path, host, a signed header or the payload hash is SignatureDoesNotMatch', async () => {
  await rejectsWith(verifyRequest({ ...GET_OBJECT, rawPath: '/test.txu' }, lookup, { now }), 'SignatureDoesNotMatch');
  await rejectsWith(verifyRequest(withHeaders(GET_OBJECT, { host: 'other.s3.amazonaws.com' }), lookup, { now }), 'SignatureDoesNotMatch');
  await rejectsWith(verifyRequest(withHeaders(GET_OBJECT, { range: 'bytes=0-10' }), lookup, { now }), 'SignatureDoesNotMatch');
  await rejectsWith(verifyRequest(withHeaders(GET_OBJECT, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' }), lookup, { now }), 'SignatureDoesNotMatch');
  await rejectsWith(verifyRequest({ ...LIST_OBJECTS, rawQuery: 'max-keys=3&prefix=J' }, lookup, { now }), 'SignatureDoesNotMatch');
});

test('SignatureDoesNotMatch carries the canonical request and string to sign', async () => {
  const err = await rejectsWith(verifyRequest({ ...GET_OBJECT, method: 'HEAD' }, lookup, { now }), 'SignatureDoesNotMatch');
  assert.match(err.details['CanonicalRequest'] ?? '', /^HEAD\n\/test\.txt\n/);
  assert.match(err.details['StringToSign'] ?? '', /^AWS4-HMAC-SHA256\n20130524T000000Z\n20130524\/us-east-1\/s3\/aws4_request\n/);
});

test('unknown access key is InvalidAccessKeyId; a wrong secret is SignatureDoesNotMatch', async () => {
  await rejectsWith(verifyRequest(GET_OBJECT, async () => undefined, { now }), 'InvalidAccessKeyId');
  await rejectsWith(verifyRequest(GET_OBJECT, async () => 'not-the-secret', { now }), 'SignatureDoesNotMatch');
});

test('clock skew beyond 15 minutes is RequestTimeTooSkewed, within it is accepted', async () => {
  await rejectsWith(verifyRequest(GET_OBJECT, lookup, { now: new Date(EXAMPLE_TIME.getTime() + 15 * 60_000 + 1000) }), 'RequestTimeTooSkewed');
  await rejectsWith(verifyRequest(GET_OBJECT, lookup, { now: new Date(EXAMPLE_TIME.getTime() - 16 * 60_000) }), 'RequestTimeTooSkewed');
  await verifyRequest(GET_OBJECT, lookup, { now: new Date(EXAMPLE_TIME.getTime() + 14 * 60_000) });
  await rejectsWith(verifyRequest(GET_OBJECT, lookup, { now: new Date(EXAMPLE_TIME.getTime() + 60_000), maxSkewMs: 1000 }), 'RequestTimeTooSkewed');
});

test('no authentication at all is anonymous', async () => {
  const v = await verifyRequest({ method: 'GET', rawPath: '/b/k', rawQuery: '', headers: { host: 'h' } }, lookup, { now });
  assert.deepEqual(v, { anonymous: true, payload: 'unsigned' });
});

test('Date header alone (no x-amz-date) dates the request', async () => {
  const { canonicalHeaders, canonicalRequest, stringToSign } = await import('./canonical-request.js');
  const { deriveSigningKey, hmacHex } = await import('./signing-key.js');
  const headers = { host: 'examplebucket.s3.amazonaws.com', date: 'Fri, 24 May 2013 00:00:00 GMT', 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' };
  const signed = ['date', 'host', 'x-amz-content-sha256'];
  const creq = canonicalRequest({ method: 'GET', canonicalUri: '/k', canonicalQuery: '', canonicalHeaders: canonicalHeaders({ headers }, signed), signedHeaders: signed, payloadHash: 'UNSIGNED-PAYLOAD' });
  const scope = '20130524/us-east-1/s3/aws4_request';
  const sig = hmacHex(deriveSigningKey(EXAMPLE_SECRET, '20130524', 'us-east-1', 's3'), stringToSign('20130524T000000Z', scope, creq));
  const req: SigV4Request = { method: 'GET', rawPath: '/k', rawQuery: '', headers: {
    ...headers, authorization: `AWS4-HMAC-SHA256 Credential=${EXAMPLE_ACCESS_KEY}/${scope}, SignedHeaders=${signed.join(';')}, Signature=${sig}` } };
  const v = await verifyRequest(req, lookup, { now });
  assert.ok(!v.anonymous);
  assert.equal(v.amzDate, '20130524T000000Z');
  await rejectsWith(verifyRequest(withHeaders(req, { date: 'yesterday' }), lookup, { now }), 'AccessDenied');
});

test('signed aws-chunked modes are refused without a signature (anonymous or presigned)', async () => {
  await rejectsWith(verifyRequest({ method: 'PUT', rawPath: '/b/k', rawQuery: '', headers: { host: 'h', 'x-amz-content-sha256': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD' } }, lookup, { now }), 'InvalidRequest');
  await rejectsWith(verifyRequest({ method: 'PUT', rawPath: '/b/k', rawQuery: '', headers: { host: 'h', 'x-amz-content-sha256': 'bogus' } }, lookup, { now }), 'InvalidArgument');
  const presignedStreaming = withHeaders(PRESIGNED_GET, { 'x-amz-content-sha256': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD' });
  await rejectsWith(verifyRequest(presignedStreaming, lookup, { now: new Date('2013-05-24T12:00:00Z') }), 'InvalidRequest');
  const v = await verifyRequest({ method: 'PUT', rawPath: '/b/k', rawQuery: '', headers: { host: 'h', 'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER' } }, lookup, { now });
  assert.deepEqual(v, { anonymous: true, payload: 'streaming-unsigned-trailer' });
});

test('presigned URL: unsigned integrity headers are honoured, other unsigned x-amz-* headers refused', async () => {
  const later = { now: new Date('2013-05-24T12:00:00Z') };
  const hash = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
  const v = await verifyRequest(withHeaders(PRESIGNED_GET, { 'x-amz-content-sha256': hash, 'x-amz-checksum-crc32': 'AAAAAA==' }), lookup, later);
  assert.ok(!v.anonymous);
  assert.equal(v.payload, 'sha256');
  assert.equal(v.payloadSha256, hash);
  await rejectsWith(verifyRequest(withHeaders(PRESIGNED_GET, { 'x-amz-acl': 'public-read' }), lookup, later), 'AccessDenied', /not signed/);
});
