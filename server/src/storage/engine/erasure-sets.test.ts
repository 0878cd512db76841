import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  BadDigestError, BucketExistsError, BucketNotEmptyError, BucketNotFoundError, EntityTooSmallError, IncompleteBodyError,
  InvalidBucketNameError, InvalidObjectNameError, InvalidPartError, InvalidPartOrderError, ObjectNotFoundError, UploadNotFoundError,
} from './storage-errors.js';
import { ErasureSets } from './erasure-sets.js';
import { NO_META, collect, get, md5hex, pattern, put, testCluster } from './testing.js';

test('put, get, ranges, overwrite, metadata and delete on 4 drives EC:2', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  await assert.rejects(st.makeBucket('bkt'), BucketExistsError);
  for (const size of [0, 1, 4096, 128 * 1024, 128 * 1024 + 1, 1 << 20, (1 << 20) + 13, 3 * (1 << 20) + 7]) {
    const data = pattern(size, size);
    const info = await st.putObject('bkt', `obj-${size}`, Readable.from([data]), {
      size, metadata: { system: { 'content-type': 'text/plain' }, user: { a: 'b' } },
    });
    assert.equal(info.etag, md5hex(data));
    assert.equal(info.size, size);
    const o = await st.openObject('bkt', `obj-${size}`);
    assert.deepEqual(o.info.system, { 'content-type': 'text/plain' });
    assert.deepEqual(o.info.user, { a: 'b' });
    assert.ok((await collect(o.read())).equals(data), `whole object of ${size}`);
    if (size > 2) {
      for (const [s, e] of [[0, 0], [1, size - 2], [size - 1, size - 1], [Math.floor(size / 2), size - 1]] as const) {
        assert.ok((await collect(o.read({ start: s, end: e }))).equals(data.subarray(s, e + 1)), `range ${s}-${e} of ${size}`);
      }
    }
  }
  await put(st, 'bkt', 'obj-1', Buffer.from('replaced'));
  assert.equal((await get(st, 'bkt', 'obj-1')).toString(), 'replaced');
  await st.deleteObject('bkt', 'obj-1');
  await assert.rejects(st.getObjectInfo('bkt', 'obj-1'), ObjectNotFoundError);
  await st.deleteObject('bkt', 'obj-1');
  await assert.rejects(st.getObjectInfo('nope', 'x'), BucketNotFoundError);
  await assert.rejects(st.getBucketInfo('..'), BucketNotFoundError);
  await assert.rejects(st.makeBucket('.svc.sys'), InvalidBucketNameError);
  await assert.rejects(st.makeBucket('a/b'), InvalidBucketNameError);
});

test('awkward keys are stored literally and stay inside the drive', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  const keys = [
    '..', '.', '../../escape', 'a//b', '/leading', 'trailing/', 'xl.meta', 'dir/xl.meta', '.svc.sys/format.json', '+plus', '#hash',
    'ü/漢字/😀', 'a'.repeat(255), `${'é'.repeat(200)}/x`, `${'z'.repeat(300)}/${'y'.repeat(300)}`, 'a/'.repeat(300), 'k'.repeat(1024),
  ];
  for (const [i, key] of keys.entries()) await put(st, 'bkt', key, Buffer.from(`v${i}`));
  for (const [i, key] of keys.entries()) assert.equal((await get(st, 'bkt', key)).toString(), `v${i}`, key);
  const listed: string[] = [];
  let startAfter = '';
  for (;;) {
    const page = await st.listObjects('bkt', { prefix: '', delimiter: '', startAfter, maxKeys: 5 });
    listed.push(...page.objects.map((o) => o.key));
    if (!page.isTruncated) break;
    startAfter = page.nextMarker!;
  }
  const sorted = [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  assert.deepEqual(listed, sorted);
  for (const bad of ['', 'k'.repeat(1025), 'a\0b', '\uD800x']) {
    await assert.rejects(put(st, 'bkt', bad, Buffer.from('x')), InvalidObjectNameError, JSON.stringify(bad.slice(0, 10)));
  }
});

