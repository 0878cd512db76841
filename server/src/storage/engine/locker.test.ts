import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import type { NamespaceLocker, Unlock } from './locker.js';
import { InsufficientWriteQuorumError } from './storage-errors.js';
import { NO_META, get, pattern, put, testCluster } from './testing.js';

/** A locker whose every lock is already lost when granted (a distributed lease whose refresh lost quorum). */
const lostLocker: NamespaceLocker = {
  async lock(): Promise<Unlock> {
    return Object.assign(() => {}, { signal: AbortSignal.abort(new Error('2 of 4 lockers no longer hold it')) });
  },
};

test('a holder whose lock was lost commits nothing: put, delete and tagging fail, the old version stays', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const good = await c.open();
  await good.makeBucket('b');
  await put(good, 'b', 'k', pattern(300_000, 1));
  await good.close();

  const lost = await c.open({ locker: lostLocker });
  const isLost = (err: unknown): boolean => err instanceof InsufficientWriteQuorumError
    && /the lock on b\/k was lost before the commit: 2 of 4 lockers no longer hold it; nothing was written, retry/.test(err.message);
  const body = pattern(200_000, 2);
  await assert.rejects(lost.putObject('b', 'k', Readable.from([body]), { size: body.length, metadata: NO_META }), isLost);
  await assert.rejects(lost.deleteObject('b', 'k'), isLost);
  await assert.rejects(lost.putObjectTags('b', 'k', [{ key: 'a', value: '1' }]), isLost);
  await assert.rejects(lost.putBucketTags('b', [{ key: 'a', value: '1' }]), /the lock on \.bucket-meta\/b was lost/);
  await lost.close();

  const again = await c.open();
  assert.deepEqual(await get(again, 'b', 'k'), pattern(300_000, 1));
  assert.equal((await again.getObjectInfo('b', 'k')).tags, undefined);
  assert.equal(await again.getBucketTags('b'), undefined);
});
