import { test } from 'node:test';
import assert from 'node:assert/strict';
import { removeRecord, writeRecord } from '../../../test/helpers/drive-records.js';
import { ErasureSets } from './erasure-sets.js';
import { HealQueue } from './heal-queue.js';
import type { HealOutcome } from './heal-queue.js';
import { InsufficientReadQuorumError } from './storage-errors.js';
import { pattern, put, testCluster } from './testing.js';

const QUIET = { info() {}, warn() {}, error() {} };

test('queued object heals report their outcome to every caller and are counted', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open({ scanner: false });
  assert.ok(st instanceof ErasureSets);
  const set = st.sets[0]!;
  await st.makeBucket('bkt');
  await put(st, 'bkt', 'a', pattern(300 * 1024));
  await put(st, 'bkt', 'b', pattern(1000));
  await put(st, 'bkt', 'c', pattern(1000));
  // "b" (inline: its record is all a drive holds of it) lost on drive 0.
  await removeRecord(c.sets[0]![0]!, 'bkt', 'b');
  // Three undecodable records of four: no version can be agreed on, the heal fails.
  for (const root of c.sets[0]!.slice(1)) await writeRecord(root, 'bkt', 'c', Buffer.from('garbage'));

  const q = new HealQueue(QUIET);
  const outcomes: [string, HealOutcome][] = [];
  const note = (name: string) => (o: HealOutcome): void => { outcomes.push([name, o]); };
  // "a" starts at once; the two requests for "b" wait as one task; "c" cannot be healed.
  q.queueObject(set, 'bkt', 'a', false, note('a'));
  q.queueObject(set, 'bkt', 'b', false, note('b1'));
  q.queueObject(set, 'bkt', 'b', false, note('b2'));
  q.queueObject(set, 'bkt', 'c', false, note('c'));
  assert.equal(q.status().queued, 2);
  assert.equal(q.status().running, 1);
  await q.drain();

  assert.deepEqual(outcomes.map(([n]) => n), ['a', 'b1', 'b2', 'c']);
  const [a, b1, b2, failed] = outcomes.map(([, o]) => o);
  assert.ok(a!.ok && a.result.healed.length === 0, 'nothing to heal for a');
  assert.ok(b1!.ok && b1.result.healed.length === 1 && b1.result.healed[0] === 0, 'b rebuilt on drive 0');
  assert.equal(b2, b1, 'both callers get the outcome of the one heal');
  assert.ok(!failed!.ok && failed.error instanceof InsufficientReadQuorumError);
  const s = q.status();
  assert.deepEqual({ ...s, bytesHealed: 0 }, { queued: 0, running: 0, completed: 2, healedObjects: 1, failed: 1, dropped: 0, bytesHealed: 0 });
  assert.ok(s.bytesHealed > 0);
  await q.close();
  q.queueObject(set, 'bkt', 'b', false, note('late'));
  await q.drain();
  assert.equal(outcomes.length, 4, 'a closed queue takes no work');
});
