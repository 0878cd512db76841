/**
 * One erasure set whose drives have both layouts: drives formatted with metadata files, then two of them replaced
 * (wiped) while the server runs with the key index for new drives, as a deployment gets once new drives are formatted
 * with the key index and old ones keep theirs (indexed-objects.ts: the layout stays with the drive). Heals, reads,
 * writes, deletes and listings must not care which layout a drive has.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { keyIndexWanted, setKeyIndexForNewDrives } from '../drive/indexed-objects.js';
import { get, pattern, put, testCluster } from './testing.js';
import type { Storage } from './open-storage.js';
import { hasRecord, usesKeyIndex } from '../../../test/helpers/drive-records.js';

const SIZES = [0, 10, 4096, 200 * 1024, 2 * 1024 * 1024 + 5];

async function keysOf(st: Storage): Promise<string[]> {
  const list = await st.listObjects('bkt', { prefix: '', delimiter: '', startAfter: '', maxKeys: 1000 });
  return list.objects.map((o) => o.key);
}

async function assertIntact(st: Storage, objects: Map<string, Buffer>): Promise<void> {
  assert.deepEqual(await keysOf(st), [...objects.keys()].sort(), 'the listing holds every object and nothing else');
  for (const [key, data] of objects) assert.ok((await get(st, 'bkt', key)).equals(data), `object ${key} intact`);
}

test('a set of drives with both layouts: heals onto key-index drives, then reads, writes, deletes and lists across both', async (t) => {
  const before = keyIndexWanted();
  t.after(() => setKeyIndexForNewDrives(before));
  setKeyIndexForNewDrives(false);
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const [d0, d1, d2, d3] = c.sets[0]! as [string, string, string, string];
  let st = await c.open();
  await st.makeBucket('bkt');
  const objects = new Map<string, Buffer>();
  for (const [i, size] of SIZES.entries()) {
    const data = pattern(size, i);
    await put(st, 'bkt', `old/${i}`, data);
    objects.set(`old/${i}`, data);
  }
  assert.ok([d0, d1, d2, d3].every((d) => !usesKeyIndex(d)));

  // Two drives replaced by blank ones while the server runs with the key index for new drives.
  setKeyIndexForNewDrives(true);
  for (const d of [d2, d3]) for (const n of await readdir(d)) await rm(join(d, n), { recursive: true, force: true, maxRetries: 5 });
  await assertIntact(st, objects);
  // The drive monitor formats the blank drives once it checks them (health asks) and heals them.
  assert.equal((await st.health()).onlineDrives, 4);
  await st.drainHeals();
  assert.deepEqual([d0, d1, d2, d3].map(usesKeyIndex), [false, false, true, true], 'the blank drives were formatted with the key index');
  for (const key of objects.keys()) for (const d of [d2, d3]) assert.ok(await hasRecord(d, 'bkt', key), `${key} healed onto ${d}`);

  // Writes, an overwrite and a delete over the mixed set.
  for (const [i, size] of SIZES.entries()) {
    const data = pattern(size, 100 + i);
    await put(st, 'bkt', `new/${i}`, data);
    objects.set(`new/${i}`, data);
  }
  const replaced = pattern(4096, 7);
  await put(st, 'bkt', 'old/2', replaced);
  objects.set('old/2', replaced);
  await st.deleteObject('bkt', 'old/3');
  objects.delete('old/3');
  await assertIntact(st, objects);

  // The metadata-file drives gone: the key-index drives alone (the parity EC:2 allows) still serve every object.
  await rename(d0, `${d0}.away`);
  await rename(d1, `${d1}.away`);
  await assertIntact(st, objects);

  // Back, and the storage opened again: each drive kept its layout, nothing was lost.
  await st.close();
  await rename(`${d0}.away`, d0);
  await rename(`${d1}.away`, d1);
  st = await c.open();
  assert.deepEqual([d0, d1, d2, d3].map(usesKeyIndex), [false, false, true, true]);
  await assertIntact(st, objects);
});
