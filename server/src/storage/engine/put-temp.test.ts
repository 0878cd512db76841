/**
 * A PUT's temp directory (object-write.ts putObject, erasure/encode.ts): its writers open while the body still
 * arrives, and afterwards it is removed only where the commit did not move it in (docs/performance.md, thirty-fifth
 * session: each was thread-pool round trips on the PUT's path).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { SYS_DIR } from '../drive/object-path.js';
import { TMP_DIR } from '../drive/drive-layout.js';
import { sixDrives as sixLocalDrives } from '../../../test/helpers/six-drives.js';

const MiB = 1024 * 1024;

/**
 * Six local drives, EC:2, counting calls: renameData fails on the drives in `failing`, with an error that does not
 * take the drive offline (an offline drive is left out of every later call, the temp directory's removal too).
 */
async function sixDrives(t: { after(fn: () => unknown): void }) {
  const failing = new Set<number>();
  const calls = { deleteSysPath: new Array<number>(), createShardWriter: 0 };
  const { st, paths } = await sixLocalDrives(t, (i, prop, call) => {
    if (prop === 'renameData') {
      return async (...args: unknown[]) => {
        if (failing.has(i)) throw new Error('injected commit failure');
        return call(...args);
      };
    }
    if (prop === 'deleteSysPath') return (...args: unknown[]) => { calls.deleteSysPath.push(i); return call(...args); };
    if (prop === 'createShardWriter') return (...args: unknown[]) => { calls.createShardWriter++; return call(...args); };
    return undefined;
  });
  const tempEntries = async (): Promise<string[]> => (await Promise.all(paths.map((p) => readdir(join(p, SYS_DIR, TMP_DIR))))).flat();
  return { st, failing, calls, tempEntries };
}

const meta = { system: {}, user: {} };

test('a PUT removes its temp directory only on the drives whose commit did not move it in', async (t) => {
  const { st, failing, calls, tempEntries } = await sixDrives(t);
  await st.putObject('b', 'k1', Readable.from([randomBytes(MiB)]), { size: MiB, metadata: meta });
  assert.equal(calls.deleteSysPath.length, 0, 'every drive committed: nothing to remove');
  assert.deepEqual(await tempEntries(), []);

  // Write quorum is 4 of 6: one drive's failed commit leaves its temp directory, which is removed there alone.
  failing.add(2);
  await st.putObject('b', 'k2', Readable.from([randomBytes(MiB)]), { size: MiB, metadata: meta });
  // (A heal of drive 2 may remove temp directories there too: only the committed drives are checked for none.)
  assert.deepEqual(calls.deleteSysPath.filter((i) => i !== 2), []);
  assert.ok(calls.deleteSysPath.includes(2));
  // The PUT queued a heal of drive 2, which writes (and removes) temp directories of its own meanwhile.
  let left = await tempEntries();
  for (let i = 0; i < 100 && left.length > 0; i++) left = await sleep(50).then(tempEntries);
  assert.deepEqual(left, []);
});

/** A 4 MiB PUT whose first 64 KiB were sent, once its six writers are open (or after 2 s). */
async function startedPut(drives: Awaited<ReturnType<typeof sixDrives>>) {
  const body = new PassThrough();
  const put = drives.st.putObject('b', 'k', body, { size: 4 * MiB, metadata: meta });
  put.catch(() => undefined);
  body.write(randomBytes(64 * 1024));
  for (let i = 0; i < 200 && drives.calls.createShardWriter < 6; i++) await sleep(10);
  return { body, put };
}

test('a body declared larger than the inline limit has its writers opened before it has all arrived', async (t) => {
  const drives = await sixDrives(t);
  const { body, put } = await startedPut(drives);
  // Well under one block (1 MiB): before, writers opened only once the first block was full.
  assert.equal(drives.calls.createShardWriter, 6);
  body.end(randomBytes(4 * MiB - 64 * 1024));
  const info = await put;
  assert.equal(info.size, 4 * MiB);
  assert.deepEqual(await drives.tempEntries(), []);
});

test('a body that fails after its writers opened leaves no temp files', async (t) => {
  const drives = await sixDrives(t);
  const { body, put } = await startedPut(drives);
  body.destroy(new Error('client went away'));
  await assert.rejects(put, /client went away/);
  assert.deepEqual(await drives.tempEntries(), []);
  await assert.rejects(drives.st.getObjectInfo('b', 'k'));
});
