import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { connect } from 'node:net';
import { readdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, ListBucketsCommand, ListObjectsV2Command, S3ServiceException } from '@aws-sdk/client-s3';
import { startS3, type S3Harness } from './helpers/harness.js';
import { errorCode, rawRequest, signRequest, signedRequest } from './helpers/raw.js';

let h: S3Harness;
const B = 'rawhttp';
before(async () => {
  h = await startS3();
  await h.client.send(new CreateBucketCommand({ Bucket: B }));
});
after(async () => { await h.close(); });
// After every bad request the server must still serve a normal one.
afterEach(async () => {
  const res = await h.client.send(new ListBucketsCommand({}));
  assert.ok(res.Buckets?.some((b) => b.Name === B));
});

const md5b64 = (s: string | Buffer): string => createHash('md5').update(s).digest('base64');

test('a wrong secret is SignatureDoesNotMatch (403)', async () => {
  await assert.rejects(h.badClient.send(new ListBucketsCommand({})), (e: unknown) =>
    e instanceof S3ServiceException && e.name === 'SignatureDoesNotMatch' && e.$metadata.httpStatusCode === 403);
  const raw = await signedRequest(h.port, { method: 'GET', path: `/${B}`, secret: 'wrong' });
  assert.equal(raw.status, 403);
  assert.equal(errorCode(raw.body), 'SignatureDoesNotMatch');
});

test('unsigned requests are AccessDenied; unknown access keys are InvalidAccessKeyId', async () => {
  const anon = await rawRequest(h.port, { method: 'PUT', path: `/${B}/anon`, body: 'x' });
  assert.equal(anon.status, 403);
  assert.equal(errorCode(anon.body), 'AccessDenied');
  const { makeClient } = await import('./helpers/harness.js');
  const stranger = makeClient(h.endpoint, 'x', 'AKIAUNKNOWN000000000');
  await assert.rejects(stranger.send(new ListBucketsCommand({})), (e: unknown) => e instanceof S3ServiceException && e.name === 'InvalidAccessKeyId');
  stranger.destroy();
});

test('malformed XML bodies are MalformedXML; DeleteObjects needs Content-MD5 or a checksum', async () => {
  for (const body of ['<Delete><Object><Key>a</Key></Object>', 'garbage', '<Delete></Delete>']) {
    const res = await signedRequest(h.port, { method: 'POST', path: `/${B}`, query: { delete: '' }, body, headers: { 'content-md5': md5b64(body) } });
    assert.equal(res.status, 400, body);
    assert.equal(errorCode(res.body), 'MalformedXML', body);
  }
  const body = '<Delete><Object><Key>a</Key></Object></Delete>';
  const noMd5 = await signedRequest(h.port, { method: 'POST', path: `/${B}`, query: { delete: '' }, body });
  assert.equal(noMd5.status, 400);
  assert.equal(errorCode(noMd5.body), 'InvalidRequest');
  const wrongMd5 = await signedRequest(h.port, { method: 'POST', path: `/${B}`, query: { delete: '' }, body, headers: { 'content-md5': md5b64('other') } });
  assert.equal(wrongMd5.status, 400);
  assert.equal(errorCode(wrongMd5.body), 'BadDigest');
  const ok = await signedRequest(h.port, { method: 'POST', path: `/${B}`, query: { delete: '' }, body, headers: { 'content-md5': md5b64(body) } });
  assert.equal(ok.status, 200, ok.body);
  assert.match(ok.body, /<Deleted><Key>a<\/Key><\/Deleted>/);
});

