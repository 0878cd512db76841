import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { hasRecord, mustReadRecord, removeRecord, writeRecord } from '../../../test/helpers/drive-records.js';
import { forgetCachedMeta } from '../drive/index.js';
import { decodeObjectRecord, envelopeLayout, isDeleteMarker } from '../format/index.js';
import type { ObjectMeta } from '../format/index.js';
import type { VersioningState } from './object-layer.js';
import type { Storage } from './open-storage.js';
import { BucketNotEmptyError, DeleteMarkerReadError, ObjectNotFoundError, VersionNotFoundError } from './storage-errors.js';
import { NO_META, collect, get, pattern, put, testCluster } from './testing.js';

async function putV(st: Storage, key: string, data: Buffer, versioning?: VersioningState): Promise<string> {
  const info = await st.putObject('bkt', key, Readable.from([data]), { size: data.length, metadata: NO_META, ...(versioning ? { versioning } : {}) });
  return info.versionId!;
}

async function getV(st: Storage, key: string, versionId: string): Promise<Buffer> {
  return collect((await st.openObject('bkt', key, { versionId })).read());
}

const dataDirsOn = async (root: string, key: string): Promise<string[]> =>
  (await readdir(join(root, 'bkt', `+${key}`))).filter((n) => /^[0-9a-f-]{36}$/.test(n)).sort();

test('enabled: every PUT is a version; reads by id; a delete adds a marker; removing the marker restores the object', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  const one = pattern(300_000, 1);
  const two = pattern(1000, 2);
  const v1 = await putV(st, 'k', one, 'enabled');
  const v2 = await putV(st, 'k', two, 'enabled');
  assert.match(v1, /^[0-9a-f-]{36}$/);
  assert.notEqual(v1, v2);
  assert.ok((await get(st, 'bkt', 'k')).equals(two));
  assert.ok((await getV(st, 'k', v1)).equals(one));
  assert.equal((await st.getObjectInfo('bkt', 'k', { versionId: v1 })).size, one.length);
  await assert.rejects(st.getObjectInfo('bkt', 'k', { versionId: '00000000-0000-4000-8000-000000000000' }), VersionNotFoundError);

  const del = await st.deleteObject('bkt', 'k', { versioning: 'enabled' });
  assert.equal(del.deleteMarker, true);
  assert.match(del.versionId!, /^[0-9a-f-]{36}$/);
  await assert.rejects(st.openObject('bkt', 'k'), (e: unknown) => e instanceof ObjectNotFoundError && e.deleteMarker?.versionId === del.versionId);
  await assert.rejects(st.getObjectInfo('bkt', 'k', { versionId: del.versionId! }), DeleteMarkerReadError);
  assert.deepEqual((await st.listObjects('bkt', { prefix: '', delimiter: '', startAfter: '', maxKeys: 10 })).objects, []);
  assert.ok((await getV(st, 'k', v1)).equals(one), 'older versions stay readable behind the marker');

  assert.deepEqual(await st.deleteObject('bkt', 'k', { versionId: del.versionId!, versioning: 'enabled' }), { versionId: del.versionId, deleteMarker: true });
  assert.ok((await get(st, 'bkt', 'k')).equals(two));
  assert.equal((await st.listObjects('bkt', { prefix: '', delimiter: '', startAfter: '', maxKeys: 10 })).objects[0]?.versionId, v2);

  // Removing a version for good removes its data directory on every drive.
  const before = await Promise.all(c.sets[0]!.map((r) => dataDirsOn(r, 'k')));
  assert.ok(before.every((d) => d.length === 1), 'the 300 KB version has a data directory, the 1000 B one is inline');
  await st.deleteObject('bkt', 'k', { versionId: v1 });
  for (const r of c.sets[0]!) assert.deepEqual(await dataDirsOn(r, 'k'), []);
  await assert.rejects(st.openObject('bkt', 'k', { versionId: v1 }), VersionNotFoundError);
  await st.deleteObject('bkt', 'k', { versionId: v2 });
  await assert.rejects(st.openObject('bkt', 'k'), (e: unknown) => e instanceof ObjectNotFoundError && e.deleteMarker === undefined);
  assert.deepEqual(await st.deleteObject('bkt', 'k', { versionId: v2 }), { versionId: v2, deleteMarker: false });
});

