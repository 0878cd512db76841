import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { offloadedHashes } from '../bitrot/hash-offload.js';
import { forgetCachedMeta } from '../drive/index.js';
import { decodeObjectMeta } from '../format/index.js';
import { OFFLOAD_MIN_OBJECT_BYTES } from './object-read.js';
import { collect, get, pattern, put, testCluster } from './testing.js';
import { mustReadRecord, removeRecord, writeRecord } from '../../../test/helpers/drive-records.js';

/** Shard index (1-based) held by each drive of set 0, and the path of each drive's part.1. */
async function layout(roots: string[], key: string): Promise<{ shard: number[]; part: string[] }> {
  const shard: number[] = [];
  const part: string[] = [];
  for (const root of roots) {
    const dir = join(root, 'bkt', `+${key}`);
    shard.push(decodeObjectMeta(await mustReadRecord(root, 'bkt', key)).erasure.index);
    const dataDir = (await readdir(dir)).find((n) => /^[0-9a-f-]{36}$/.test(n))!;
    part.push(join(dir, dataDir, 'part.1'));
  }
  return { shard, part };
}

test('GET reads the data-shard drives first and asks a parity drive only when a shard is damaged, skipping one that lacks the object', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  const data = pattern(2 * 1024 * 1024 + 77, 3);
  await put(st, 'bkt', 'obj', data);
  const roots = c.sets[0]!;
  const { shard, part } = await layout(roots, 'obj');
  const dataDrive = shard.findIndex((s) => s === 1);
  const [p1, p2] = shard.flatMap((s, i) => (s > 2 ? [i] : [])) as [number, number];
  // A parity drive lost the object's metadata: a healthy read never needs it, so the fast path still answers.
  await removeRecord(roots[p1]!, 'bkt', 'obj');
  assert.ok((await get(st, 'bkt', 'obj')).equals(data));
  // Now a data shard is damaged too: the read must fetch a parity drive's metadata, find p1 without the object,
  // and decode from the other data shard and p2.
  const bad = await readFile(part[dataDrive]!);
  bad[40] = bad[40]! ^ 0xff;
  await writeFile(part[dataDrive]!, bad);
  assert.ok((await get(st, 'bkt', 'obj')).equals(data));
  // With p2 gone as well only one good shard is left: the read fails instead of returning wrong bytes.
  await rm(part[p2]!);
  await assert.rejects(get(st, 'bkt', 'obj'));
});

test('HEAD and GET fall back to the full read when the data-shard drives disagree', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  await put(st, 'bkt', 'k', pattern(3000, 1));
  const roots = c.sets[0]!;
  const oldMeta = await Promise.all(roots.map((r) => mustReadRecord(r, 'bkt', 'k')));
  const newer = pattern(3000, 2);
  await put(st, 'bkt', 'k', newer);
  // One data-shard drive goes back to the old record (a write it missed): the newest version still wins.
  const shard = oldMeta.map((m) => decodeObjectMeta(m).erasure.index);
  const d = shard.findIndex((s) => s === 1);
  await writeRecord(roots[d]!, 'bkt', 'k', oldMeta[d]!);
  assert.equal((await st.getObjectInfo('bkt', 'k')).size, 3000);
  assert.ok((await get(st, 'bkt', 'k')).equals(newer));
});

