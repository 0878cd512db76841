import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import {
  NULL_VERSION_ID, decodeObjectMeta, decodeObjectRecord, encodeObjectMeta, encodeObjectRecord, isDeleteMarker,
} from './object-meta.js';
import type { ObjectMeta, ObjectRecord } from './object-meta.js';
import { CorruptRecordError } from './format-errors.js';
import { envelopeLayout } from './envelope.js';
import { decodePartRecord, encodePartRecord } from './sys-records.js';

const FIXTURE_V1 = new URL('./testdata/object-meta-v1.bin', import.meta.url);
const FIXTURE_V2 = new URL('./testdata/object-meta-v2.bin', import.meta.url);

/**
 * `encoded` (written now: a checked record) holds the same msgpack body as `fixture` (written by an earlier release,
 * unchecked), for the record version `version`: the on-disk layout changed by the CRC trailer only.
 */
function assertSameBody(encoded: Buffer, fixture: Buffer, version: number): void {
  assert.deepEqual(envelopeLayout(fixture), { version, bodyEnd: fixture.length }, 'the fixture predates the CRC');
  assert.deepEqual(envelopeLayout(encoded), { version, bodyEnd: encoded.length - 4 });
  assert.deepEqual(encoded.subarray(0, 4), fixture.subarray(0, 4));
  assert.deepEqual(encoded.subarray(6, -4), fixture.subarray(6));
}

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

test('a version 1 record decodes as one "null" object version and re-encodes to the same body, now CRC-checked', async () => {
  const bytes = await readFile(FIXTURE_V1);
  const rec = decodeObjectRecord(bytes);
  assert.equal(rec.key, 'photos/2024/../a b/ü.jpg');
  assert.equal(rec.writeId, '6f1e0a52-4c1d-4b53-9a0e-2f1f3c0b8f11');
  assert.equal(rec.versions.length, 1);
  const v = rec.versions[0]!;
  assert.ok(!isDeleteMarker(v));
  assert.equal(v.versionId, NULL_VERSION_ID);
  assert.deepEqual(v.inline, Buffer.from('00112233', 'hex'));
  assertSameBody(encodeObjectRecord(rec), bytes, 1);
});

test('version 2 fixture (delete marker, object version, null version) decodes newest first', async () => {
  const bytes = await readFile(FIXTURE_V2);
  const rec = decodeObjectRecord(bytes);
  assert.equal(rec.key, 'docs/report.pdf');
  assert.equal(rec.writeId, '0b6c1f4e-9d1a-4c55-8f0e-6a1b2c3d4e5f');
  assert.deepEqual(rec.versions.map((v) => [v.versionId, isDeleteMarker(v), v.modTime]), [
    ['7d2a9c1e-3b4f-4e6a-9c8d-1e2f3a4b5c6d', true, 1718000300000],
    ['3f8e2d1c-5a6b-4c7d-8e9f-0a1b2c3d4e5f', false, 1718000200000],
    ['null', false, 1718000100000],
  ]);
  const [marker, obj, nul] = rec.versions as [unknown, ObjectMeta, ObjectMeta];
  assert.deepEqual(marker, { deleteMarker: true, versionId: '7d2a9c1e-3b4f-4e6a-9c8d-1e2f3a4b5c6d', key: 'docs/report.pdf', modTime: 1718000300000 });
  assert.equal(obj.key, 'docs/report.pdf');
  assert.equal(obj.dataDir, '2b9a3c51-1f7e-4a57-8e0c-1d2e3f4a5b6c');
  assert.deepEqual(obj.tags, [{ key: 'k', value: 'v' }]);
  assert.deepEqual(obj.erasure, { k: 2, m: 2, blockSize: 1048576, index: 3, distribution: [2, 3, 4, 1] });
  assert.equal(nul.partCount, 1);
  assert.deepEqual(nul.user, { owner: 'bob' });
  assert.deepEqual(nul.inline, Buffer.from('aabb', 'hex'));
  assertSameBody(encodeObjectRecord(rec), bytes, 2);
  assert.equal(decodeObjectMeta(bytes).versionId, '3f8e2d1c-5a6b-4c7d-8e9f-0a1b2c3d4e5f');
});