test('an unversioned object becomes the "null" version; suspended writes and deletes replace the null version only', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  await put(st, 'bkt', 'k', Buffer.from('legacy'));
  const raw = await mustReadRecord(c.sets[0]![0]!, 'bkt', 'k');
  assert.equal(envelopeLayout(raw)?.version, 1, 'unversioned writes keep the version 1 record');
  assert.equal((await st.getObjectInfo('bkt', 'k')).versionId, 'null');
  const v1 = await putV(st, 'k', Buffer.from('enabled'), 'enabled');
  assert.equal((await getV(st, 'k', 'null')).toString(), 'legacy');
  assert.equal(await putV(st, 'k', Buffer.from('suspended-1'), 'suspended'), 'null');
  assert.equal(await putV(st, 'k', Buffer.from('suspended-2'), 'suspended'), 'null');
  const rec = decodeObjectRecord(await mustReadRecord(c.sets[0]![0]!, 'bkt', 'k'));
  assert.deepEqual(rec.versions.map((v) => v.versionId), ['null', v1]);
  assert.equal((await get(st, 'bkt', 'k')).toString(), 'suspended-2');
  assert.equal((await getV(st, 'k', v1)).toString(), 'enabled');

  const marker = await st.deleteObject('bkt', 'k', { versioning: 'suspended' });
  assert.deepEqual(marker, { versionId: 'null', deleteMarker: true });
  const after = decodeObjectRecord(await mustReadRecord(c.sets[0]![1]!, 'bkt', 'k'));
  assert.deepEqual(after.versions.map((v) => [v.versionId, isDeleteMarker(v)]), [['null', true], [v1, false]]);
  await assert.rejects(st.openObject('bkt', 'k'), ObjectNotFoundError);
  // Tags change the newest version in place: its id stays, the record's write id changes.
  await st.deleteObject('bkt', 'k', { versionId: 'null' });
  const tagged = await st.putObjectTags('bkt', 'k', [{ key: 'a', value: 'b' }]);
  assert.equal(tagged.versionId, v1);
  assert.deepEqual((await st.getObjectInfo('bkt', 'k', { versionId: v1 })).tags, [{ key: 'a', value: 'b' }]);
});

test('each version keeps its own erasure coding and bitrot protection: a damaged shard of an older version reads back correctly and is healed', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  const old = pattern(2 * 1024 * 1024 + 7, 3);
  const oldSmall = pattern(5000, 4);
  const v1 = await putV(st, 'obj', old, 'enabled');
  const s1 = await putV(st, 'small', oldSmall, 'enabled');
  await putV(st, 'obj', pattern(400_000, 5), 'enabled');
  await putV(st, 'small', pattern(10, 6), 'enabled');
  const roots = c.sets[0]!;
  const records = await Promise.all(roots.map(async (r) => decodeObjectRecord(await mustReadRecord(r, 'bkt', 'obj'))));
  const oldOn = records.map((r) => r.versions.find((v) => v.versionId === v1) as ObjectMeta);
  // Damage the data shards of the old version (index <= K: the ones a healthy read uses) on both data drives.
  const dataDrives = oldOn.flatMap((m, i) => (m.erasure.index <= 2 ? [i] : []));
  assert.equal(dataDrives.length, 2);
  const files = dataDrives.map((i) => join(roots[i]!, 'bkt', '+obj', oldOn[i]!.dataDir!, 'part.1'));
  const originals = await Promise.all(files.map((f) => readFile(f)));
  for (const [j, f] of files.entries()) {
    const bad = Buffer.from(originals[j]!);
    bad[40 + j * 1000] = bad[40 + j * 1000]! ^ 0xff;
    await writeFile(f, bad);
  }
  assert.ok((await getV(st, 'obj', v1)).equals(old));
  await st.drainHeals();
  for (const [j, f] of files.entries()) assert.ok((await readFile(f)).equals(originals[j]!), 'shard file of the old version restored');
  assert.ok((await getV(st, 'obj', v1)).equals(old));

  // An inline older version: flip a byte of a data drive's inline shard in its record.
  const smallRecords = await Promise.all(roots.map(async (r) => decodeObjectRecord(await mustReadRecord(r, 'bkt', 'small'))));
  const smallData = smallRecords.findIndex((r) => (r.versions.find((v) => v.versionId === s1) as ObjectMeta).erasure.index === 1);
  const smallRoot = roots[smallData]!;
  const rawRecord = await mustReadRecord(smallRoot, 'bkt', 'small');
  const own = decodeObjectRecord(rawRecord).versions.find((v) => v.versionId === s1) as ObjectMeta;
  const at = rawRecord.indexOf(own.inline!);
  assert.ok(at > 0);
  const damaged = Buffer.from(rawRecord);
  damaged[at + own.inline!.length - 1] = damaged[at + own.inline!.length - 1]! ^ 0xff;
  await writeRecord(smallRoot, 'bkt', 'small', damaged);
  forgetCachedMeta();
  assert.ok((await getV(st, 'small', s1)).equals(oldSmall));
  await st.drainHeals();
  assert.ok((await mustReadRecord(smallRoot, 'bkt', 'small')).equals(rawRecord), 'inline shard of the old version restored');
});