test('listing: prefix, delimiter, startAfter, maxKeys across two sets', async (t) => {
  const c = await testCluster(2, 2, 1);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  const keys = ['a', 'a-b', 'a/b', 'a/c/d', 'a/c/e', 'b', 'b/x', 'c\u{1F600}', 'c\uFFFD', 'photos/2024/x.jpg', 'photos/2025/y.jpg'];
  for (const k of keys) await put(st, 'bkt', k, Buffer.from(k));
  const all = await st.listObjects('bkt', { prefix: '', delimiter: '', startAfter: '', maxKeys: 1000 });
  assert.deepEqual(all.objects.map((o) => o.key), [...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))));
  assert.equal(all.isTruncated, false);
  const top = await st.listObjects('bkt', { prefix: '', delimiter: '/', startAfter: '', maxKeys: 1000 });
  assert.deepEqual(top.objects.map((o) => o.key), ['a', 'a-b', 'b', 'c\uFFFD', 'c\u{1F600}']);
  assert.deepEqual(top.commonPrefixes, ['a/', 'b/', 'photos/']);
  const sub = await st.listObjects('bkt', { prefix: 'a/', delimiter: '/', startAfter: '', maxKeys: 1000 });
  assert.deepEqual(sub.objects.map((o) => o.key), ['a/b']);
  assert.deepEqual(sub.commonPrefixes, ['a/c/']);
  const part = await st.listObjects('bkt', { prefix: 'photos/20', delimiter: '/', startAfter: '', maxKeys: 1 });
  assert.deepEqual(part.commonPrefixes, ['photos/2024/']);
  assert.equal(part.isTruncated, true);
  assert.equal(part.nextMarker, 'photos/2024/');
  const next = await st.listObjects('bkt', { prefix: 'photos/20', delimiter: '/', startAfter: part.nextMarker!, maxKeys: 1 });
  assert.deepEqual(next.commonPrefixes, ['photos/2025/']);
  assert.equal(next.isTruncated, false);
  const dash = await st.listObjects('bkt', { prefix: 'a', delimiter: '-', startAfter: '', maxKeys: 1000 });
  assert.deepEqual(dash.commonPrefixes, ['a-']);
  assert.deepEqual(dash.objects.map((o) => o.key), ['a', 'a/b', 'a/c/d', 'a/c/e']);
  const after = await st.listObjects('bkt', { prefix: '', delimiter: '', startAfter: 'a/c/d', maxKeys: 2 });
  assert.deepEqual(after.objects.map((o) => o.key), ['a/c/e', 'b']);
  await assert.rejects(st.deleteBucket('bkt'), BucketNotEmptyError);
  for (const k of keys) await st.deleteObject('bkt', k);
  assert.deepEqual((await st.listObjects('bkt', { prefix: '', delimiter: '/', startAfter: '', maxKeys: 10 })).commonPrefixes, []);
  await st.deleteBucket('bkt');
  assert.deepEqual(await st.listBuckets(), []);
});

test('body checks: Content-MD5, size mismatch, stream errors leave nothing behind', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  const data = pattern(300 * 1024);
  await assert.rejects(st.putObject('bkt', 'k', Readable.from([data]), { size: data.length, metadata: NO_META, md5: Buffer.alloc(16) }), BadDigestError);
  await assert.rejects(st.putObject('bkt', 'k', Readable.from([data]), { size: data.length + 1, metadata: NO_META }), IncompleteBodyError);
  await assert.rejects(st.putObject('bkt', 'k', Readable.from([data]), { size: 10, metadata: NO_META }), IncompleteBodyError);
  const boom = new Error('client went away');
  const failing = new Readable({ read() { this.push(data.subarray(0, 1 << 20)); this.destroy(boom); } });
  await assert.rejects(st.putObject('bkt', 'k', failing, { size: -1, metadata: NO_META }), (err) => err === boom);
  await assert.rejects(st.getObjectInfo('bkt', 'k'), ObjectNotFoundError);
  // The refused bodies' shards (300 KiB: past the inline limit, so written to temp directories) are gone.
  const temps = async (): Promise<string[]> => (await Promise.all(c.sets[0]!.map((root) => readdir(join(root, '.svc.sys', 'tmp'))))).flat();
  assert.deepEqual(await temps(), []);
  const md5 = createHash('md5').update(data).digest();
  const ok = await st.putObject('bkt', 'k', Readable.from([data]), { size: -1, metadata: NO_META, md5, checksums: () => ({ CRC32: 'AAAAAA==' }) });
  assert.deepEqual(ok.checksums, { CRC32: 'AAAAAA==' });
  assert.deepEqual((await st.getObjectInfo('bkt', 'k')).checksums, { CRC32: 'AAAAAA==' });
  // A committed PUT moved its temp directory into the key's: nothing is left in the temp area either.
  assert.deepEqual(await temps(), []);
  assert.ok((await get(st, 'bkt', 'k')).equals(data));
});

