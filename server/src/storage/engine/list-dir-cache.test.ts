import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { firstAfter } from './list-dir-cache.js';
import type { DirEntry } from './list-dir-cache.js';
import type { Storage } from './open-storage.js';
import { NO_META, testCluster } from './testing.js';

function entries(dirKey: string, names: string[]): DirEntry[] {
  return names.flatMap((n) => [{ key: dirKey + n, name: n, dir: false }, { key: `${dirKey}${n}/`, name: n, dir: true }])
    .sort((a, b) => (Buffer.compare(Buffer.from(a.key), Buffer.from(b.key))));
}

test('firstAfter: the first entry after a cursor, or the directory holding it', () => {
  const e = entries('d/', ['a', 'a-b', 'b']); // d/a, d/a-b, d/a-b/, d/a/, d/b, d/b/
  assert.deepEqual(e.map((x) => x.key), ['d/a', 'd/a-b', 'd/a-b/', 'd/a/', 'd/b', 'd/b/']);
  assert.equal(firstAfter(e, ''), 0);
  assert.equal(firstAfter(e, 'c'), 0);
  assert.equal(firstAfter(e, 'd/a'), 1);
  assert.equal(firstAfter(e, 'd/a/zzz'), 3, 'inside d/a/: that directory is still to visit');
  assert.equal(firstAfter(e, 'd/a-b/x'), 2);
  assert.equal(firstAfter(e, 'd/a0'), 4);
  assert.equal(firstAfter(e, 'd/b/'), 5);
  assert.equal(firstAfter(e, 'e'), 6);
});

async function put(st: Storage, key: string): Promise<void> {
  await st.putObject('bkt', key, Readable.from([Buffer.from(key)]), { size: Buffer.byteLength(key), metadata: NO_META });
}

async function pages(st: Storage, prefix: string, delimiter: string, maxKeys: number, between?: (page: number) => Promise<void>): Promise<string[]> {
  const out: string[] = [];
  let startAfter = '';
  for (let page = 0; ; page++) {
    const r = await st.listObjects('bkt', { prefix, delimiter, startAfter, maxKeys });
    out.push(...r.objects.map((o) => o.key), ...r.commonPrefixes);
    if (!r.isTruncated) return out;
    startAfter = r.nextMarker!;
    await between?.(page);
  }
}

test('continuation pages see keys created and deleted since the directory was cached', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  const keys = Array.from({ length: 40 }, (_, i) => `k/${String(i).padStart(2, '0')}`);
  for (const k of keys) await put(st, k);
  // Let the directory settle so that its names are cached with a stamp, then change it between pages.
  await new Promise((r) => setTimeout(r, 60));
  assert.deepEqual(await pages(st, 'k/', '', 7), keys);
  const seen = await pages(st, 'k/', '', 7, async (page) => {
    if (page !== 1) return;
    await put(st, 'k/25a');
    await st.deleteObject('bkt', 'k/30');
    await put(st, 'k/31/deeper');
  });
  const want = [...keys.slice(0, 26), 'k/25a', ...keys.slice(26)].filter((k) => k !== 'k/30');
  want.splice(want.indexOf('k/31') + 1, 0, 'k/31/deeper');
  assert.deepEqual(seen, want.sort());
  // Objects and common prefixes come in separate lists of each page: compared as one set.
  assert.deepEqual((await pages(st, 'k/', '/', 5)).sort(), want.filter((k) => k !== 'k/31/deeper').concat('k/31/').sort());
});

test('a drive wiped between pages: the listing stays complete from the others', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  const keys = Array.from({ length: 30 }, (_, i) => `w/${String(i).padStart(2, '0')}`);
  for (const k of keys) await put(st, k);
  await new Promise((r) => setTimeout(r, 60));
  const seen = await pages(st, 'w/', '', 4, async (page) => {
    if (page === 2) await rm(c.sets[0]![1]!, { recursive: true, force: true, maxRetries: 5 });
  });
  assert.deepEqual(seen, keys);
});
