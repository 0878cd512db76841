import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { BITROT_HASH_SIZE, loadBitrotHasher } from '../bitrot/index.js';
import { shardDataLength } from '../erasure/index.js';
import { decodeObjectMeta } from '../format/index.js';
import { setPartLayoutForTests } from './object-write.js';
import { NO_META, collect, get, pattern, put, testCluster } from './testing.js';
import { mustReadRecord } from '../../../test/helpers/drive-records.js';

const MiB = 1024 * 1024;

/** The shard files of `key`'s data directory on drive `root`, by part number. */
async function partFiles(root: string, bucket: string, key: string): Promise<string[]> {
  const dir = join(root, bucket, `+${key}`);
  const dataDir = (await readdir(dir)).find((n) => /^[0-9a-f-]{36}$/.test(n))!;
  const names = (await readdir(join(dir, dataDir))).filter((n) => /^part\.\d+$/.test(n)).sort();
  return names.map((n) => join(dir, dataDir, n));
}

test('parts written interleaved (as before the trailing layout) and trailing ones read, range-read and heal, each in its layout', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(async () => {
    setPartLayoutForTests(undefined);
    await c.cleanup();
  });
  const st = await c.open();
  await st.makeBucket('bkt');
  const h = await loadBitrotHasher();
  const p1 = pattern(5 * MiB, 3);
  const p2 = pattern(MiB + 5, 4);
  const objects: Record<string, Buffer> = {
    old: pattern(3 * MiB + 111, 1), new: pattern(3 * MiB + 111, 2), mixed: Buffer.concat([p1, p2]), one: pattern(MiB, 5),
  };
  setPartLayoutForTests('interleaved');
  await put(st, 'bkt', 'old', objects.old!);
  const id = await st.createMultipartUpload('bkt', 'mixed', { metadata: NO_META });
  const i1 = await st.putObjectPart('bkt', 'mixed', id, 1, Readable.from([p1]), { size: p1.length });
  setPartLayoutForTests(undefined);
  const i2 = await st.putObjectPart('bkt', 'mixed', id, 2, Readable.from([p2]), { size: p2.length });
  await st.completeMultipartUpload('bkt', 'mixed', id, [{ partNumber: 1, etag: i1.etag }, { partNumber: 2, etag: i2.etag }]);
  await put(st, 'bkt', 'new', objects.new!);
  await put(st, 'bkt', 'one', objects.one!);

  // The records name the layout of each part; old records (no field) are interleaved.
  const roots = c.sets[0]!;
  const layouts = async (key: string): Promise<(string | undefined)[]> =>
    decodeObjectMeta(await mustReadRecord(roots[0]!, 'bkt', key)).parts.map((p) => p.bitrot);
  assert.deepEqual(await layouts('old'), [undefined]);
  assert.deepEqual(await layouts('mixed'), [undefined, 'trailing']);
  assert.deepEqual(await layouts('new'), ['trailing']);
  assert.deepEqual(await layouts('one'), ['trailing']);

  // On the drive of shard 1 (the body's first 512 KiB of every block): after a hash, or back to back with the hashes last.
  // (Placement spreads shards by key: each key has its own drive of shard 1.)
  const shard1 = async (key: string): Promise<string> =>
    roots[(await Promise.all(roots.map(async (r) => decodeObjectMeta(await mustReadRecord(r, 'bkt', key)).erasure.index))).indexOf(1)]!;
  const oldFile = await readFile((await partFiles(await shard1('old'), 'bkt', 'old'))[0]!);
  assert.deepEqual(oldFile.subarray(BITROT_HASH_SIZE, BITROT_HASH_SIZE + 512 * 1024), objects.old!.subarray(0, 512 * 1024));
  const newFile = await readFile((await partFiles(await shard1('new'), 'bkt', 'new'))[0]!);
  const dataSize = shardDataLength(objects.new!.length, MiB, 2);
  assert.equal(newFile.length, dataSize + 4 * BITROT_HASH_SIZE);
  assert.deepEqual(newFile.subarray(0, 512 * 1024), objects.new!.subarray(0, 512 * 1024));
  assert.deepEqual(newFile.subarray(MiB, MiB + 512 * 1024), objects.new!.subarray(2 * MiB, 2 * MiB + 512 * 1024));
  assert.deepEqual(newFile.subarray(dataSize, dataSize + BITROT_HASH_SIZE), h.hash(newFile.subarray(0, 512 * 1024)));

  const check = async (when: string): Promise<void> => {
    for (const [key, data] of Object.entries(objects)) {
      assert.ok((await get(st, 'bkt', key)).equals(data), `${key} ${when}`);
      for (const [start, end] of [[0, 0], [524_287, 524_298], [MiB - 1, 2 * MiB + 3], [5 * MiB - 3, 5 * MiB + 2], [data.length - 1, data.length - 1]] as const) {
        if (end >= data.length) continue;
        const got = await collect((await st.openObject('bkt', key)).read({ start, end }));
        assert.ok(got.equals(data.subarray(start, end + 1)), `${key} bytes ${start}-${end} ${when}`);
      }
    }
  };
  await check('as written');

  // Every shard file of shard 1 lost: reads rebuild from the others, and the heal writes each part back in its
  // own layout, byte for byte.
  const before = new Map<string, Buffer>();
  for (const key of Object.keys(objects)) {
    for (const f of await partFiles(await shard1(key), 'bkt', key)) {
      before.set(`${key} ${f.slice(f.lastIndexOf('/') + 1)}`, await readFile(f));
      await rm(f);
    }
  }
  await check('with shard 1 missing');
  await st.drainHeals();
  for (const key of Object.keys(objects)) {
    for (const f of await partFiles(await shard1(key), 'bkt', key)) {
      const name = `${key} ${f.slice(f.lastIndexOf('/') + 1)}`;
      assert.ok((await readFile(f)).equals(before.get(name)!), `${name} healed as it was`);
      before.delete(name);
    }
  }
  assert.deepEqual([...before.keys()], [], 'every lost file was rebuilt');
  await check('after the heal');
});

