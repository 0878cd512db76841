import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parseKmsSecretKey } from '../../../crypto/index.js';
import { ObjectNotFoundError, openStorage, type ObjectLayer, type Storage } from '../../../storage/index.js';
import { S3Error } from '../s3-error.js';
import { encryptingObjectView } from './object-view.js';

let root: string;
let storage: Storage;
let view: ObjectLayer;
const kms = parseKmsSecretKey(`view-test:${randomBytes(32).toString('base64')}`);
const META = { system: {}, user: {} };

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-object-view-'));
  const drives = [1, 2, 3, 4].map((i) => join(root, `d${i}`));
  for (const d of drives) await mkdir(d);
  storage = await openStorage({ sets: [drives], parity: 2 });
  view = encryptingObjectView(storage, kms);
  await storage.makeBucket('clear');
  await storage.makeBucket('enc');
  await storage.putBucketConfig('enc', 'encryption', 'AES256');
});
after(async () => {
  await storage.close();
  await rm(root, { recursive: true, force: true, maxRetries: 5 });
});

async function readAll(s: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

test('a bucket without default encryption: writes and reads are the engine\'s own', async () => {
  const body = Buffer.from('in clear');
  await view.putObject('clear', 'k', Readable.from([body]), { size: body.length, metadata: META });
  const raw = await storage.getObjectInfo('clear', 'k');
  assert.equal(raw.internal, undefined);
  assert.equal(raw.size, body.length);
  assert.deepEqual(await readAll((await view.openObject('clear', 'k')).read()), body);
});

test('a bucket with default encryption: stored as SSE-S3 ciphertext, seen as the plaintext (size, ETag, ranges, listings)', async () => {
  const body = randomBytes(150_000);
  const put = await view.putObject('enc', 'k', Readable.from([body]), { size: body.length, metadata: META });
  const md5 = createHash('md5').update(body).digest('hex');
  assert.equal(put.size, body.length);
  assert.equal(put.etag, md5);
  const raw = await storage.getObjectInfo('enc', 'k');
  assert.equal(raw.internal?.['sse.kind'], 'SSE-S3');
  assert.ok(raw.size > body.length);
  assert.ok(!(await readAll((await storage.openObject('enc', 'k')).read())).includes(body.subarray(0, 64)));
  const info = await view.getObjectInfo('enc', 'k');
  assert.equal(info.size, body.length);
  assert.equal(info.etag, md5);
  const opened = await view.openObject('enc', 'k');
  assert.deepEqual(await readAll(opened.read()), body);
  assert.deepEqual(await readAll(opened.read({ start: 70_000, end: 140_000 })), body.subarray(70_000, 140_001));
  const listed = await view.listObjects('enc', { prefix: '', delimiter: '', startAfter: '', maxKeys: 10 });
  assert.deepEqual(listed.objects.map((o) => o.size), [body.length]);
  const versions = await view.listObjectVersions('enc', { prefix: '', delimiter: '', keyMarker: '', versionIdMarker: '', maxKeys: 10 });
  assert.deepEqual(versions.versions.map((v) => v.info?.size), [body.length]);
});

test('a Content-MD5 that does not match the plaintext is BadDigest and stores nothing', async () => {
  const body = Buffer.from('checked before commit');
  await assert.rejects(
    view.putObject('enc', 'bad', Readable.from([body]), { size: body.length, metadata: META, md5: createHash('md5').update('other').digest() }),
    (err: unknown) => err instanceof S3Error && err.code === 'BadDigest',
  );
  await assert.rejects(storage.getObjectInfo('enc', 'bad'), ObjectNotFoundError);
});

test('SSE-C objects are refused; without a KMS, default-encrypted writes and SSE-S3 reads are NotImplemented', async () => {
  await storage.putObject('clear', 'customer', Readable.from([Buffer.from('x')]), { size: 1, metadata: META, internal: { 'sse.kind': 'SSE-C' } });
  await assert.rejects(view.openObject('clear', 'customer'), (err: unknown) => err instanceof S3Error && err.code === 'InvalidRequest');
  const noKms = encryptingObjectView(storage, undefined);
  await assert.rejects(
    noKms.putObject('enc', 'n', Readable.from([Buffer.from('x')]), { size: 1, metadata: META }),
    (err: unknown) => err instanceof S3Error && err.code === 'NotImplemented',
  );
  await assert.rejects(noKms.openObject('enc', 'k'), (err: unknown) => err instanceof S3Error && err.code === 'NotImplemented');
  await assert.rejects(storage.getObjectInfo('enc', 'n'), ObjectNotFoundError);
});

test('every other call is the engine\'s (bound to it)', async () => {
  assert.deepEqual((await view.listBuckets()).map((b) => b.name).sort(), ['clear', 'enc']);
  assert.equal(await view.getBucketConfig('enc', 'encryption'), 'AES256');
});
