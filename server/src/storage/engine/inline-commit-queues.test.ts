import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { LocalDrive } from '../drive/index.js';
import { pinMetadataFileLayout } from '../../../test/helpers/drive-records.js';
import { ioMessagesPosted } from '../drive/io-pool.js';
import { openStorage } from './open-storage.js';
import { pattern, put, testCluster } from './testing.js';

/** The fewest commit messages `round` posted over five tries (a drive opening its next log file reaches the queue turns later). */
async function fewestMessages(round: (i: number) => Promise<unknown>): Promise<number> {
  let fewest = Infinity;
  for (let i = 0; i < 5; i++) {
    const before = ioMessagesPosted('commits');
    await round(i);
    fewest = Math.min(fewest, ioMessagesPosted('commits') - before);
  }
  return fewest;
}

// inline-commits.ts: the local drives of one erasure set share one commit message per turn; sets never share one.
// The metadata-file layout's commits only: the key-index layout sends one message per index worker and turn
// (index-host.ts, its own tests).
test('a small PUT commits on its set\'s four drives in one message; drives of two sets send one message each', async (t) => {
  pinMetadataFileLayout(t);
  const c = await testCluster(2, 4, 2);
  t.after(() => c.cleanup());
  await Promise.all(c.sets.flat().map((p) => mkdir(p, { recursive: true })));
  const drives = c.sets.map((s) => s.map((p) => new LocalDrive(p)));
  const st = await openStorage({ sets: c.sets, parity: 2, drives });
  t.after(() => st.close());
  await st.makeBucket('bkt');

  assert.equal(await fewestMessages((i) => put(st, 'bkt', `small-${i}`, pattern(4096))), 1, 'one message for the four drives\' commits');
  const record = await drives[0]![0]!.readMeta('bkt', 'small-0').catch(() => drives[1]![0]!.readMeta('bkt', 'small-0'));
  const commit = (d: LocalDrive, key: string): Promise<unknown> => d.renameData('bkt', key, record, { srcDataPath: null, dataDir: null });
  const sameSet = await fewestMessages((i) => Promise.all([0, 1, 2].map((j) => commit(drives[0]![j]!, `a-${i}`))));
  assert.equal(sameSet, 1, 'three drives of one set, one turn: one message');
  const twoSets = await fewestMessages((i) => Promise.all([commit(drives[0]![0]!, `b-${i}`), commit(drives[1]![0]!, `b-${i}`)]));
  assert.equal(twoSets, 2, 'one drive of each set, one turn: a message per set');
});