test('records with several versions, a lone marker or a lone non-null version are journals; bad journals are typed errors', () => {
  const base: ObjectMeta = {
    versionId: 'a', key: 'k', size: 1, etag: 'e', modTime: 2, system: {}, user: {}, checksums: {},
    erasure: { k: 2, m: 2, blockSize: 1 << 20, index: 1, distribution: [1, 2, 3, 4] }, dataDir: null, parts: [], inline: null,
  };
  const lone: ObjectRecord = { key: 'k', writeId: 'w', versions: [base] };
  assert.deepEqual(decodeObjectRecord(encodeObjectRecord(lone)), lone);
  assert.equal(envelopeLayout(encodeObjectRecord(lone))?.version, 2);
  const marker: ObjectRecord = { key: 'k', writeId: 'w', versions: [{ deleteMarker: true, versionId: NULL_VERSION_ID, key: 'k', modTime: 3 }] };
  assert.deepEqual(decodeObjectRecord(encodeObjectRecord(marker)), marker);
  assert.throws(() => decodeObjectMeta(encodeObjectRecord(marker)), CorruptRecordError);
  const nul: ObjectRecord = { key: 'k', writeId: 'w', versions: [{ ...base, versionId: NULL_VERSION_ID }] };
  assert.equal(envelopeLayout(encodeObjectRecord(nul))?.version, 1);
  const empty = Buffer.from(encodeObjectRecord(lone));
  assert.throws(() => decodeObjectRecord(encodeObjectRecord({ key: 'k', writeId: 'w', versions: [] })), /missing versions/);
  assert.throws(() => decodeObjectRecord(empty.subarray(0, 12)), CorruptRecordError);
});

test('part checksums and server-reserved internal metadata round-trip; absent ones are not written', () => {
  const meta: ObjectMeta = {
    versionId: 'v', key: 'k', size: 6, etag: 'abc-2', modTime: 1, system: {}, user: {}, checksums: { CRC32: 'AAAAAA==-2' }, partCount: 2,
    internal: { 'sse.kind': 'SSE-C', 'sse.size': '6' },
    erasure: { k: 2, m: 2, blockSize: 1 << 20, index: 1, distribution: [1, 2, 3, 4] },
    dataDir: '2b9a3c51-1f7e-4a57-8e0c-1d2e3f4a5b6c',
    parts: [{ number: 1, size: 3, etag: 'a', checksums: { CRC32: 'AQIDBA==' } }, { number: 2, size: 3, etag: 'b' }],
    inline: null,
  };
  assert.deepEqual(decodeObjectMeta(encodeObjectMeta(meta)), meta);
  const { internal: _internal, ...plain } = meta;
  assert.ok(!encodeObjectMeta(plain).includes(Buffer.from('internal')));
});

test('the lock of a version survives encode/decode; records without one have no lock field', async () => {
  const base = decodeObjectRecord(encodeObjectRecord({ key: 'k', writeId: 'w', versions: [{ deleteMarker: true, versionId: 'm', key: 'k', modTime: 1 }] }));
  assert.equal(base.versions.length, 1);
  const meta = {
    versionId: '0a1b2c3d-0000-4000-8000-000000000000', key: 'k', size: 1, etag: 'e', modTime: 2, system: {}, user: {}, checksums: {},
    erasure: { k: 2, m: 2, blockSize: 1024, index: 1, distribution: [1, 2, 3, 4] }, dataDir: null, parts: [], inline: null,
  };
  const locked = { ...meta, lock: { retention: { mode: 'GOVERNANCE' as const, retainUntil: 5 }, legalHold: false } };
  const back = decodeObjectRecord(encodeObjectRecord({ key: 'k', writeId: 'w', versions: [locked, meta] }));
  assert.deepEqual((back.versions[0] as typeof locked).lock, locked.lock);
  assert.equal('lock' in back.versions[1]!, false);
});

