import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { LocalDrive } from '../drive/index.js';
import type { ChildState, Drive } from '../drive/index.js';
import { ListRecordCache, withoutInlineData } from './list-record-cache.js';
import type { Storage } from './open-storage.js';
import { NO_META, testCluster } from './testing.js';
import type { ObjectRecord } from '../format/index.js';

/** A LocalDrive that counts the metadata records its readChildren answers carry. */
function counting(path: string, count: { records: number; same: number }): Drive {
  const d = new LocalDrive(path);
  return new Proxy(d, {
    get(target, prop) {
      if (prop === 'readChildren') {
        return async (...args: Parameters<Drive['readChildren']>): Promise<ChildState[]> => {
          const out = await target.readChildren(...args);
          for (const c of out) {
            if (c.meta !== null) count.records++;
            if (c.same === true) count.same++;
          }
          return out;
        };
      }
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

async function put(st: Storage, key: string, body: string): Promise<void> {
  await st.putObject('bkt', key, Readable.from([Buffer.from(body)]), { size: Buffer.byteLength(body), metadata: NO_META });
}

async function listAll(st: Storage, prefix: string): Promise<{ key: string; size: number; etag: string }[]> {
  const out: { key: string; size: number; etag: string }[] = [];
  let startAfter = '';
  for (;;) {
    const r = await st.listObjects('bkt', { prefix, delimiter: '', startAfter, maxKeys: 50 });
    out.push(...r.objects.map((o) => ({ key: o.key, size: o.size, etag: o.etag })));
    if (!r.isTruncated) return out;
    startAfter = r.nextMarker!;
  }
}

test('a second listing reads no metadata; overwrites, deletes and new keys show at once', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const count = { records: 0, same: 0 };
  for (const p of c.sets.flat()) await mkdir(p, { recursive: true });
  const st = await c.open({ drives: c.sets.map((s) => s.map((p) => counting(p, count))) });
  await st.makeBucket('bkt');
  const keys = Array.from({ length: 120 }, (_, i) => `k/${String(i).padStart(3, '0')}`);
  for (const k of keys) await put(st, k, k);
  const first = await listAll(st, 'k/');
  assert.deepEqual(first.map((o) => o.key), keys);
  assert.ok(count.records >= keys.length, `first listing read the records (${count.records})`);

  count.records = 0;
  count.same = 0;
  assert.deepEqual(await listAll(st, 'k/'), first);
  assert.equal(count.records, 0, 'an unchanged key is not read again');
  assert.ok(count.same >= keys.length, `answered from the stamps (${count.same})`);

  await put(st, 'k/005', 'a longer body than before');
  await st.deleteObject('bkt', 'k/010');
  await put(st, 'k/010a', 'new');
  await put(st, 'k/020/deeper', 'deeper');
  count.records = 0;
  const after = await listAll(st, 'k/');
  const want = new Map(first.map((o) => [o.key, o]));
  want.delete('k/010');
  const got = new Map(after.map((o) => [o.key, o]));
  assert.deepEqual([...got.keys()], [...want.keys(), 'k/010a', 'k/020/deeper'].sort());
  assert.equal(got.get('k/005')!.size, Buffer.byteLength('a longer body than before'));
  assert.notEqual(got.get('k/005')!.etag, want.get('k/005')!.etag);
  assert.ok(count.records > 0 && count.records < 20, `only the changed keys were read (${count.records})`);
});

test('the cache keeps at most its bound of keys, least recently used dropped first', () => {
  const cache = new ListRecordCache(3);
  const set = {};
  const dir = cache.dir(set, 'bkt', '');
  for (const k of ['a', 'b', 'c']) cache.set(dir, k, { answers: [], record: null });
  assert.ok(cache.get(dir, 'a') !== undefined); // a is now the most recently used
  cache.set(dir, 'd', { answers: [], record: null });
  assert.equal(cache.size, 3);
  assert.equal(cache.get(dir, 'b'), undefined);
  assert.ok(cache.get(dir, 'a') !== undefined);
  assert.equal(cache.get(cache.dir({}, 'bkt', ''), 'a'), undefined, 'sets are told apart');
  assert.equal(cache.get(cache.dir(set, 'other', ''), 'a'), undefined, 'buckets are told apart');
  assert.equal(cache.get(cache.dir(set, 'bkt', 'a/'), 'a'), undefined, 'directories are told apart');
});

test('handles of one directory see the same keys, also one taken before the directory emptied and came back', () => {
  const cache = new ListRecordCache(2);
  const set = {};
  const early = cache.dir(set, 'bkt', 'x/');
  const other = cache.dir(set, 'bkt', 'x/');
  cache.set(early, 'a', { answers: [], record: null });
  cache.set(other, 'b', { answers: [], record: null });
  assert.ok(cache.get(other, 'a') !== undefined && cache.get(early, 'b') !== undefined, 'two handles made before the first key');
  cache.delete(early, 'a');
  cache.delete(other, 'b');
  assert.equal(cache.size, 0);
  // The directory emptied and was dropped; a new handle holds what is stored now, and the old ones find it.
  const late = cache.dir(set, 'bkt', 'x/');
  cache.set(late, 'c', { answers: [], record: null });
  assert.ok(cache.get(early, 'c') !== undefined);
  cache.set(early, 'd', { answers: [], record: null });
  assert.ok(cache.get(late, 'd') !== undefined);
  cache.set(cache.dir(set, 'bkt', 'y/'), 'e', { answers: [], record: null });
  assert.equal(cache.size, 2, 'the bound counts keys of every directory');
});

test('a key stored again many times counts once and the bound still holds', () => {
  const cache = new ListRecordCache(4);
  const dir = cache.dir({}, 'bkt', '');
  for (let i = 0; i < 10_000; i++) cache.set(dir, `k${i % 3}`, { answers: [], record: null });
  assert.equal(cache.size, 3);
  for (let i = 0; i < 10; i++) cache.set(dir, `n${i}`, { answers: [], record: null });
  assert.equal(cache.size, 4);
  assert.ok(cache.get(dir, 'n9') !== undefined);
  assert.equal(cache.get(dir, 'k0'), undefined);
});

test('records are kept without inline shard data', () => {
  const version = {
    versionId: 'null', key: 'k', size: 3, etag: 'e', modTime: 1, system: {}, user: {}, checksums: {},
    erasure: { k: 2, m: 2, blockSize: 1, index: 1, distribution: [1, 2, 3, 4] }, dataDir: null, parts: [], inline: Buffer.alloc(64),
  };
  const record: ObjectRecord = { key: 'k', writeId: 'w', versions: [version, { deleteMarker: true, versionId: 'v', key: 'k', modTime: 2 }] };
  const kept = withoutInlineData(record);
  assert.equal((kept.versions[0] as typeof version).inline, null);
  assert.equal(version.inline.length, 64, 'the caller\'s record is not changed');
  assert.deepEqual(kept.versions[1], record.versions[1]);
  const none: ObjectRecord = { key: 'k', writeId: 'w', versions: [{ ...version, inline: null }] };
  assert.equal(withoutInlineData(none), none);
});
