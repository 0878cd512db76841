import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeObjectRecord, encodeObjectRecord } from './object-meta.js';
import type { ObjectMeta, ObjectRecord } from './object-meta.js';
import { recordWriteId } from './record-probe.js';

function version(versionId: string, extra: Partial<ObjectMeta> = {}): ObjectMeta {
  return {
    versionId, key: 'a/b', size: 70_000, etag: 'e'.repeat(32), modTime: 1_700_000_000_123, system: { 'content-type': 'x/y' },
    user: { 'x-amz-meta-n': 'ü'.repeat(300) }, checksums: {}, erasure: { k: 2, m: 2, blockSize: 1 << 20, index: 3, distribution: [3, 4, 1, 2] },
    dataDir: null, parts: [{ number: 1, size: 70_000, etag: 'e'.repeat(32) }], inline: Buffer.alloc(40_000, 7), ...extra,
  } as ObjectMeta;
}

test('recordWriteId reads the write id of version-1 and version-2 records as decodeObjectRecord does', () => {
  const records: ObjectRecord[] = [
    { key: 'a/b', writeId: 'w-1', versions: [version('null')] },
    { key: 'a/b', writeId: 'w-2', versions: [version('v2', { tags: [{ key: 'writeId', value: 'no' }] }), { deleteMarker: true, versionId: 'm', key: 'a/b', modTime: 1 }] },
    { key: 'a/b', writeId: 'w-3'.repeat(40), versions: [{ deleteMarker: true, versionId: 'm', key: 'a/b', modTime: 1 }] },
  ];
  for (const r of records) {
    const bytes = encodeObjectRecord(r);
    assert.equal(recordWriteId(bytes), decodeObjectRecord(bytes).writeId);
    assert.equal(recordWriteId(bytes), r.writeId);
    // Inside a larger buffer (drives hand out slices of one batch buffer).
    const big = Buffer.concat([Buffer.alloc(13, 1), bytes, Buffer.alloc(9, 2)]);
    assert.equal(recordWriteId(big.subarray(13, 13 + bytes.length)), r.writeId);
  }
});

test('recordWriteId: anything but a well-formed record is undefined (the caller decodes and sees the error)', () => {
  const bytes = encodeObjectRecord({ key: 'k', writeId: 'w', versions: [version('null')] });
  assert.equal(recordWriteId(Buffer.alloc(0)), undefined);
  assert.equal(recordWriteId(Buffer.from('SVCM')), undefined);
  assert.equal(recordWriteId(Buffer.concat([Buffer.from('XXXX'), bytes.subarray(4)])), undefined);
  const v9 = Buffer.from(bytes);
  v9.writeUInt16LE(9, 4);
  assert.equal(recordWriteId(v9), undefined);
  for (const cut of [7, 20, bytes.length - 1]) assert.equal(recordWriteId(bytes.subarray(0, cut)), undefined, `cut at ${cut}`);
  assert.equal(recordWriteId(Buffer.concat([bytes, Buffer.from([0])])), undefined, 'trailing bytes');
});
