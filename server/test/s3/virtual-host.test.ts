import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import type { LookupFunction } from 'node:net';
import {
  CompleteMultipartUploadCommand, CreateBucketCommand, CreateMultipartUploadCommand, DeleteObjectCommand, GetObjectCommand,
  ListBucketsCommand, ListObjectsV2Command, PutObjectCommand, S3Client, S3ServiceException, UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { ACCESS_KEY, REGION, SECRET_KEY, startS3, type S3Harness } from './helpers/harness.js';
import { rawRequest } from './helpers/raw.js';

const DOMAIN = 's3.svc.test';

// Every name resolves to the loopback server: the SDK connects to `bucket.s3.svc.test` and sends that Host.
const loopback: LookupFunction = (_host, options, callback) => {
  if (options.all === true) (callback as (err: null, addresses: Array<{ address: string; family: number }>) => void)(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};

let h: S3Harness;
let agent: Agent;
let vhost: S3Client;

before(async () => {
  h = await startS3({ domains: [DOMAIN, 'other.test'] });
  agent = new Agent({ lookup: loopback });
  vhost = new S3Client({
    endpoint: `http://${DOMAIN}:${h.port}`,
    region: REGION,
    forcePathStyle: false,
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY },
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler({ httpAgent: agent }),
  });
});
after(async () => {
  vhost.destroy();
  agent.destroy();
  await h.close();
});

test('the SDK in virtual-hosted style creates, writes, lists and reads through bucket.domain (SigV4 verified)', async () => {
  const seen: string[] = [];
  vhost.middlewareStack.add((next) => async (args) => {
    const req = args.request as { hostname?: string; path?: string };
    seen.push(`${req.hostname ?? ''} ${req.path ?? ''}`);
    return next(args);
  }, { step: 'finalizeRequest', name: 'recordHost' });
  await vhost.send(new CreateBucketCommand({ Bucket: 'vbucket' }));
  await vhost.send(new PutObjectCommand({ Bucket: 'vbucket', Key: 'dir/a b.txt', Body: 'virtual' }));
  assert.ok(seen.includes(`vbucket.${DOMAIN} /dir/a%20b.txt`), seen.join(', '));
  const list = await vhost.send(new ListObjectsV2Command({ Bucket: 'vbucket' }));
  assert.deepEqual(list.Contents?.map((o) => o.Key), ['dir/a b.txt']);
  const got = await vhost.send(new GetObjectCommand({ Bucket: 'vbucket', Key: 'dir/a b.txt' }));
  assert.equal(await got.Body?.transformToString(), 'virtual');
  // Path style on the same server sees the same bucket.
  const viaPath = await h.client.send(new GetObjectCommand({ Bucket: 'vbucket', Key: 'dir/a b.txt' }));
  assert.equal(await viaPath.Body?.transformToString(), 'virtual');
  assert.ok((await h.client.send(new ListBucketsCommand({}))).Buckets?.some((b) => b.Name === 'vbucket'));
  // The bare domain is the path-style endpoint.
  assert.ok((await vhost.send(new ListBucketsCommand({}))).Buckets?.some((b) => b.Name === 'vbucket'));

  const { UploadId } = await vhost.send(new CreateMultipartUploadCommand({ Bucket: 'vbucket', Key: 'mp' }));
  const part = await vhost.send(new UploadPartCommand({ Bucket: 'vbucket', Key: 'mp', UploadId, PartNumber: 1, Body: 'p' }));
  const done = await vhost.send(new CompleteMultipartUploadCommand({
    Bucket: 'vbucket', Key: 'mp', UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
  }));
  assert.equal(done.Location, `http://vbucket.${DOMAIN}:${h.port}/mp`);
  await vhost.send(new DeleteObjectCommand({ Bucket: 'vbucket', Key: 'mp' }));
});

test('presigned virtual-hosted URLs work; a Host changed after signing is refused', async () => {
  await h.client.send(new CreateBucketCommand({ Bucket: 'presig' }));
  await h.client.send(new PutObjectCommand({ Bucket: 'presig', Key: 'k', Body: 'signed' }));
  const url = new URL(await getSignedUrl(vhost, new GetObjectCommand({ Bucket: 'presig', Key: 'k' }), { expiresIn: 60 }));
  assert.equal(url.hostname, `presig.${DOMAIN}`);
  const ok = await rawRequest(h.port, { method: 'GET', path: `${url.pathname}${url.search}`, headers: { host: url.host } });
  assert.equal(ok.status, 200, ok.body);
  assert.equal(ok.body, 'signed');
  // Same bucket under the second domain: routing works, but the signature covered the original Host.
  const moved = await rawRequest(h.port, { method: 'GET', path: `${url.pathname}${url.search}`, headers: { host: `presig.other.test:${h.port}` } });
  assert.equal(moved.status, 403);
  assert.match(moved.body, /<Code>SignatureDoesNotMatch<\/Code>/);
});

test('errors for virtual-hosted buckets: missing bucket, invalid name in the Host', async () => {
  await assert.rejects(vhost.send(new GetObjectCommand({ Bucket: 'no-such-vbucket', Key: 'x' })),
    (e: unknown) => e instanceof S3ServiceException && e.name === 'NoSuchBucket');
  // An unsigned request with an unusable bucket label is answered by routing before auth.
  const bad = await rawRequest(h.port, { method: 'GET', path: '/', headers: { host: `a..b.${DOMAIN}` } });
  assert.equal(bad.status, 400);
  assert.match(bad.body, /<Code>InvalidBucketName<\/Code>/);
});
