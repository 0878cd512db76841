import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CompleteMultipartUploadCommand, CopyObjectCommand, CreateBucketCommand, CreateMultipartUploadCommand, DeleteObjectCommand,
  DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutBucketVersioningCommand, PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeObjectRecord } from '../../src/storage/format/index.js';
import { objectDir } from '../helpers/drive-files.js';
import { mustReadRecord } from '../helpers/drive-records.js';
import { startS3, type S3Harness } from './helpers/harness.js';
import { rejectsWith } from './helpers/rejects.js';
import { errorCode, signedRequest } from './helpers/raw.js';

let h: S3Harness;
before(async () => {
  h = await startS3();
  for (const b of ['ver', 'susp', 'plain']) await h.client.send(new CreateBucketCommand({ Bucket: b }));
  await h.client.send(new PutBucketVersioningCommand({ Bucket: 'ver', VersioningConfiguration: { Status: 'Enabled' } }));
});
after(async () => { await h.close(); });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MISSING = '0a1b2c3d-0000-4000-8000-000000000000';


const body = async (bucket: string, key: string, versionId?: string): Promise<string> =>
  (await (await h.client.send(new GetObjectCommand({ Bucket: bucket, Key: key, ...(versionId ? { VersionId: versionId } : {}) }))).Body?.transformToString()) ?? '';

test('PUT in an Enabled bucket returns a version id per write; GET/HEAD by VersionId read each version', async () => {
  const p1 = await h.client.send(new PutObjectCommand({ Bucket: 'ver', Key: 'doc', Body: 'first' }));
  const p2 = await h.client.send(new PutObjectCommand({ Bucket: 'ver', Key: 'doc', Body: 'second!' }));
  assert.match(p1.VersionId ?? '', UUID);
  assert.match(p2.VersionId ?? '', UUID);
  assert.notEqual(p1.VersionId, p2.VersionId);
  assert.equal(await body('ver', 'doc'), 'second!');
  assert.equal(await body('ver', 'doc', p1.VersionId), 'first');
  const get = await h.client.send(new GetObjectCommand({ Bucket: 'ver', Key: 'doc' }));
  assert.equal(get.VersionId, p2.VersionId);
  await get.Body?.transformToString();
  const head = await h.client.send(new HeadObjectCommand({ Bucket: 'ver', Key: 'doc', VersionId: p1.VersionId }));
  assert.equal(head.ContentLength, 5);
  assert.equal(head.VersionId, p1.VersionId);
  const ranged = await h.client.send(new GetObjectCommand({ Bucket: 'ver', Key: 'doc', VersionId: p1.VersionId, Range: 'bytes=1-3' }));
  assert.equal(await ranged.Body?.transformToString(), 'irs');
});

test('NoSuchVersion for an unknown id, InvalidArgument for a malformed one', async () => {
  await h.client.send(new PutObjectCommand({ Bucket: 'ver', Key: 'errs', Body: 'x' }));
  await rejectsWith(h.client.send(new GetObjectCommand({ Bucket: 'ver', Key: 'errs', VersionId: MISSING })), 'NoSuchVersion', 404);
  await rejectsWith(h.client.send(new HeadObjectCommand({ Bucket: 'ver', Key: 'errs', VersionId: MISSING })), 'NotFound', 404);
  await rejectsWith(h.client.send(new GetObjectCommand({ Bucket: 'ver', Key: 'errs', VersionId: 'not-a-version' })), 'InvalidArgument', 400);
  const raw = await signedRequest(h.port, { method: 'GET', path: '/ver/errs', query: { versionId: MISSING } });
  assert.equal(raw.status, 404);
  assert.equal(errorCode(raw.body), 'NoSuchVersion');
  await rejectsWith(h.client.send(new DeleteObjectCommand({ Bucket: 'ver', Key: 'errs', VersionId: 'v1' })), 'InvalidArgument', 400);
});

