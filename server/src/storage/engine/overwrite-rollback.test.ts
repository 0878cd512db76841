/**
 * Regression test of an engine bug the fault run found (issue 10):
 *
 * An overwrite that commits on fewer drives than its write quorum is rolled back (storage/engine/versions.ts
 * writeRecord → rollback): the drives that took it get the previous record back. But committing the new record
 * already removed the previous version's data directory on those drives (LocalDrive#commit drops the data dirs
 * the new record does not keep), so the restored record pointed at shards that were gone — and an unversioned
 * overwrite did not even know the previous record, so the rollback deleted the object on those drives. The
 * previous, acknowledged version was then unreadable: a failed PUT destroyed the object it was meant to replace.
 * Fixed in versions.ts (replaced data is removed only after write quorum) and object-write.ts (the previous record
 * is read for unversioned writes too).
 * Here: 6 drives, EC:2 (K = 4, write quorum 4); the overwrite's commit fails on 3 drives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { FaultyDiskError } from '../index.js';
import { hasRecord, usesKeyIndex } from '../../../test/helpers/drive-records.js';
import { sixDrives as sixLocalDrives } from '../../../test/helpers/six-drives.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** Six local drives, EC:2; renameData fails on the drives in the returned set. */
async function sixDrives(t: { after(fn: () => unknown): void }) {
  const failing = new Set<number>();
  const { st, paths } = await sixLocalDrives(t, (i, prop, call, path) => (prop !== 'renameData' ? undefined : async (...args: unknown[]) => {
    if (failing.has(i)) throw new FaultyDiskError(path, 'injected commit failure');
    return call(...args);
  }));
  return { st, paths, failing };
}

const put = (st: Awaited<ReturnType<typeof sixDrives>>['st'], key: string, body: Buffer) => (
  st.putObject('b', key, Readable.from([body]), { size: body.length, metadata: { system: {}, user: {} } })
);

async function readAll(st: Awaited<ReturnType<typeof sixDrives>>['st'], key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of (await st.openObject('b', key)).read()) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

// Objects with a data directory (1 MiB) and inline ones (1 KiB: their record holds the data, and the commit goes
// through the drives' commit logs), overwritten by either kind.
const MiB = 1024 * 1024;
for (const [from, to] of [[MiB, MiB], [1024, 1024], [MiB, 1024], [1024, MiB]] as const) {
  test(`a failed overwrite leaves the previous version readable (${from} bytes overwritten by ${to})`, async (t) => {
    const { st, failing } = await sixDrives(t);
    const a = randomBytes(from);
    await put(st, 'k', a);
    for (const i of [3, 4, 5]) failing.add(i);
    await assert.rejects(put(st, 'k', randomBytes(to)), /quorum/);
    failing.clear();
    // The failed drives were taken offline by the injected errors; the drive monitor's check brings them back.
    assert.equal((await st.health()).onlineDrives, 6);
    assert.equal(sha(await readAll(st, 'k')), sha(a), 'the acknowledged version survives a failed overwrite');
  });
}

test('a failed first write of a key leaves no trace of it', async (t) => {
  const { st, paths, failing } = await sixDrives(t);
  for (const i of [3, 4, 5]) failing.add(i);
  await assert.rejects(put(st, 'new', randomBytes(1024)), /quorum/);
  failing.clear();
  await assert.rejects(st.openObject('b', 'new'), (err: Error) => err.name === 'ObjectNotFoundError');
  for (const p of paths) {
    assert.deepEqual(await readdir(join(p, 'b')), ['.bucket.meta'], `no key directory left on ${p}`);
    assert.equal(await hasRecord(p, 'b', 'new'), false, `no record of the key left on ${p}`);
  }
});

test('a successful overwrite removes the replaced data on every drive', async (t) => {
  const { st, paths } = await sixDrives(t);
  await put(st, 'k', randomBytes(MiB));
  const b = randomBytes(1024);
  await put(st, 'k', b);
  for (const p of paths) {
    if (usesKeyIndex(p)) {
      // The record is in the drive's key index; nothing else of the key is left under its directory (if it has one).
      assert.ok(await hasRecord(p, 'b', 'k'), `the inline record is on ${p}`);
      const names = await readdir(join(p, 'b', '+k')).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return [];
        throw err;
      });
      assert.deepEqual(names, [], `no data directory left on ${p}`);
    } else {
      const names = await readdir(join(p, 'b', '+k'));
      assert.deepEqual(names, ['xl.meta'], `only the inline record is left on ${p}`);
    }
  }
  assert.equal(sha(await readAll(st, 'k')), sha(b));
});
