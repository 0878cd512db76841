/**
 * Reproduction of an engine bug the fault run found (not part of the suite: it fails until the bug is fixed;
 * run it with `node --import tsx --test server/test/faults/repro/read-during-overwrite.repro.ts`).
 *
 * GET takes no read lock on the key (storage/engine/object-read.ts), so it can read the metadata records while
 * an overwrite is committing them: some drives hold the new record, some the old one, neither reaches read
 * quorum, and ErasureSet.pickQuorum answers ObjectNotFoundError ("largest + unknown < readQuorum") although
 * the object exists all along. S3 clients see NoSuchKey for an object that was never deleted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { openStorage } from '../../../src/storage/index.js';

test('an object being overwritten never reads as absent', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'svc-repro-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const paths = Array.from({ length: 8 }, (_, i) => join(root, `d${i + 1}`));
  for (const p of paths) await mkdir(p);
  const st = await openStorage({ sets: [paths], parity: 2, driveCheckIntervalMs: 3_600_000 });
  t.after(() => st.close());
  await st.makeBucket('b');
  const put = (): Promise<unknown> => {
    const body = randomBytes(200 * 1024);
    return st.putObject('b', 'k', Readable.from([body]), { size: body.length, metadata: { system: {}, user: {} } });
  };
  await put();
  let stop = false;
  const writer = (async () => { while (!stop) await put(); })();
  let absent = 0;
  let reads = 0;
  const until = Date.now() + 5_000;
  while (Date.now() < until) {
    reads++;
    try {
      await st.getObjectInfo('b', 'k');
    } catch (err) {
      if ((err as Error).name === 'ObjectNotFoundError') absent++;
    }
  }
  stop = true;
  await writer;
  assert.equal(absent, 0, `${absent} of ${reads} reads during overwrites answered "not found"`);
});
