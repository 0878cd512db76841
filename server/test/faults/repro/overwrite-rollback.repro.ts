/**
 * Reproduction of an engine bug the fault run found (not part of the suite: it fails until the bug is fixed;
 * run it with `node --import tsx --test server/test/faults/repro/overwrite-rollback.repro.ts`).
 *
 * An overwrite that commits on fewer drives than its write quorum is rolled back (storage/engine/versions.ts
 * writeRecord → rollback): the drives that took it get the previous record back. But committing the new record
 * already removed the previous version's data directory on those drives (LocalDrive#commit drops the data dirs
 * the new record does not keep), so the restored record points at shards that are gone. The previous,
 * acknowledged version is then unreadable: a failed PUT destroys the object it was meant to replace.
 * Here: 6 drives, EC:2 (K = 4, write quorum 4); the overwrite's commit fails on 3 drives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { FaultyDiskError, LocalDrive, openStorage, type Drive } from '../../../src/storage/index.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

test('a failed overwrite leaves the previous version readable', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'svc-repro-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const paths = Array.from({ length: 6 }, (_, i) => join(root, `d${i + 1}`));
  for (const p of paths) await mkdir(p);
  const failing = new Set<number>();
  const drives: Drive[] = paths.map((p, i) => {
    const d = new LocalDrive(p);
    return new Proxy(d, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (prop === 'renameData') {
          return async (...args: unknown[]) => {
            if (failing.has(i)) throw new FaultyDiskError(p, 'injected commit failure');
            return (v as (...a: unknown[]) => Promise<void>).apply(target, args);
          };
        }
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
  });
  const st = await openStorage({ sets: [paths], drives: [drives], parity: 2, driveCheckIntervalMs: 3_600_000 });
  t.after(() => st.close());
  await st.makeBucket('b');
  const a = randomBytes(1024 * 1024);
  await st.putObject('b', 'k', Readable.from([a]), { size: a.length, metadata: { system: {}, user: {} } });

  for (const i of [3, 4, 5]) failing.add(i);
  const b = randomBytes(1024 * 1024);
  await assert.rejects(st.putObject('b', 'k', Readable.from([b]), { size: b.length, metadata: { system: {}, user: {} } }), /quorum/);
  failing.clear();

  const chunks: Buffer[] = [];
  for await (const c of (await st.openObject('b', 'k')).read()) chunks.push(c as Buffer);
  assert.equal(sha(Buffer.concat(chunks)), sha(a), 'the acknowledged version survives a failed overwrite');
});
