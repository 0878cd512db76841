import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CorruptRecordError, encodeObjectMeta } from '../format/index.js';
import type { ObjectMeta } from '../format/index.js';
import { RecordMemo } from './record-memo.js';

function meta(key: string, inline: Buffer, user: Record<string, string> = {}): ObjectMeta {
  return {
    versionId: 'null', key, size: inline.length, etag: 'e', modTime: 1_795_850_210_221, system: { 'content-type': 'text/plain' },
    user, checksums: {}, erasure: { k: 2, m: 2, blockSize: 1 << 20, index: 1, distribution: [1, 2, 3, 4] },
    dataDir: null, parts: [{ number: 1, size: inline.length, etag: 'e' }], inline,
  };
}

test('the same bytes give the same record (frozen where asked); other bytes under the same id are decoded afresh', () => {
  const memo = new RecordMemo(1 << 20);
  memo.freeze = true;
  const bytes = encodeObjectMeta(meta('a', Buffer.from('hello'), { owner: 'alice' }));
  const first = memo.decode('d1\0b/a', bytes);
  // A later read returns a copy of the same bytes: the decoded record is reused.
  assert.equal(memo.decode('d1\0b/a', Buffer.from(bytes)), first);
  assert.ok(Object.isFrozen(first) && Object.isFrozen(first.versions) && Object.isFrozen(first.versions[0]));
  const v = first.versions[0] as ObjectMeta;
  assert.ok(Object.isFrozen(v.user) && Object.isFrozen(v.erasure.distribution) && Object.isFrozen(v.parts[0]));
  assert.throws(() => { (v.user as Record<string, string>).owner = 'mallory'; }, TypeError);
  assert.throws(() => { v.parts.push({ number: 2, size: 1, etag: 'x' }); }, TypeError);
  assert.equal(v.inline!.toString(), 'hello');

  // The key overwritten: the new bytes decode to the new record, whatever the id held.
  const changed = memo.decode('d1\0b/a', encodeObjectMeta(meta('a', Buffer.from('world'))));
  assert.notEqual(changed, first);
  assert.equal((changed.versions[0] as ObjectMeta).inline!.toString(), 'world');
  // Another drive's record of the key is its own entry.
  assert.notEqual(memo.decode('d2\0b/a', bytes), first);
  assert.equal(memo.size.entries, 2);
});

test('a damaged record throws as decodeObjectRecord does, and is not kept', () => {
  const memo = new RecordMemo(1 << 20);
  const bytes = encodeObjectMeta(meta('a', Buffer.from('hello')));
  const good = memo.decode('d1\0b/a', bytes);
  const damaged = Buffer.from(bytes);
  damaged[damaged.length - 8]! ^= 0xff;
  assert.throws(() => memo.decode('d1\0b/a', damaged), CorruptRecordError);
  assert.equal(memo.decode('d1\0b/a', bytes), good);
});

test('the bytes kept stay within the budget, the oldest entries dropped first; large records are not kept', () => {
  const records = Array.from({ length: 40 }, (_, i) => encodeObjectMeta(meta(`k${String(i).padStart(2, '0')}`, Buffer.alloc(100, i))));
  const one = records[0]!.length;
  const memo = new RecordMemo(one * 20);
  const decoded = records.map((b, i) => memo.decode(`d\0b/k${i}`, b));
  assert.ok(!Object.isFrozen(decoded[0]), 'records are frozen only where asked');
  assert.deepEqual(memo.size, { bytes: one * 20, entries: 20 });
  // The newest twenty are kept, the rest decoded again.
  assert.equal(memo.decode('d\0b/k39', Buffer.from(records[39]!)), decoded[39]);
  assert.notEqual(memo.decode('d\0b/k0', Buffer.from(records[0]!)), decoded[0]);
  // Above a sixteenth of the budget (1.25 records here).
  const large = encodeObjectMeta(meta('big', Buffer.alloc(one)));
  const r = memo.decode('d\0b/big', large);
  assert.notEqual(memo.decode('d\0b/big', large), r);
  assert.equal(memo.size.bytes, one * 20);
});