test('every chunk of a trailing-layout file has its hash in the table, for bodies in uneven pieces on 2+2 and 3+2 sets', async (t) => {
  const h = await loadBitrotHasher();
  for (const [drives, k] of [[4, 2], [5, 3]] as const) {
    const c = await testCluster(1, drives, 2);
    t.after(() => c.cleanup());
    const st = await c.open();
    await st.makeBucket('bkt');
    // Whole blocks (their data chunks hashed as the body is copied in, with the zero padding of a 3+2 set's last data
    // chunk), a short last block, and pieces of 70,001 bytes that straddle every chunk boundary.
    for (const [key, size] of [['whole', 3 * MiB], ['tail', 2 * MiB + 1], ['one', MiB]] as const) {
      const data = pattern(size, size % 97);
      const pieces: Buffer[] = [];
      for (let at = 0; at < size; at += 70_001) pieces.push(data.subarray(at, Math.min(size, at + 70_001)));
      await st.putObject('bkt', key, Readable.from(pieces), { size, metadata: NO_META });
      assert.ok((await get(st, 'bkt', key)).equals(data), `${key} on ${k}+2`);
      const stride = shardDataLength(MiB, MiB, k);
      const dataSize = shardDataLength(size, MiB, k);
      const chunks = Math.ceil(size / MiB);
      for (const root of c.sets[0]!) {
        const file = await readFile((await partFiles(root, 'bkt', key))[0]!);
        assert.equal(file.length, dataSize + chunks * BITROT_HASH_SIZE);
        for (let i = 0; i < chunks; i++) {
          const chunk = file.subarray(i * stride, Math.min(dataSize, (i + 1) * stride));
          assert.deepEqual(file.subarray(dataSize + i * BITROT_HASH_SIZE, dataSize + (i + 1) * BITROT_HASH_SIZE), h.hash(chunk), `${key} chunk ${i} on ${k}+2`);
        }
      }
    }
  }
});