test('multipart: upload, list, complete with validation, abort', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  const id = await st.createMultipartUpload('bkt', 'big/file', { metadata: { system: { 'content-type': 'a/b' }, user: {} }, checksumAlgorithm: 'CRC32' });
  const p1 = pattern(5 * 1024 * 1024, 1);
  const p2 = pattern(5 * 1024 * 1024 + 17, 2);
  const p3 = pattern(1000, 3);
  const i1 = await st.putObjectPart('bkt', 'big/file', id, 1, Readable.from([p1]), { size: p1.length });
  await st.putObjectPart('bkt', 'big/file', id, 2, Readable.from([pattern(10, 9)]), { size: 10 });
  const i2 = await st.putObjectPart('bkt', 'big/file', id, 2, Readable.from([p2]), { size: p2.length });
  const i3 = await st.putObjectPart('bkt', 'big/file', id, 3, Readable.from([p3]), { size: p3.length });
  await st.putObjectPart('bkt', 'big/file', id, 4, Readable.from([p3]), { size: p3.length });
  const uploads = await st.listMultipartUploads('bkt', { prefix: '', delimiter: '', keyMarker: '', uploadIdMarker: '', maxUploads: 10 });
  assert.deepEqual(uploads.uploads.map((u) => [u.key, u.uploadId, u.checksumAlgorithm]), [['big/file', id, 'CRC32']]);
  const parts = await st.listParts('bkt', 'big/file', id, { partNumberMarker: 0, maxParts: 2 });
  assert.deepEqual(parts.parts.map((p) => [p.partNumber, p.size]), [[1, p1.length], [2, p2.length]]);
  assert.equal(parts.isTruncated, true);
  assert.equal(parts.nextPartNumberMarker, 2);
  await assert.rejects(st.deleteBucket('bkt'), BucketNotEmptyError);
  await assert.rejects(st.completeMultipartUpload('bkt', 'big/file', id, [{ partNumber: 2, etag: i2.etag }, { partNumber: 1, etag: i1.etag }]), InvalidPartOrderError);
  await assert.rejects(st.completeMultipartUpload('bkt', 'big/file', id, [{ partNumber: 1, etag: i2.etag }]), InvalidPartError);
  await assert.rejects(st.completeMultipartUpload('bkt', 'big/file', id, [{ partNumber: 3, etag: i3.etag }, { partNumber: 4, etag: i3.etag }]), EntityTooSmallError);
  await assert.rejects(st.completeMultipartUpload('bkt', 'big/file', id, [{ partNumber: 9, etag: i3.etag }]), InvalidPartError);
  const info = await st.completeMultipartUpload('bkt', 'big/file', id, [
    { partNumber: 1, etag: `"${i1.etag}"` }, { partNumber: 2, etag: i2.etag }, { partNumber: 3, etag: i3.etag },
  ]);
  const md5s = Buffer.concat([p1, p2, p3].map((p) => createHash('md5').update(p).digest()));
  assert.equal(info.etag, `${createHash('md5').update(md5s).digest('hex')}-3`);
  assert.equal(info.partCount, 3);
  const whole = Buffer.concat([p1, p2, p3]);
  assert.ok((await get(st, 'bkt', 'big/file')).equals(whole));
  const o = await st.openObject('bkt', 'big/file');
  assert.equal(o.info.system['content-type'], 'a/b');
  const s = p1.length - 5;
  const e = p1.length + p2.length + 10;
  assert.ok((await collect(o.read({ start: s, end: e }))).equals(whole.subarray(s, e + 1)));
  await assert.rejects(st.listParts('bkt', 'big/file', id, { partNumberMarker: 0, maxParts: 10 }), UploadNotFoundError);
  const id2 = await st.createMultipartUpload('bkt', 'other', { metadata: NO_META });
  await st.putObjectPart('bkt', 'other', id2, 1, Readable.from([p3]), { size: p3.length });
  await st.abortMultipartUpload('bkt', 'other', id2);
  await assert.rejects(st.abortMultipartUpload('bkt', 'other', id2), UploadNotFoundError);
  await assert.rejects(st.putObjectPart('bkt', 'other', 'not-an-id', 1, Readable.from([p3]), { size: 3 }), UploadNotFoundError);
  assert.equal((await st.listMultipartUploads('bkt', { prefix: '', delimiter: '', keyMarker: '', uploadIdMarker: '', maxUploads: 10 })).uploads.length, 0);
});

