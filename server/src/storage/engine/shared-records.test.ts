import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { freezeSharedRecords } from './erasure-set.js';
import { collect, pattern, testCluster } from './testing.js';

/**
 * The GET/HEAD path hands out records decoded once and shared between requests (record-memo.ts). With them frozen
 * (as the whole suite runs, test/helpers/shared-records-suite.ts), repeated reads of every kind must work — nothing
 * on the read path changes a record — and a write must show at once, never the record decoded before it.
 */
test('repeated GETs, ranges, HEADs and version reads work on frozen shared records, and see every write at once', async (t) => {
  freezeSharedRecords(true);
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  const small = pattern(4096, 1);
  const large = pattern(300_000, 2);
  const meta = { system: { 'content-type': 'text/plain' }, user: { owner: 'alice' } };
  const v1 = (await st.putObject('bkt', 'k', Readable.from([small]), { size: small.length, metadata: meta, versioning: 'enabled' })).versionId!;
  const v2 = (await st.putObject('bkt', 'k', Readable.from([large]), { size: large.length, metadata: meta, versioning: 'enabled' })).versionId!;
  for (let round = 0; round < 3; round++) {
    const info = await st.getObjectInfo('bkt', 'k');
    assert.equal(info.versionId, v2);
    assert.deepEqual(info.user, { owner: 'alice' });
    // What the read path hands on is the caller's to change.
    info.user.owner = 'changed';
    const open = await st.openObject('bkt', 'k');
    assert.equal(open.info.user.owner, 'alice');
    assert.ok((await collect(open.read())).equals(large));
    assert.ok((await collect(open.read({ start: 1000, end: 200_999 }))).equals(large.subarray(1000, 201_000)));
    const old = await st.openObject('bkt', 'k', { versionId: v1 });
    assert.ok(old.bytes!()!.equals(small));
    assert.ok(old.bytes!({ start: 10, end: 19 })!.equals(small.subarray(10, 20)));
    assert.ok((await collect(old.read())).equals(small));
  }
  // A new version and a delete marker show on the very next reads.
  const next = pattern(5000, 3);
  await st.putObject('bkt', 'k', Readable.from([next]), { size: next.length, metadata: { system: {}, user: {} }, versioning: 'enabled' });
  const now = await st.openObject('bkt', 'k');
  assert.deepEqual(now.info.user, {});
  assert.ok((await collect(now.read())).equals(next));
  await st.deleteObject('bkt', 'k', { versioning: 'enabled' });
  await assert.rejects(st.getObjectInfo('bkt', 'k'), { name: 'ObjectNotFoundError' });
  assert.ok((await collect((await st.openObject('bkt', 'k', { versionId: v1 })).read())).equals(small));
});