test('Content-MD5: malformed is InvalidDigest, mismatch is BadDigest and nothing is stored', async () => {
  const bad = await signedRequest(h.port, { method: 'PUT', path: `/${B}/md5`, body: 'hello', headers: { 'content-md5': 'not-base64!' } });
  assert.equal(bad.status, 400);
  assert.equal(errorCode(bad.body), 'InvalidDigest');
  const mismatch = await signedRequest(h.port, { method: 'PUT', path: `/${B}/md5`, body: 'hello', headers: { 'content-md5': md5b64('HELLO') } });
  assert.equal(mismatch.status, 400);
  assert.equal(errorCode(mismatch.body), 'BadDigest');
  await assert.rejects(h.client.send(new GetObjectCommand({ Bucket: B, Key: 'md5' })), (e: unknown) => e instanceof S3ServiceException && e.name === 'NoSuchKey');
  const good = await signedRequest(h.port, { method: 'PUT', path: `/${B}/md5`, body: 'hello', headers: { 'content-md5': md5b64('hello') } });
  assert.equal(good.status, 200, good.body);
  assert.equal(good.headers['etag'], `"${createHash('md5').update('hello').digest('hex')}"`);
});

test('a body that does not match x-amz-content-sha256 is XAmzContentSHA256Mismatch and is not stored', async () => {
  const res = await signedRequest(h.port, {
    method: 'PUT', path: `/${B}/sha`, body: 'payload',
    headers: { 'x-amz-content-sha256': createHash('sha256').update('other payload').digest('hex') },
  });
  assert.equal(res.status, 400);
  assert.equal(errorCode(res.body), 'XAmzContentSHA256Mismatch');
  await assert.rejects(h.client.send(new GetObjectCommand({ Bucket: B, Key: 'sha' })), (e: unknown) => e instanceof S3ServiceException && e.name === 'NoSuchKey');
});

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    out.push(p);
    if (entry.isDirectory()) out.push(...(await walk(p)));
  }
  return out;
}

test('keys with .., //, %2F, unicode and exactly 1024 bytes are stored and read back literally, inside the drives', async () => {
  const keys: Array<[string, string]> = [
    // [raw path after the bucket, expected key]
    ['../escape', '../escape'],
    ['../../../../../../../tmp/evil', '../../../../../../../tmp/evil'],
    ['a//b///c', 'a//b///c'],
    ['./dot/./seg/..', './dot/./seg/..'],
    ['enc%2Fslash%2F..%2F..', 'enc/slash/../..'],
    ['%E6%97%A5%E6%9C%AC%E8%AA%9E/%F0%9F%98%80', '日本語/😀'],
    ['sp%20ace%2Bplus', 'sp ace+plus'],
    ['trailing/', 'trailing/'],
    [`${'k'.repeat(1024)}`, 'k'.repeat(1024)],
    [`${'%C3%A9'.repeat(512)}`, 'é'.repeat(512)],
  ];
  for (const [raw, key] of keys) {
    const body = `body of ${key.slice(0, 40)}`;
    const put = await signedRequest(h.port, { method: 'PUT', path: `/${B}/${raw}`, body });
    assert.equal(put.status, 200, `${raw.slice(0, 40)}: ${put.body}`);
    const get = await signedRequest(h.port, { method: 'GET', path: `/${B}/${raw}` });
    assert.equal(get.status, 200, raw.slice(0, 40));
    assert.equal(get.body, body, raw.slice(0, 40));
    const sdk = await h.client.send(new GetObjectCommand({ Bucket: B, Key: key }));
    assert.equal(await sdk.Body!.transformToString(), body, `SDK ${key.slice(0, 40)}`);
  }
  const listed = await h.client.send(new ListObjectsV2Command({ Bucket: B }));
  for (const [, key] of keys) assert.ok(listed.Contents?.some((o) => o.Key === key), `listed: ${key.slice(0, 40)}`);
  const tooLong = await signedRequest(h.port, { method: 'PUT', path: `/${B}/${'k'.repeat(1025)}`, body: 'x' });
  assert.equal(tooLong.status, 400);
  assert.equal(errorCode(tooLong.body), 'KeyTooLongError');
  // Nothing was written outside the drive roots: the harness root holds only drives/driveN.
  const drivesDir = dirname(h.drives[0]!);
  assert.deepEqual((await readdir(h.root)).sort(), ['drives']);
  assert.deepEqual((await readdir(drivesDir)).sort(), ['drive1', 'drive2', 'drive3', 'drive4']);
  for (const p of await walk(drivesDir)) assert.ok(!relative(drivesDir, p).startsWith('..'), p);
});