test('one drive: no erasure (K=1, M=0)', async (t) => {
  const c = await testCluster(1, 1, 0);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  const data = pattern(2 * 1024 * 1024 + 3);
  await put(st, 'bkt', 'k', data);
  assert.ok((await get(st, 'bkt', 'k')).equals(data));
  const h = await st.health();
  assert.deepEqual([h.writable, h.readable, h.writeQuorum, h.readQuorum], [true, true, 1, 1]);
});

test('ListParts reads the records of its page and one more; completion reads those of the parts it names; a part agreed by too few drives is skipped', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open({ scanner: false });
  await st.makeBucket('bkt');
  const id = await st.createMultipartUpload('bkt', 'paged', { metadata: NO_META });
  const etags: string[] = [];
  for (let n = 1; n <= 10; n++) {
    const body = Buffer.from(`p${n}`);
    etags.push((await st.putObjectPart('bkt', 'paged', id, n, Readable.from([body]), { size: body.length })).etag);
  }
  assert.ok(st instanceof ErasureSets);
  const drives = st.sets[0]!.drives.map((d) => d.drive);
  const read: number[] = [];
  for (const d of drives) {
    const readSysFile = d.readSysFile.bind(d);
    d.readSysFile = (path) => {
      const m = /\/part\.(\d+)\.meta$/.exec(path);
      if (m !== null) read.push(Number(m[1]));
      return readSysFile(path);
    };
  }
  const partsRead = (): number[] => [...new Set(read.splice(0))].sort((a, b) => a - b);
  const first = await st.listParts('bkt', 'paged', id, { partNumberMarker: 0, maxParts: 3 });
  assert.deepEqual([first.parts.map((p) => p.partNumber), first.isTruncated, first.nextPartNumberMarker], [[1, 2, 3], true, 3]);
  assert.deepEqual(partsRead(), [1, 2, 3, 4]);
  const last = await st.listParts('bkt', 'paged', id, { partNumberMarker: 7, maxParts: 3 });
  assert.deepEqual([last.parts.map((p) => p.partNumber), last.isTruncated], [[8, 9, 10], false]);
  assert.deepEqual(partsRead(), [8, 9, 10]);
  const none = await st.listParts('bkt', 'paged', id, { partNumberMarker: 0, maxParts: 0 });
  assert.deepEqual([none.parts, none.isTruncated, none.upload.uploadId], [[], true, id]);
  assert.deepEqual(partsRead(), [1]);
  // Part 5's record left on one drive only (K = 2 must agree): the page goes on to part 7.
  for (const root of c.sets[0]!.slice(1)) {
    const base = join(root, '.svc.sys', 'multipart');
    const found = (await readdir(base, { recursive: true })).filter((p) => p.endsWith('/part.5.meta'));
    assert.equal(found.length, 1);
    await unlink(join(base, found[0]!));
  }
  const skipped = await st.listParts('bkt', 'paged', id, { partNumberMarker: 3, maxParts: 3 });
  assert.deepEqual([skipped.parts.map((p) => p.partNumber), skipped.isTruncated], [[4, 6, 7], true]);
  assert.deepEqual(partsRead(), [4, 5, 6, 7, 8]);
  await st.completeMultipartUpload('bkt', 'paged', id, [{ partNumber: 9, etag: etags[8]! }]);
  assert.deepEqual(partsRead(), [9]);
  assert.deepEqual(await get(st, 'bkt', 'paged'), Buffer.from('p9'));
});
