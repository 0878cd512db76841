import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BucketRecord } from '../format/index.js';
import { BucketRecordCache } from './bucket-record-cache.js';

function counting(records: BucketRecord[]): { load: () => Promise<BucketRecord>; calls: () => number } {
  let calls = 0;
  return { load: async () => records[Math.min(calls++, records.length - 1)]!, calls: () => calls };
}

test('lookups share one read until a change made here drops it', async () => {
  const cache = new BucketRecordCache(true);
  const src = counting([{ created: 1 }, { created: 2 }]);
  const [a, b] = await Promise.all([cache.get('bkt', src.load), cache.get('bkt', src.load)]);
  assert.deepEqual([a.created, b.created, src.calls()], [1, 1, 1]);
  assert.equal((await cache.get('bkt', src.load)).created, 1);
  await cache.changing('bkt', async () => undefined);
  assert.equal((await cache.get('bkt', src.load)).created, 2);
  assert.equal(src.calls(), 2);
});

test('a read that started before a change is not reused after it, even when the change fails', async () => {
  const cache = new BucketRecordCache(true);
  let release!: (r: BucketRecord) => void;
  const slow = cache.get('bkt', () => new Promise<BucketRecord>((r) => { release = r; }));
  await assert.rejects(cache.changing('bkt', async () => { throw new Error('quorum'); }), /quorum/);
  release({ created: 1 });
  assert.equal((await slow).created, 1);
  assert.equal((await cache.get('bkt', async () => ({ created: 9 }))).created, 9);
});

test('failed reads are not cached; a disabled cache (cluster) always reads', async () => {
  const cache = new BucketRecordCache(true);
  await assert.rejects(cache.get('bkt', async () => { throw new Error('no bucket'); }), /no bucket/);
  assert.equal((await cache.get('bkt', async () => ({ created: 3 }))).created, 3);
  const off = new BucketRecordCache(false);
  const src = counting([{ created: 1 }, { created: 2 }]);
  await off.get('bkt', src.load);
  assert.equal((await off.get('bkt', src.load)).created, 2);
});
