import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testCluster } from './testing.js';

test('Storage.driveSlots/poolLayouts: every slot with its position, state and format uuid; quorums of the pool', async (t) => {
  const cluster = await testCluster(2, 4, 2);
  t.after(() => cluster.cleanup());
  const storage = await cluster.open();
  const slots = storage.driveSlots();
  assert.deepEqual(slots.map((s) => [s.pool, s.set, s.index]), [0, 1].flatMap((set) => [0, 1, 2, 3].map((i) => [0, set, i])));
  assert.ok(slots.every((s) => s.state === 'online' && !s.healing && /^[0-9a-f-]{36}$/.test(s.uuid)));
  assert.equal(new Set(slots.map((s) => s.uuid)).size, 8);
  assert.deepEqual(storage.poolLayouts(), [{ sets: 2, drivesPerSet: 4, parity: 2, readQuorum: 2, writeQuorum: 3 }]);
});