test('bytes(): a healthy inline object in one buffer, whole or a range; undefined with a damaged inline shard (read() rebuilds it) and for shard files', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  const data = pattern(5000, 9);
  await put(st, 'bkt', 'small', data);
  await put(st, 'bkt', 'big', pattern(2 * 1024 * 1024 + 3, 4));
  await put(st, 'bkt', 'empty', Buffer.alloc(0));

  const small = await st.openObject('bkt', 'small');
  assert.ok(small.bytes?.()?.equals(data));
  // 5,000 bytes on K = 2 data shards of 2,500: ranges within the first shard and across both.
  assert.ok(small.bytes?.({ start: 0, end: 10 })?.equals(data.subarray(0, 11)));
  assert.ok(small.bytes?.({ start: 100, end: 2600 })?.equals(data.subarray(100, 2601)));
  assert.ok(small.bytes?.({ start: 4999, end: 4999 })?.equals(data.subarray(4999)));
  assert.equal((await st.openObject('bkt', 'big')).bytes?.(), undefined);
  assert.equal((await st.openObject('bkt', 'empty')).bytes?.()?.length, 0);

  // Flip one bit of the first data shard's inline data on its drive: bytes() declines, the stream rebuilds.
  const metas = await Promise.all(c.sets[0]!.map((root) => mustReadRecord(root, 'bkt', 'small')));
  const drive = metas.findIndex((m) => decodeObjectMeta(m).erasure.index === 1);
  const original = metas[drive]!;
  const at = original.indexOf(decodeObjectMeta(original).inline!);
  const bad = Buffer.from(original);
  bad[at + 40] = bad[at + 40]! ^ 0x01;
  await writeRecord(c.sets[0]![drive]!, 'bkt', 'small', bad);
  // A change by hand: the records read above would answer for up to a minute (drive/meta-cache.ts).
  forgetCachedMeta();
  const damaged = await st.openObject('bkt', 'small');
  assert.equal(damaged.bytes?.(), undefined);
  assert.ok((await collect(damaged.read())).equals(data));
});

test('a PUT leaves its record in the GET cache of the drives its GETs read', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  const data = pattern(3000);
  forgetCachedMeta();
  await put(st, 'bkt', 'fresh', data);
  // Gone from every drive behind the server's back: only what the commits left answers the GET's fast path.
  for (const root of c.sets[0]!) await removeRecord(root, 'bkt', 'fresh');
  assert.ok((await get(st, 'bkt', 'fresh')).equals(data), 'read with no record on any disk');
  forgetCachedMeta();
  await assert.rejects(get(st, 'bkt', 'fresh'));
});

/** A GET as the S3 handler makes it (shard reads into lent buffers: ReadOptions.sink), each chunk copied on arrival. */
async function getPooled(st: Awaited<ReturnType<Awaited<ReturnType<typeof testCluster>>['open']>>, key: string): Promise<Buffer> {
  const sink = { writableLength: 0, once: () => undefined };
  const parts: Buffer[] = [];
  for await (const c of (await st.openObject('bkt', key)).read(undefined, { sink })) parts.push(Buffer.from(c as Buffer));
  return Buffer.concat(parts);
}

test('a large object\'s GET has its chunks checked by the bitrot worker, and damage is still found; a small one\'s are checked on the loop', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  const small = pattern(OFFLOAD_MIN_OBJECT_BYTES - 1, 5);
  const large = pattern(OFFLOAD_MIN_OBJECT_BYTES + 1024 * 1024, 6);
  await put(st, 'bkt', 'small', small);
  await put(st, 'bkt', 'large', large);
  let hashed = offloadedHashes();
  assert.ok((await getPooled(st, 'small')).equals(small));
  assert.equal(offloadedHashes() - hashed, 0, 'below OFFLOAD_MIN_OBJECT_BYTES: on the event loop');
  hashed = offloadedHashes();
  assert.ok((await getPooled(st, 'large')).equals(large));
  assert.equal(offloadedHashes() - hashed, 18, 'nine 1 MiB blocks, two 512 KiB data chunks each');
  // A flipped byte in the fifth chunk of a data shard: the worker's hash finds it and the block is rebuilt from parity.
  const roots = c.sets[0]!;
  const { shard, part } = await layout(roots, 'large');
  const d = shard.findIndex((s) => s === 2);
  const bytes = await readFile(part[d]!);
  const at = 4 * (32 + 512 * 1024) + 32 + 1000;
  bytes[at] = bytes[at]! ^ 0x10;
  await writeFile(part[d]!, bytes);
  assert.ok((await getPooled(st, 'large')).equals(large));
});
