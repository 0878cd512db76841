/**
 * A key's metadata record on one drive of a server running in this process, whichever way the drive holds it: in its
 * record store (small objects' records, storage/drive/record-store.ts) or as a metadata file (`xl.meta`, objects with
 * data directories). Changes made here go behind the drive's back, as a damaged or lost record would: no change log
 * entry, no log record, so caches keep what they read before (tests call forgetCachedMeta where it matters).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { recordStoreOf } from '../../src/storage/drive/commit-log.js';
import { recordsToReplay } from '../../src/storage/drive/commit-log-record.js';
import { MANIFEST, type Manifest } from '../../src/storage/drive/record-manifest.js';
import { decodeRun } from '../../src/storage/drive/record-run.js';
import { recordId } from '../../src/storage/drive/record-store.js';

/** The object's directory on a drive (key segments are stored as `+<segment>`, see storage/drive/object-path.ts). */
export function objectDir(drive: string, bucket: string, key: string): string {
  return join(drive, bucket, ...key.split('/').map((s) => `+${s}`));
}

/** The record of `key` on the drive at `root` (the store's first, as the drive reads it); null when it has none. */
export async function readRecord(root: string, bucket: string, key: string): Promise<Buffer | null> {
  const held = await recordStoreOf(root)?.get(recordId(bucket, key));
  if (held !== null && held !== undefined) return held;
  return readFile(join(objectDir(root, bucket, key), 'xl.meta')).catch(() => null);
}

/** The record of `key` on the drive at `root`; fails when it has none. */
export async function mustReadRecord(root: string, bucket: string, key: string): Promise<Buffer> {
  const rec = await readRecord(root, bucket, key);
  if (rec === null) throw new Error(`no record of ${bucket}/${key} on ${root}`);
  return rec;
}

/** Replaces the record of `key` where the drive holds it (its store when it holds it there, else its metadata file). */
export async function writeRecord(root: string, bucket: string, key: string, bytes: Uint8Array): Promise<void> {
  const store = recordStoreOf(root);
  const id = recordId(bucket, key);
  if (store !== undefined && (await store.get(id)) !== null) store.put(id, bytes);
  else await writeFile(join(objectDir(root, bucket, key), 'xl.meta'), bytes);
}

/** Removes the record of `key` from the drive at `root`, wherever it is. */
export async function removeRecord(root: string, bucket: string, key: string): Promise<void> {
  recordStoreOf(root)?.del(recordId(bucket, key));
  await rm(join(objectDir(root, bucket, key), 'xl.meta'), { force: true });
}

/** True when the drive at `root` holds a record of `key`. */
export async function hasRecord(root: string, bucket: string, key: string): Promise<boolean> {
  return (await readRecord(root, bucket, key)) !== null;
}

/**
 * The record of `key` as the drive at `root` holds it on disk, read from outside its process (a server in a child
 * process or container): what a restart would find, the drive's commit logs replayed over its store's runs
 * (storage/drive/commit-log.ts, record-store.ts), else its metadata file. Null when it has none, or none it can read
 * (a damaged run block that may hold it). Synchronous, for checks in loops; a run a merge removes while it is read is
 * read again.
 */
export function readRecordOnDisk(root: string, bucket: string, key: string): Buffer | null {
  const id = recordId(bucket, key);
  for (let attempt = 0; ; attempt++) {
    try {
      const logDir = join(root, '.svc.sys', 'log');
      const logs = existsSync(logDir) ? readdirSync(logDir).filter((n) => n.endsWith('.log')).sort().map((n) => readFileSync(join(logDir, n))) : [];
      const logged = recordsToReplay(logs).find((r) => r.volume === bucket && r.key === key);
      if (logged !== undefined) return logged.meta === null ? readMetaFile(root, bucket, key) : Buffer.from(logged.meta);
      const dir = join(root, '.svc.sys', 'records');
      const manifest = existsSync(join(dir, MANIFEST)) ? JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as Manifest : null;
      const dropGen = manifest?.drops.find((d) => d.volume === bucket)?.gen ?? -1;
      for (const run of [...(manifest?.runs ?? [])].reverse()) {
        if (run.gen <= dropGen) break;
        const damaged: number[] = [];
        const entry = decodeRun(readFileSync(join(dir, run.file)), run.file, damaged).find((e) => e.id === id);
        if (entry !== undefined) return entry.value ?? readMetaFile(root, bucket, key);
        // A damaged block may hold it: the drive has no readable record of the key (it answers "corrupt").
        if (damaged.length > 0) return null;
      }
      return readMetaFile(root, bucket, key);
    } catch (err) {
      if (attempt >= 5) throw err;
    }
  }
}

function readMetaFile(root: string, bucket: string, key: string): Buffer | null {
  try {
    return readFileSync(join(objectDir(root, bucket, key), 'xl.meta'));
  } catch {
    return null;
  }
}
