import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KIND_DELETED, KIND_VALUE, RunBuilder, RunCorruptError, RunReader, entryIdKey, idHashes, mergeEntries, nextEntry, type Place } from './run-file.js';

const place = (n: number): Place => ({ segment: n % 7, offset: n * 100, length: 50 + (n % 13) });
const idOf = (s: string): Buffer => Buffer.from(s, 'utf8');

function build(ids: string[], kind: (i: number) => number = () => KIND_VALUE, offset = 0): Buffer {
  const sorted = [...ids].sort((a, b) => Buffer.compare(idOf(a), idOf(b)));
  const b = new RunBuilder(sorted.length);
  sorted.forEach((id, i) => b.add(idOf(id), kind(i), place(i + offset)));
  return Buffer.concat(b.finish());
}

function open(file: Buffer): RunReader {
  return new RunReader(file.length, (o, l) => Buffer.from(file.subarray(o, o + l)));
}

function lookup(r: RunReader, id: string): ReturnType<RunReader['find']> {
  const bytes = idOf(id);
  const [h1, h2] = idHashes(bytes);
  return r.find(bytes, bytes.toString('latin1'), h1, h2);
}

test('a run finds every id it holds, in many blocks, and none it does not', () => {
  const ids = Array.from({ length: 3000 }, (_, i) => `bucket\0dir/${String(i).padStart(5, '0')}-é${i % 3 === 0 ? '😀' : ''}`);
  const r = open(build(ids));
  assert.equal(r.count, 3000);
  assert.ok(r.blockCount > 10, `${r.blockCount} blocks`);
  const sorted = [...ids].sort((a, b) => Buffer.compare(idOf(a), idOf(b)));
  sorted.forEach((id, i) => assert.deepEqual(lookup(r, id), { kind: KIND_VALUE, place: place(i) }, id));
  let falsePositives = 0;
  for (let i = 0; i < 3000; i++) {
    const id = `bucket\0dir/${String(i).padStart(5, '0')}-absent`;
    assert.equal(lookup(r, id), undefined);
    const b = idOf(id);
    if (r.mayContain(...idHashes(b))) falsePositives++;
  }
  // 10 bits per key, 7 probes: ~1 %.
  assert.ok(falsePositives < 90, `${falsePositives} false positives of 3000`);
  assert.equal(lookup(r, 'a'), undefined, 'before the first id');
  assert.equal(lookup(r, 'zzz'), undefined, 'after the last id');
});

test('merging keeps the newest entry of each id and can leave deletions out', () => {
  const older = build(['b\0k1', 'b\0k2', 'b\0k3'], () => KIND_VALUE, 0);
  const newer = build(['b\0k2', 'b\0k4'], (i) => (i === 0 ? KIND_DELETED : KIND_VALUE), 10);
  for (const dropDeleted of [false, true]) {
    const out = new RunBuilder(5);
    mergeEntries([open(older).readAll(), open(newer).readAll()], out, dropDeleted);
    const merged = open(Buffer.concat(out.finish()));
    const all = merged.readAll();
    const ids: string[] = [];
    for (let at = 0; at < all.length; at = nextEntry(all, at)) ids.push(entryIdKey(all, at));
    assert.deepEqual(ids, dropDeleted ? ['b\0k1', 'b\0k3', 'b\0k4'] : ['b\0k1', 'b\0k2', 'b\0k3', 'b\0k4']);
    assert.deepEqual(lookup(merged, 'b\0k1'), { kind: KIND_VALUE, place: place(0) });
    assert.deepEqual(lookup(merged, 'b\0k4'), { kind: KIND_VALUE, place: place(11) });
    assert.deepEqual(lookup(merged, 'b\0k2'), dropDeleted ? undefined : { kind: KIND_DELETED, place: place(10) });
  }
});

test('a damaged run is refused, not misread', () => {
  const file = build(Array.from({ length: 500 }, (_, i) => `v\0key-${i}`));
  const flipped = (at: number): Buffer => {
    const c = Buffer.from(file);
    c[at]! ^= 0x40;
    return c;
  };
  assert.throws(() => open(file.subarray(0, file.length - 3)), RunCorruptError);
  assert.throws(() => open(flipped(file.length - 30)), RunCorruptError, 'footer');
  const r = open(flipped(100));
  assert.throws(() => r.readAll(), /block 0 checksum/);
});