test('a client that disconnects mid-upload leaves no object behind and the server keeps serving', async () => {
  const { target, headers } = await signRequest(h.port, { method: 'PUT', path: `/${B}/cut`, unsignedPayload: true, contentLength: 1_000_000 });
  const socket = connect(h.port, '127.0.0.1');
  await once(socket, 'connect');
  const head = [`PUT ${target} HTTP/1.1`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');
  socket.write(head);
  socket.write(Buffer.alloc(64 * 1024, 1));
  await new Promise((r) => setTimeout(r, 50));
  socket.destroy();
  await assert.rejects(h.client.send(new GetObjectCommand({ Bucket: B, Key: 'cut' })), (e: unknown) => e instanceof S3ServiceException && e.name === 'NoSuchKey');
});

test('invalid percent-encoding in the path is InvalidURI', async () => {
  const res = await signedRequest(h.port, { method: 'GET', path: `/${B}/bad%ZZkey` });
  assert.equal(res.status, 400);
  assert.ok(['InvalidURI'].includes(errorCode(res.body) ?? ''), res.body);
});

test('an oversized header section is answered with an S3 XML error, not a bare 431', async () => {
  const res = await rawRequest(h.port, { method: 'GET', path: `/${B}`, headers: { 'x-huge': 'h'.repeat(20 * 1024) } });
  assert.equal(res.status, 400);
  assert.equal(errorCode(res.body), 'RequestHeaderSectionTooLarge');
  assert.ok(res.headers['x-amz-request-id']);
});

test('keys too long, metadata too large and unsupported features are refused before any write', async () => {
  const meta = await signedRequest(h.port, { method: 'PUT', path: `/${B}/meta`, body: 'x', headers: { 'x-amz-meta-big': 'v'.repeat(3000) } });
  assert.equal(meta.status, 400);
  assert.equal(errorCode(meta.body), 'MetadataTooLarge');
  const tagging = await signedRequest(h.port, { method: 'PUT', path: `/${B}/tagged`, body: 'x', headers: { 'x-amz-tagging': 'a=b&a=c' } });
  assert.equal(tagging.status, 400);
  assert.equal(errorCode(tagging.body), 'InvalidTag');
  await assert.rejects(h.client.send(new GetObjectCommand({ Bucket: B, Key: 'tagged' })), (e: unknown) => e instanceof S3ServiceException && e.name === 'NoSuchKey');
  const sse = await signedRequest(h.port, { method: 'PUT', path: `/${B}/sse`, body: 'x', headers: { 'x-amz-server-side-encryption': 'AES256' } });
  assert.equal(sse.status, 501);
  assert.equal(errorCode(sse.body), 'NotImplemented');
  const sub = await signedRequest(h.port, { method: 'GET', path: `/${B}`, query: { website: '' } });
  assert.equal(sub.status, 501);
});

test('a wrong x-amz-checksum-crc32 is BadDigest and nothing is stored', async () => {
  const res = await signedRequest(h.port, {
    method: 'PUT', path: `/${B}/badcrc`, body: 'payload', headers: { 'x-amz-checksum-crc32': 'AAAAAA==' },
  });
  assert.equal(res.status, 400);
  assert.equal(errorCode(res.body), 'BadDigest');
  await assert.rejects(h.client.send(new GetObjectCommand({ Bucket: B, Key: 'badcrc' })), (e: unknown) => e instanceof S3ServiceException && e.name === 'NoSuchKey');
  // The same body sent to a missing bucket: the engine fails before reading it, and the checksum failure
  // that follows must not crash the process (the afterEach request proves the server is still up).
  for (let i = 0; i < 20; i++) {
    const missing = await signedRequest(h.port, {
      method: 'PUT', path: '/no-such-bucket-x/badcrc', body: 'payload', headers: { 'x-amz-checksum-crc32': 'AAAAAA==' },
    });
    assert.equal(missing.status, 404);
  }
});