test('DELETE adds a delete marker: GET is 404 with x-amz-delete-marker, GET of the marker is 405; removing the marker restores the object', async () => {
  const put = await h.client.send(new PutObjectCommand({ Bucket: 'ver', Key: 'gone', Body: 'still here' }));
  const del = await h.client.send(new DeleteObjectCommand({ Bucket: 'ver', Key: 'gone' }));
  assert.equal(del.$metadata.httpStatusCode, 204);
  assert.equal(del.DeleteMarker, true);
  assert.match(del.VersionId ?? '', UUID);

  const get = await signedRequest(h.port, { method: 'GET', path: '/ver/gone' });
  assert.equal(get.status, 404);
  assert.equal(errorCode(get.body), 'NoSuchKey');
  assert.equal(get.headers['x-amz-delete-marker'], 'true');
  assert.equal(get.headers['x-amz-version-id'], del.VersionId);
  const head = await signedRequest(h.port, { method: 'HEAD', path: '/ver/gone' });
  assert.equal(head.status, 404);
  assert.equal(head.headers['x-amz-delete-marker'], 'true');

  const marker = await signedRequest(h.port, { method: 'GET', path: '/ver/gone', query: { versionId: del.VersionId! } });
  assert.equal(marker.status, 405);
  assert.equal(errorCode(marker.body), 'MethodNotAllowed');
  assert.equal(marker.headers['x-amz-delete-marker'], 'true');
  assert.equal(marker.headers['x-amz-version-id'], del.VersionId);
  await rejectsWith(h.client.send(new GetObjectCommand({ Bucket: 'ver', Key: 'gone', VersionId: del.VersionId })), 'MethodNotAllowed', 405);
  assert.equal(await body('ver', 'gone', put.VersionId), 'still here');
  const listed = await h.client.send(new ListObjectsV2Command({ Bucket: 'ver', Prefix: 'gone' }));
  assert.equal(listed.KeyCount, 0);

  const unmark = await h.client.send(new DeleteObjectCommand({ Bucket: 'ver', Key: 'gone', VersionId: del.VersionId }));
  assert.equal(unmark.DeleteMarker, true);
  assert.equal(unmark.VersionId, del.VersionId);
  assert.equal(await body('ver', 'gone'), 'still here');
  assert.equal((await h.client.send(new ListObjectsV2Command({ Bucket: 'ver', Prefix: 'gone' }))).KeyCount, 1);

  const remove = await h.client.send(new DeleteObjectCommand({ Bucket: 'ver', Key: 'gone', VersionId: put.VersionId }));
  assert.equal(remove.VersionId, put.VersionId);
  assert.equal(remove.DeleteMarker, undefined);
  await rejectsWith(h.client.send(new GetObjectCommand({ Bucket: 'ver', Key: 'gone' })), 'NoSuchKey', 404);
});

test('Suspended: writes replace the "null" version (x-amz-version-id: null), older versions stay', async () => {
  await h.client.send(new PutObjectCommand({ Bucket: 'susp', Key: 'k', Body: 'before versioning' }));
  await h.client.send(new PutBucketVersioningCommand({ Bucket: 'susp', VersioningConfiguration: { Status: 'Enabled' } }));
  const enabled = await h.client.send(new PutObjectCommand({ Bucket: 'susp', Key: 'k', Body: 'enabled' }));
  assert.equal(await body('susp', 'k', 'null'), 'before versioning');
  await h.client.send(new PutBucketVersioningCommand({ Bucket: 'susp', VersioningConfiguration: { Status: 'Suspended' } }));
  const s1 = await h.client.send(new PutObjectCommand({ Bucket: 'susp', Key: 'k', Body: 'suspended' }));
  assert.equal(s1.VersionId, 'null');
  assert.equal(await body('susp', 'k'), 'suspended');
  assert.equal(await body('susp', 'k', 'null'), 'suspended');
  assert.equal(await body('susp', 'k', enabled.VersionId), 'enabled');
  const del = await h.client.send(new DeleteObjectCommand({ Bucket: 'susp', Key: 'k' }));
  assert.equal(del.DeleteMarker, true);
  assert.equal(del.VersionId, 'null');
  await rejectsWith(h.client.send(new GetObjectCommand({ Bucket: 'susp', Key: 'k' })), 'NoSuchKey', 404);
  assert.equal(await body('susp', 'k', enabled.VersionId), 'enabled');
});

test('CopyObject and CompleteMultipartUpload add versions; a copy can read an older source version', async () => {
  const old = await h.client.send(new PutObjectCommand({ Bucket: 'ver', Key: 'src', Body: 'old source' }));
  await h.client.send(new PutObjectCommand({ Bucket: 'ver', Key: 'src', Body: 'new source' }));
  const copy = await h.client.send(new CopyObjectCommand({ Bucket: 'ver', Key: 'dst', CopySource: `ver/src?versionId=${old.VersionId}` }));
  assert.match(copy.VersionId ?? '', UUID);
  assert.equal(copy.CopySourceVersionId, old.VersionId);
  assert.equal(await body('ver', 'dst'), 'old source');
  const copy2 = await h.client.send(new CopyObjectCommand({ Bucket: 'ver', Key: 'dst', CopySource: 'ver/src' }));
  assert.notEqual(copy2.VersionId, copy.VersionId);
  assert.equal(await body('ver', 'dst', copy.VersionId), 'old source');
  await rejectsWith(h.client.send(new CopyObjectCommand({ Bucket: 'ver', Key: 'dst', CopySource: `ver/src?versionId=${MISSING}` })), 'NoSuchVersion', 404);

  const { UploadId } = await h.client.send(new CreateMultipartUploadCommand({ Bucket: 'ver', Key: 'dst' }));
  const part = await h.client.send(new UploadPartCommand({ Bucket: 'ver', Key: 'dst', UploadId, PartNumber: 1, Body: 'multipart body' }));
  const done = await h.client.send(new CompleteMultipartUploadCommand({
    Bucket: 'ver', Key: 'dst', UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
  }));
  assert.match(done.VersionId ?? '', UUID);
  assert.equal(await body('ver', 'dst'), 'multipart body');
  assert.equal(await body('ver', 'dst', copy2.VersionId), 'new source');
});

