import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { NO_META, get, pattern, put, testCluster } from './testing.js';

test('ifNewestModifiedAt: a delete that listed an older object skips a newer one written since (unversioned and versioned)', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('b');
  await put(st, 'b', 'k', pattern(1000, 1));
  const listed = (await st.getObjectInfo('b', 'k')).lastModified.getTime();
  await new Promise((r) => setTimeout(r, 3));
  await put(st, 'b', 'k', pattern(1000, 2));
  assert.deepEqual(await st.deleteObject('b', 'k', { ifNewestModifiedAt: listed }), { deleteMarker: false, skipped: true });
  assert.deepEqual(await get(st, 'b', 'k'), pattern(1000, 2), 'the newer object survives');
  const current = (await st.getObjectInfo('b', 'k')).lastModified.getTime();
  assert.equal((await st.deleteObject('b', 'k', { ifNewestModifiedAt: current })).skipped, undefined);
  await assert.rejects(st.getObjectInfo('b', 'k'), { name: 'ObjectNotFoundError' });

  await st.makeBucket('v');
  await st.putObject('v', 'k', Readable.from([Buffer.from('one')]), { size: 3, metadata: NO_META, versioning: 'enabled' });
  const first = (await st.getObjectInfo('v', 'k')).lastModified.getTime();
  await new Promise((r) => setTimeout(r, 3));
  await st.putObject('v', 'k', Readable.from([Buffer.from('two')]), { size: 3, metadata: NO_META, versioning: 'enabled' });
  assert.equal((await st.deleteObject('v', 'k', { versioning: 'enabled', ifNewestModifiedAt: first })).skipped, true);
  assert.deepEqual(await get(st, 'v', 'k'), Buffer.from('two'), 'no delete marker hides the newer version');
  assert.equal((await st.deleteObject('v', 'missing', { versioning: 'enabled', ifNewestModifiedAt: first })).skipped, true);
});
