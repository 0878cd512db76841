/**
 * Regression test of an engine bug the fault run found (issue 10):
 *
 * GET takes no read lock on the key (storage/engine/object-read.ts), so it can read the metadata records while
 * an overwrite is committing them: some drives hold the new record, some the old one, neither reaches read
 * quorum, and ErasureSet.pickQuorum answers ObjectNotFoundError ("largest + unknown < readQuorum") although
 * the object exists all along. S3 clients saw NoSuchKey for an object that was never deleted. Fixed in
 * ErasureSet.readQuorumMeta: a split read is repeated under the object's lock.
 *
 * The fault run found it again (seed 335142602) with drives that did not answer: a split of old and new records
 * plus unknown answers still counted as "no record can reach quorum" → NoSuchKey, even after the retry. Fixed
 * in ErasureSet.pickQuorum: "not found" needs more drives answering "not found" than a commit leaves out.
 *
 * And a third time (seed 945207394): a key written while one node was down (its drives then lack it) read as
 * absent once a holder's directory vanished and was formatted afresh, because the "not found" of that replacement
 * drive counted as a vote; the heal would also have removed the remaining records as a failed write's leftovers.
 * Fixed in ErasureSet.votesAbsent (used by pickQuorum and healObject), with the replacement's format marked
 * "healing" until its heal is complete (drive-monitor.ts).
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cp, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { hasRecord, mustReadRecord, removeRecord, writeRecord } from '../../../test/helpers/drive-records.js';
import { forgetCachedMeta } from '../drive/index.js';
import { openStorage, type Storage } from '../index.js';
import { ErasureSets } from './erasure-sets.js';
import { healObject } from './heal.js';

/**
 * Storage on 8 drives, EC:2 (read quorum 6, write quorum 6: a committed record is missing from at most 2 drives),
 * bucket `b` made; `put(key)` writes 200 KiB of random bytes.
 */
async function eightDrives(t: TestContext): Promise<{ root: string; paths: string[]; st: Storage; put(key: string): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'svc-split-'));
  t.after(() => rm(root, { recursive: true, force: true, maxRetries: 5 }));
  const paths = Array.from({ length: 8 }, (_, i) => join(root, `d${i + 1}`));
  for (const p of paths) await mkdir(p);
  const st = await openStorage({ sets: [paths], parity: 2, driveCheckIntervalMs: 3_600_000 });
  t.after(() => st.close());
  await st.makeBucket('b');
  const put = async (key: string): Promise<void> => {
    const body = randomBytes(200 * 1024);
    await st.putObject('b', key, Readable.from([body]), { size: body.length, metadata: { system: {}, user: {} } });
  };
  return { root, paths, st, put };
}

test('an object being overwritten never reads as absent', async (t) => {
  const { st, put } = await eightDrives(t);
  await put('k');
  let stop = false;
  const writer = (async () => { while (!stop) await put('k'); })();
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

/**
 * The object's directory on drive `root` (key segments are stored as `+<segment>`, drive/object-path.ts): its data
 * directories, and its record too on the metadata-file layout (the key-index layout keeps records in the drive's index).
 */
const objDir = (root: string, bucket: string, key: string): string => join(root, bucket, `+${key}`);

test('a half-committed overwrite with drives not answering is unavailable, never absent; a dangling record is absent', async (t) => {
  const { root, paths, st, put } = await eightDrives(t);

  // The state an overwrite leaves mid-commit: drives 1-3 still hold the old version (its record and its data
  // directory, saved and put back), 4-8 the new one.
  await put('k');
  const saved = join(root, 'saved');
  const oldRecords: Buffer[] = [];
  for (let i = 0; i < 3; i++) {
    await cp(objDir(paths[i]!, 'b', 'k'), join(saved, `d${i}`), { recursive: true });
    oldRecords.push(await mustReadRecord(paths[i]!, 'b', 'k'));
  }
  await put('k');
  for (let i = 0; i < 3; i++) {
    await rm(objDir(paths[i]!, 'b', 'k'), { recursive: true, force: true, maxRetries: 5 });
    await cp(join(saved, `d${i}`), objDir(paths[i]!, 'b', 'k'), { recursive: true });
    await writeRecord(paths[i]!, 'b', 'k', oldRecords[i]!);
  }
  // Two of the new version's drives answer neither a record nor "not found": their records fail their CRC32C.
  for (const i of [3, 4]) {
    const bytes = await mustReadRecord(paths[i]!, 'b', 'k');
    bytes[bytes.length - 1]! ^= 0x01;
    await writeRecord(paths[i]!, 'b', 'k', bytes);
  }
  forgetCachedMeta();
  // 3 old + 3 new + 2 unknown: no quorum, and no drive says "not found", so the object exists.
  await assert.rejects(st.getObjectInfo('b', 'k'), { name: 'InsufficientReadQuorumError' });

  // A failed write's leftover: a record on 2 drives, "not found" on 6 (more than the 2 a commit may leave out).
  await put('gone');
  for (let i = 2; i < 8; i++) await removeRecord(paths[i]!, 'b', 'gone');
  forgetCachedMeta();
  assert.ok(await hasRecord(paths[0]!, 'b', 'gone'));
  await assert.rejects(st.getObjectInfo('b', 'gone'), { name: 'ObjectNotFoundError' });
});

test('a replacement drive not yet healed does not vote "absent": a key it lacks is unavailable, not absent, and its heal removes nothing', async (t) => {
  const { paths, st, put } = await eightDrives(t);
  assert.ok(st instanceof ErasureSets);
  const set = st.sets[0]!;
  // Drives 1-2 are away while the key is written: 6 holders, the write quorum.
  for (const i of [0, 1]) await rename(paths[i]!, `${paths[i]}.away`);
  await put('k');
  for (const i of [0, 1]) await rename(`${paths[i]}.away`, paths[i]!);
  // They come back (the drive monitor's "back online, healing"), and a holder is replaced by an empty drive,
  // formatted afresh (its format marked "healing"). No heal has run yet.
  await rm(objDir(paths[2]!, 'b', 'k'), { recursive: true, force: true, maxRetries: 5 });
  await removeRecord(paths[2]!, 'b', 'k');
  forgetCachedMeta();
  for (const i of [0, 1, 2]) {
    set.drives[i]!.state = 'online';
    set.drives[i]!.healing = true;
  }
  set.drives[2]!.unhealed = true;
  // 5 holders (K = 6); "not found" from the 2 drives back from an outage (at most n − write quorum = 2 may lack a
  // committed record) and from the replacement, which does not count: the object exists, it cannot be read yet.
  await assert.rejects(st.getObjectInfo('b', 'k'), { name: 'InsufficientReadQuorumError' });
  await assert.rejects(healObject(set, 'b', 'k', false), { name: 'InsufficientReadQuorumError' });
  for (let i = 3; i < 8; i++) assert.ok(await hasRecord(paths[i]!, 'b', 'k'), `drive ${i + 1} keeps its record`);
});