test('a version with part checksums, internal metadata and a lock keeps all three; a record without them decodes unchanged', () => {
  const meta: ObjectMeta = {
    versionId: '0a1b2c3d-0000-4000-8000-000000000001', key: 'k', size: 6, etag: 'abc-2', modTime: 1, system: {}, user: {},
    checksums: { CRC32: 'AAAAAA==-2' }, partCount: 2, internal: { 'sse.kind': 'SSE-S3' },
    lock: { retention: { mode: 'COMPLIANCE', retainUntil: 9 }, legalHold: true },
    erasure: { k: 2, m: 2, blockSize: 1 << 20, index: 1, distribution: [1, 2, 3, 4] },
    dataDir: '2b9a3c51-1f7e-4a57-8e0c-1d2e3f4a5b6c',
    parts: [{ number: 1, size: 3, etag: 'a', checksums: { CRC32: 'AQIDBA==' } }, { number: 2, size: 3, etag: 'b' }],
    inline: null,
  };
  const back = decodeObjectRecord(encodeObjectRecord({ key: 'k', writeId: 'w', versions: [meta] }));
  assert.deepEqual(back.versions[0], meta);
  const { internal: _i, lock: _l, ...plain } = meta;
  const plainParts = { ...plain, parts: plain.parts.map(({ checksums: _c, ...p }) => p) };
  const bytes = encodeObjectMeta(plainParts);
  // msgpack map keys are fixstr: a length byte then the name ("blockSize" contains "lock", so the length is part of the probe).
  for (const field of ['internal', 'lock']) assert.ok(!bytes.includes(Buffer.concat([Buffer.from([0xa0 | field.length]), Buffer.from(field)])), field);
  assert.ok(encodeObjectMeta(meta).includes(Buffer.concat([Buffer.from([0xa4]), Buffer.from('lock')])));
  assert.deepEqual(decodeObjectMeta(bytes), plainParts);
});

test('every single-bit flip of a record is a CorruptRecordError, never a record with other values', () => {
  // The fault run's finding: a flip inside a stored checksum decoded fine and was served (envelope.ts).
  const meta: ObjectMeta = {
    versionId: '6f1e0a52-4c1d-4b53-9a0e-2f1f3c0b8f11', key: 'a/b', size: 4, etag: '0a1b2c3d', modTime: 1718000100000,
    system: { 'content-type': 'text/plain' }, user: { owner: 'bob' }, checksums: { CRC32: '5seazA==' },
    erasure: { k: 2, m: 2, blockSize: 1 << 20, index: 1, distribution: [1, 2, 3, 4] }, dataDir: null,
    parts: [{ number: 1, size: 4, etag: '0a1b2c3d' }], inline: Buffer.from('00112233', 'hex'),
  };
  for (const good of [encodeObjectMeta(meta), encodeObjectRecord({ key: 'a/b', writeId: 'w', versions: [meta, { ...meta, versionId: 'x' }] })]) {
    decodeObjectRecord(good);
    for (let bit = 0; bit < good.length * 8; bit++) {
      const bad = Buffer.from(good);
      bad[bit >> 3] = bad[bit >> 3]! ^ (1 << (bit & 7));
      assert.throws(() => decodeObjectRecord(bad), CorruptRecordError, `bit ${bit} of ${good.length * 8}`);
    }
  }
});

test('the trailing bitrot layout of a part survives object and part records; parts without it encode as before; an unknown one is corrupt', () => {
  const meta: ObjectMeta = {
    versionId: 'v', key: 'k', size: 6, etag: 'abc-2', modTime: 1, system: {}, user: {}, checksums: {}, partCount: 2,
    erasure: { k: 2, m: 2, blockSize: 1 << 20, index: 1, distribution: [1, 2, 3, 4] },
    dataDir: '2b9a3c51-1f7e-4a57-8e0c-1d2e3f4a5b6c',
    parts: [{ number: 1, size: 3, etag: 'a' }, { number: 2, size: 3, etag: 'b', checksums: { CRC32: 'AQIDBA==' }, bitrot: 'trailing' }],
    inline: null,
  };
  assert.deepEqual(decodeObjectMeta(encodeObjectMeta(meta)), meta);
  const old = { ...meta, parts: meta.parts.map(({ bitrot: _b, ...p }) => p) };
  assert.ok(!encodeObjectMeta(old).includes(Buffer.from('bitrot')), 'interleaved parts carry no field');
  assert.throws(() => decodeObjectMeta(encodeObjectMeta({ ...meta, parts: [{ number: 1, size: 6, etag: 'a', bitrot: 'sideways' as never }] })), CorruptRecordError);

  const part = { number: 2, size: 3, etag: 'b', modTime: 5, checksums: {}, k: 2, m: 2 };
  assert.deepEqual(decodePartRecord(encodePartRecord({ ...part, bitrot: 'trailing' })), { ...part, bitrot: 'trailing' });
  assert.deepEqual(decodePartRecord(encodePartRecord(part)), part);
  assert.ok(!encodePartRecord(part).includes(Buffer.from('bitrot')));
  assert.throws(() => decodePartRecord(encodePartRecord({ ...part, bitrot: 'sideways' as never })), CorruptRecordError);
});
