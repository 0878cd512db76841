import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { CreateBucketCommand, GetObjectCommand, ListBucketsCommand, PutObjectCommand, S3ServiceException } from '@aws-sdk/client-s3';
import { healthPlugin } from '../../src/http/health/index.js';
import type { ObjectLayer } from '../../src/storage/index.js';
import { startS3, type S3Harness } from './helpers/harness.js';
import { errorCode, signedRequest } from './helpers/raw.js';

let h: S3Harness;
// Fault injection: listing the bucket "explode" throws an error the edge has never heard of.
const exploding = (layer: ObjectLayer): ObjectLayer => new Proxy(layer, {
  get(target, prop, receiver) {
    if (prop === 'listObjects') {
      return async (bucket: string, opts: Parameters<ObjectLayer['listObjects']>[1]) => {
        if (bucket === 'explode') throw new Error('internal detail: /srv/drive7 fd 42');
        return target.listObjects(bucket, opts);
      };
    }
    const v: unknown = Reflect.get(target, prop, receiver);
    return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
  },
});

before(async () => {
  h = await startS3({
    wrapLayer: exploding,
    before: async (app) => {
      await app.register(healthPlugin, {
        enabled: true,
        sources: {
          storage: async () => ({ writable: true, readable: true, writeQuorum: 3, readQuorum: 2, onlineDrives: 4, offlineDrives: 0, healingDrives: 0 }),
          iamReady: () => true,
          lockReady: async () => true,
          version: 'test',
          startedAt: new Date(),
          maintenanceLosesQuorum: () => true,
        },
      });
    },
  });
  await h.client.send(new CreateBucketCommand({ Bucket: 'explode' }));
  await h.client.send(new CreateBucketCommand({ Bucket: 'data' }));
});
after(async () => { await h.close(); });

test('health routes win over the S3 catch-all and need no signature; other paths are S3', async () => {
  const ready = await fetch(`${h.endpoint}/health/ready`);
  assert.equal(ready.status, 200);
  assert.match(ready.headers.get('content-type') ?? '', /json/);
  assert.equal(ready.headers.get('x-amz-request-id'), null);
  const live = await fetch(`${h.endpoint}/health/live`);
  assert.equal(live.status, 200);
  const s3 = await fetch(`${h.endpoint}/health-bucket/x`);
  assert.equal(s3.status, 403);
  assert.equal(errorCode(await s3.text()), 'AccessDenied');
});

test('an unexpected engine error is a generic 500 InternalError; the detail stays in the log', async () => {
  const res = await signedRequest(h.port, { method: 'GET', path: '/explode' });
  assert.equal(res.status, 500);
  assert.equal(errorCode(res.body), 'InternalError');
  assert.doesNotMatch(res.body, /drive7|fd 42|internal detail/);
  assert.match(res.body, /<RequestId>[0-9A-F]{16}<\/RequestId>/);
  const ok = await h.client.send(new ListBucketsCommand({}));
  assert.equal(ok.Buckets?.length, 2);
});

test('losing write quorum answers 503 ServiceUnavailable with an operator hint; reads that still have quorum work', async () => {
  await h.client.send(new PutObjectCommand({ Bucket: 'data', Key: 'before', Body: 'still readable' }));
  // 4 drives, parity 2: a write needs 3 drives; remove two.
  await rm(h.drives[2]!, { recursive: true, force: true, maxRetries: 5 });
  await rm(h.drives[3]!, { recursive: true, force: true, maxRetries: 5 });
  const res = await signedRequest(h.port, { method: 'PUT', path: '/data/after', body: 'nope' });
  assert.equal(res.status, 503, res.body);
  assert.equal(errorCode(res.body), 'ServiceUnavailable');
  assert.match(res.body, /write quorum/);
  const get = await h.client.send(new GetObjectCommand({ Bucket: 'data', Key: 'before' }));
  assert.equal(await get.Body!.transformToString(), 'still readable');
  await assert.rejects(h.client.send(new GetObjectCommand({ Bucket: 'data', Key: 'after' })), (e: unknown) => e instanceof S3ServiceException);
});

test('the injected clock is used for signature time checks: a skewed server answers RequestTimeTooSkewed', async () => {
  const skewed = await startS3({ now: () => new Date(Date.now() + 3600_000) });
  try {
    await assert.rejects(skewed.client.send(new ListBucketsCommand({})), (e: unknown) =>
      e instanceof S3ServiceException && e.name === 'RequestTimeTooSkewed' && e.$metadata.httpStatusCode === 403);
  } finally {
    await skewed.close();
  }
});