test('a drive that missed versions is rebuilt with every version by the heal', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  const a = pattern(250_000, 7);
  const b = pattern(3000, 8);
  const va = await putV(st, 'x', a, 'enabled');
  const vb = await putV(st, 'x', b, 'enabled');
  await st.deleteObject('bkt', 'x', { versioning: 'enabled' });
  // Drive 3 loses the key: its directory (the record file too on the metadata-file layout) and its record (in the drive's
  // key index on that layout).
  const victim = c.sets[0]![2]!;
  const { rm } = await import('node:fs/promises');
  await rm(join(victim, 'bkt', '+x'), { recursive: true });
  await removeRecord(victim, 'bkt', 'x');
  assert.equal(await hasRecord(victim, 'bkt', 'x'), false);
  forgetCachedMeta();
  await assert.rejects(st.openObject('bkt', 'x'), ObjectNotFoundError);
  // A GET reads only the data-shard drives' metadata (ErasureSet.readObjectMeta): a lost copy elsewhere is found
  // by the scanner, which queues the heal.
  await st.runScanCycle({ sampleEvery: 1 });
  await st.drainHeals();
  const rebuilt = decodeObjectRecord(await mustReadRecord(victim, 'bkt', 'x'));
  assert.deepEqual(rebuilt.versions.map((v) => v.versionId).slice(1), [vb, va]);
  assert.equal((await dataDirsOn(victim, 'x')).length, 1);
  assert.ok((await getV(st, 'x', va)).equals(a));
  assert.ok((await getV(st, 'x', vb)).equals(b));
});

test('a bucket holding only noncurrent versions or delete markers is not empty; listings skip keys whose newest version is a marker', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  await putV(st, 'dir/a', Buffer.from('a'), 'enabled');
  await putV(st, 'dir/b', Buffer.from('b'), 'enabled');
  const marker = await st.deleteObject('bkt', 'dir/a', { versioning: 'enabled' });
  const list = await st.listObjects('bkt', { prefix: 'dir/', delimiter: '', startAfter: '', maxKeys: 1 });
  assert.deepEqual(list.objects.map((o) => o.key), ['dir/b']);
  assert.equal(list.isTruncated, false);
  await st.deleteObject('bkt', 'dir/b', { versioning: 'enabled' });
  assert.deepEqual((await st.listObjects('bkt', { prefix: '', delimiter: '', startAfter: '', maxKeys: 10 })).objects, []);
  await assert.rejects(st.deleteBucket('bkt'), BucketNotEmptyError);
  await st.deleteObject('bkt', 'dir/a', { versionId: marker.versionId! });
  assert.deepEqual((await st.listObjects('bkt', { prefix: '', delimiter: '', startAfter: '', maxKeys: 10 })).objects.map((o) => o.key), ['dir/a']);
});