test('DeleteObjects with VersionId per key: markers and permanent deletes are reported as AWS does', async () => {
  const a = await h.client.send(new PutObjectCommand({ Bucket: 'ver', Key: 'multi/a', Body: 'a' }));
  await h.client.send(new PutObjectCommand({ Bucket: 'ver', Key: 'multi/b', Body: 'b' }));
  const res = await h.client.send(new DeleteObjectsCommand({
    Bucket: 'ver',
    Delete: { Objects: [{ Key: 'multi/a', VersionId: a.VersionId }, { Key: 'multi/b' }, { Key: 'multi/c', VersionId: 'bogus' }] },
  }));
  const byKey = new Map((res.Deleted ?? []).map((d) => [d.Key, d]));
  assert.equal(byKey.get('multi/a')?.VersionId, a.VersionId);
  assert.equal(byKey.get('multi/a')?.DeleteMarker, undefined);
  assert.equal(byKey.get('multi/b')?.DeleteMarker, true);
  assert.match(byKey.get('multi/b')?.DeleteMarkerVersionId ?? '', UUID);
  assert.deepEqual((res.Errors ?? []).map((e) => [e.Key, e.Code, e.VersionId]), [['multi/c', 'InvalidArgument', 'bogus']]);
  await rejectsWith(h.client.send(new GetObjectCommand({ Bucket: 'ver', Key: 'multi/a', VersionId: a.VersionId })), 'NoSuchVersion', 404);
  await rejectsWith(h.client.send(new GetObjectCommand({ Bucket: 'ver', Key: 'multi/b' })), 'NoSuchKey', 404);
});

test('an unversioned bucket answers without version headers and deletes for good', async () => {
  const put = await h.client.send(new PutObjectCommand({ Bucket: 'plain', Key: 'p', Body: 'x' }));
  assert.equal(put.VersionId, undefined);
  const get = await h.client.send(new GetObjectCommand({ Bucket: 'plain', Key: 'p' }));
  assert.equal(get.VersionId, undefined);
  await get.Body?.transformToString();
  assert.equal(await body('plain', 'p', 'null'), 'x');
  const del = await h.client.send(new DeleteObjectCommand({ Bucket: 'plain', Key: 'p' }));
  assert.equal(del.DeleteMarker, undefined);
  assert.equal(del.VersionId, undefined);
  await rejectsWith(h.client.send(new GetObjectCommand({ Bucket: 'plain', Key: 'p', VersionId: 'null' })), 'NoSuchVersion', 404);
  await rejectsWith(h.client.send(new GetObjectCommand({ Bucket: 'plain', Key: 'p' })), 'NoSuchKey', 404);
});

test('an older version survives damaged shards: bitrot is detected per version and the GET returns the original bytes', async () => {
  const old = Buffer.alloc(600_000);
  for (let i = 0; i < old.length; i++) old[i] = (i * 31 + 7) & 0xff;
  const v1 = await h.client.send(new PutObjectCommand({ Bucket: 'ver', Key: 'rot', Body: old }));
  await h.client.send(new PutObjectCommand({ Bucket: 'ver', Key: 'rot', Body: 'newer' }));
  let damaged = 0;
  for (const drive of h.drives) {
    const dir = objectDir(drive, 'ver', 'rot');
    // The key's record in either drive layout (a metadata file or the drive's key index); in both, the version's
    // data directory is under the key's directory.
    const own = decodeObjectRecord(await mustReadRecord(drive, 'ver', 'rot')).versions.find((v) => v.versionId === v1.VersionId);
    assert.ok(own !== undefined && 'dataDir' in own && own.dataDir !== null);
    // Two of four shards (the data shards a healthy read uses) get a flipped byte: EC 2+2 still decodes.
    if (own.erasure.index > 2) continue;
    assert.ok((await readdir(dir)).includes(own.dataDir));
    const file = join(dir, own.dataDir, 'part.1');
    const bytes = await readFile(file);
    bytes[100] = bytes[100]! ^ 0xff;
    await writeFile(file, bytes);
    damaged++;
  }
  assert.equal(damaged, 2);
  const got = await h.client.send(new GetObjectCommand({ Bucket: 'ver', Key: 'rot', VersionId: v1.VersionId }));
  assert.ok(Buffer.from(await got.Body!.transformToByteArray()).equals(old));
  assert.equal(await body('ver', 'rot'), 'newer');
});
