import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { GetObjectCommand, PutObjectCommand, S3Client, UploadPartCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { computeChecksum } from '../../common/index.js';
import { decodePayload } from './decode-payload.js';
import { verifyRequest } from './verify-request.js';
import { SigV4Error } from './sigv4-errors.js';
import type { PayloadChecksum, PayloadMode, SigV4Request } from './types.js';
import { chunkedBody, lookup as fixtureLookup, seedSignatureOf, signWithHeader } from './sdk-signer.fixture.js';

/**
 * The real AWS SDK v3 client and presigner against a bare node:http server on 127.0.0.1 that does
 * nothing but verifyRequest + decodePayload: proves interoperability on the wire (real headers,
 * real aws-chunked bodies), client disconnects and error replies while a body is still arriving.
 */

const ACCESS_KEY = 'AKIDHTTPINTEROP';
const SECRET = 'http/interop/secret';
const lookup = async (k: string): Promise<string | undefined> => (k === ACCESS_KEY ? SECRET : fixtureLookup(k));

interface Seen {
  method: string;
  url: string;
  mode?: PayloadMode;
  body?: Buffer;
  checksum?: PayloadChecksum | undefined;
  error?: string;
}

let server: Server;
let endpoint = '';
const seen: Seen[] = [];
let nextSeen: ((s: Seen) => void) | undefined;
/** Called when the server starts handling a request (its headers were parsed). */
let nextStarted: (() => void) | undefined;

function toSigV4(req: IncomingMessage): SigV4Request {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return {
    method: req.method ?? 'GET', rawPath: q < 0 ? url : url.slice(0, q), rawQuery: q < 0 ? '' : url.slice(q + 1),
    headers: req.headers, rawHeaders: req.rawHeaders,
  };
}

async function handle(req: IncomingMessage): Promise<Seen> {
  const s: Seen = { method: req.method ?? '', url: req.url ?? '' };
  try {
    const v = await verifyRequest(toSigV4(req), lookup, { now: new Date() });
    s.mode = v.payload;
    const d = decodePayload(v, req, req.headers);
    const parts: Buffer[] = [];
    for await (const c of d.stream) parts.push(c as Buffer);
    s.body = Buffer.concat(parts);
    s.checksum = d.checksum();
  } catch (err) {
    s.error = err instanceof SigV4Error ? err.s3Code : String(err);
  }
  return s;
}

before(async () => {
  server = createServer((req, res) => {
    nextStarted?.();
    void handle(req).then((s) => {
      seen.push(s);
      nextSeen?.(s);
      if (res.destroyed) return;
      if (s.error === undefined) {
        res.writeHead(200, { etag: '"0123456789abcdef0123456789abcdef"', 'content-type': 'text/plain' }).end(s.body ?? '');
      } else {
        res.writeHead(403, { 'content-type': 'application/xml' })
          .end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${s.error}</Code><Message>x</Message></Error>`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function client(secret = SECRET): S3Client {
  return new S3Client({
    region: 'us-east-1', endpoint, forcePathStyle: true, maxAttempts: 1,
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: secret },
  });
}

function waitForNext(): Promise<Seen> {
  return new Promise((resolve) => { nextSeen = (s) => { nextSeen = undefined; resolve(s); }; });
}

test('SDK PutObject with a buffer body: verified, body intact', async () => {
  const body = Buffer.from('hello from the real SDK');
  const c = client();
  await c.send(new PutObjectCommand({ Bucket: 'bucket', Key: 'dir/a key+plus.txt', Body: body }));
  c.destroy();
  const s = seen.at(-1)!;
  assert.equal(s.error, undefined);
  assert.ok(s.body?.equals(body));
  assert.match(s.url, /^\/bucket\/dir\/a%20key%2Bplus\.txt/);
});

test('SDK PutObject with a stream body: aws-chunked + CRC32 trailer, verified', async () => {
  const data = Buffer.alloc(200_000, 7);
  const c = client();
  await c.send(new PutObjectCommand({
    Bucket: 'bucket', Key: 'streamed.bin', Body: Readable.from([data.subarray(0, 70_000), data.subarray(70_000)]),
    ContentLength: data.length, ChecksumAlgorithm: 'CRC32',
  }));
  c.destroy();
  const s = seen.at(-1)!;
  assert.equal(s.error, undefined);
  assert.equal(s.mode, 'streaming-unsigned-trailer');
  assert.ok(s.body?.equals(data));
  assert.deepEqual(s.checksum, { algorithm: 'CRC32', value: computeChecksum('CRC32', data) });
});

test('SDK UploadPart with SHA256 checksum and a query string: verified, checksum returned', async () => {
  const data = Buffer.from('part body');
  const c = client();
  await c.send(new UploadPartCommand({ Bucket: 'bucket', Key: 'k', UploadId: 'up/id=1', PartNumber: 3, Body: data, ChecksumAlgorithm: 'SHA256' }));
  c.destroy();
  const s = seen.at(-1)!;
  assert.equal(s.error, undefined);
  assert.deepEqual(s.checksum, { algorithm: 'SHA256', value: computeChecksum('SHA256', data) });
});

test('SDK with a wrong secret gets SignatureDoesNotMatch', async () => {
  const c = client('wrong');
  await assert.rejects(c.send(new PutObjectCommand({ Bucket: 'bucket', Key: 'k', Body: 'x' })));
  c.destroy();
  assert.equal(seen.at(-1)!.error, 'SignatureDoesNotMatch');
});

test('presigned GET and PUT URLs from @aws-sdk/s3-request-presigner verify', async () => {
  const c = client();
  const getUrl = await getSignedUrl(c, new GetObjectCommand({ Bucket: 'bucket', Key: 'photos/ä b.jpg', ResponseContentType: 'image/jpeg' }), { expiresIn: 600 });
  const r1 = await fetch(getUrl);
  await r1.arrayBuffer();
  assert.equal(r1.status, 200);
  assert.equal(seen.at(-1)!.error, undefined);

  const putUrl = await getSignedUrl(c, new PutObjectCommand({ Bucket: 'bucket', Key: 'upload.txt' }), { expiresIn: 600 });
  const r2 = await fetch(putUrl, { method: 'PUT', body: 'presigned body' });
  await r2.arrayBuffer();
  assert.equal(r2.status, 200);
  assert.equal(seen.at(-1)!.body?.toString(), 'presigned body');

  const r3 = await fetch(getUrl.replace('photos/', 'photoz/'));
  await r3.arrayBuffer();
  assert.equal(r3.status, 403);
  assert.equal(seen.at(-1)!.error, 'SignatureDoesNotMatch');
  c.destroy();
});

function rawSend(req: SigV4Request, write: (r: ReturnType<typeof httpRequest>) => void): Promise<{ status?: number; error?: Error }> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = String(v);
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve) => {
    const r = httpRequest({ host: '127.0.0.1', port, method: req.method, path: req.rawPath + (req.rawQuery ? `?${req.rawQuery}` : ''), headers });
    r.on('response', (res) => { res.resume(); res.on('end', () => resolve({ status: res.statusCode })); });
    r.on('error', (error) => resolve({ error }));
    write(r);
  });
}

test('client disconnecting mid-body: the decoded stream fails with IncompleteBody, no hang', async () => {
  const { port } = server.address() as AddressInfo;
  const req = await signWithHeader({
    method: 'PUT', path: '/bucket/k', contentSha256: 'UNSIGNED-PAYLOAD', host: `127.0.0.1:${port}`,
    headers: { 'content-length': '100000' },
  }, new Date());
  const outcome = waitForNext();
  // Hang up only once the server is reading the body: a connection reset before it parsed the headers would leave
  // nothing to observe (under load the kernel may drop the unread bytes with the reset).
  const started = new Promise<void>((resolve) => { nextStarted = () => { nextStarted = undefined; resolve(); }; });
  void rawSend(req, (r) => { r.write(Buffer.alloc(1000)); void started.then(() => r.destroy()); });
  assert.equal((await outcome).error, 'IncompleteBody');
});

test('a bad chunk signature while the body is still arriving gets a 403 reply', async () => {
  const { port } = server.address() as AddressInfo;
  const chunks = Array.from({ length: 64 }, (_, i) => Buffer.alloc(65536, i));
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const signingDate = new Date();
  const req = await signWithHeader({
    method: 'PUT', path: '/bucket/big', contentSha256: 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD', host: `127.0.0.1:${port}`,
    headers: { 'content-encoding': 'aws-chunked', 'x-amz-decoded-content-length': String(total) },
  }, signingDate, undefined);
  const body = await chunkedBody({ chunks, signingDate, seed: seedSignatureOf(req) });
  body[200] = body[200]! ^ 0xff;
  req.headers['content-length'] = String(body.length);
  const outcome = waitForNext();
  const reply = rawSend(req, (r) => r.end(body));
  assert.equal((await outcome).error, 'SignatureDoesNotMatch');
  const { status, error } = await reply;
  assert.equal(error, undefined, `client saw ${String(error)}`);
  assert.equal(status, 403);
});
