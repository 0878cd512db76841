import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KIND_DELETED, KIND_VALUE, RunBuilder, RunCorruptError, RunReader, entryIdKey, idHashes, mergeEntries, type Place } from './run-file.js';

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

/** Every id of a run, in order, walked as a merge reads it. */
function idsOf(r: RunReader): string[] {
  const out: string[] = [];
  for (const c = r.entries(); !c.done; c.step()) out.push(entryIdKey(c.b, c.at));
  return out;
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
    mergeEntries([open(older).entries(), open(newer).entries()], out, dropDeleted);
    const merged = open(Buffer.concat(out.finish()));
    assert.deepEqual(idsOf(merged), dropDeleted ? ['b\0k1', 'b\0k3', 'b\0k4'] : ['b\0k1', 'b\0k2', 'b\0k3', 'b\0k4']);
    assert.deepEqual(lookup(merged, 'b\0k1'), { kind: KIND_VALUE, place: place(0) });
    assert.deepEqual(lookup(merged, 'b\0k4'), { kind: KIND_VALUE, place: place(11) });
    assert.deepEqual(lookup(merged, 'b\0k2'), dropDeleted ? undefined : { kind: KIND_DELETED, place: place(10) });
  }
});

test('a merge of runs many blocks long streams: blocks read one at a time, written through the sink as they fill', () => {
  // Three runs of 3,000 / 2,000 / 1,000 ids (~9-27 blocks each), interleaved, the newer ones overwriting every third id.
  const ids = (n: number, step: number): string[] => Array.from({ length: n }, (_, i) => `bkt\0key-${String(i * step).padStart(6, '0')}`);
  const runs = [build(ids(3000, 1), () => KIND_VALUE, 0), build(ids(2000, 3), () => KIND_VALUE, 100_000), build(ids(1000, 2), (i) => (i % 2 === 0 ? KIND_DELETED : KIND_VALUE), 200_000)].map(open);
  assert.ok(runs.every((r) => r.blockCount > 5), 'each run spans many blocks');
  const written: Buffer[] = [];
  let biggest = 0;
  const out = new RunBuilder(6000, (block) => {
    biggest = Math.max(biggest, block.length);
    written.push(Buffer.from(block));
  });
  mergeEntries(runs.map((r) => r.entries()), out, true);
  const tail = out.finish(); // its last block goes through the sink first
  const merged = open(Buffer.concat([...written, ...tail]));
  assert.ok(written.length > 10 && biggest <= 4096 + 2048, `${written.length} blocks through the sink, each at most a block`);
  const expected = new Map<string, number>();
  ids(3000, 1).forEach((id, i) => expected.set(id, i));
  ids(2000, 3).forEach((id, i) => expected.set(id, 100_000 + i));
  ids(1000, 2).forEach((id, i) => (i % 2 === 0 ? expected.delete(id) : expected.set(id, 200_000 + i)));
  const sorted = [...expected.keys()].sort();
  assert.deepEqual(idsOf(merged), sorted);
  for (const id of [sorted[0]!, sorted[777]!, sorted.at(-1)!]) assert.deepEqual(lookup(merged, id), { kind: KIND_VALUE, place: place(expected.get(id)!) });
  assert.equal(lookup(merged, 'bkt\0key-000000'), undefined, 'deleted by the newest run, left out of the oldest');
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
  assert.throws(() => r.entries(), /block 0 checksum/);
});
