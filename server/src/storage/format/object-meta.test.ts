import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { decodeObjectMeta, encodeObjectMeta } from './object-meta.js';
import type { ObjectMeta } from './object-meta.js';
import { CorruptRecordError } from './format-errors.js';

const FIXTURE_V1 = new URL('./testdata/object-meta-v1.bin', import.meta.url);

test('version 1 fixture decodes to the expected record', async () => {
  const meta = decodeObjectMeta(await readFile(FIXTURE_V1));
  assert.equal(meta.versionId, '6f1e0a52-4c1d-4b53-9a0e-2f1f3c0b8f11');
  assert.equal(meta.key, 'photos/2024/../a b/ü.jpg');
  assert.equal(meta.size, 5);
  assert.equal(meta.modTime, 1718000000000);
  assert.deepEqual(meta.system, { 'content-type': 'image/jpeg' });
  assert.deepEqual(meta.user, { owner: 'alice' });
  assert.deepEqual(meta.checksums, { CRC32: 'NhCmhg==' });
  assert.deepEqual(meta.erasure, { k: 2, m: 2, blockSize: 1048576, index: 3, distribution: [2, 3, 4, 1] });
  assert.equal(meta.dataDir, null);
  assert.deepEqual(meta.parts, [{ number: 1, size: 5, etag: '5d41402abc4b2a76b9719d911017c592' }]);
  assert.deepEqual(meta.inline, Buffer.from('00112233', 'hex'));
  assert.equal(meta.partCount, undefined);
});

test('encode then decode round-trips, including partCount and a data directory', () => {
  const meta: ObjectMeta = {
    versionId: 'v', key: 'k', size: 10 << 20, etag: 'abc-2', modTime: 1, system: {}, user: {}, checksums: {}, partCount: 2,
    erasure: { k: 4, m: 2, blockSize: 1 << 20, index: 1, distribution: [1, 2, 3, 4, 5, 6] },
    dataDir: '2b9a3c51-1f7e-4a57-8e0c-1d2e3f4a5b6c', parts: [{ number: 1, size: 5 << 20, etag: 'a' }, { number: 3, size: 5 << 20, etag: 'b' }], inline: null,
  };
  assert.deepEqual(decodeObjectMeta(encodeObjectMeta(meta)), meta);
});

test('bad magic, unknown version and garbage are typed errors', async () => {
  const good = await readFile(FIXTURE_V1);
  assert.throws(() => decodeObjectMeta(Buffer.from('XL2 junk')), CorruptRecordError);
  const future = Buffer.from(good);
  future.writeUInt16LE(99, 4);
  assert.throws(() => decodeObjectMeta(future), /unsupported version 99/);
  assert.throws(() => decodeObjectMeta(good.subarray(0, 20)), CorruptRecordError);
});

test('tags round-trip in order, any key allowed; untagged records carry no tags field', () => {
  const base: ObjectMeta = {
    versionId: 'v', key: 'k', size: 1, etag: 'e', modTime: 1, system: {}, user: {}, checksums: {},
    erasure: { k: 2, m: 2, blockSize: 1 << 20, index: 1, distribution: [1, 2, 3, 4] }, dataDir: null, parts: [], inline: null,
  };
  const tags = [{ key: 'z', value: '1' }, { key: '__proto__', value: '' }, { key: 'a b', value: 'ü' }];
  assert.deepEqual(decodeObjectMeta(encodeObjectMeta({ ...base, tags })).tags, tags);
  assert.equal('tags' in decodeObjectMeta(encodeObjectMeta(base)), false);
  assert.deepEqual(encodeObjectMeta({ ...base, tags: [] }), encodeObjectMeta(base));
});
