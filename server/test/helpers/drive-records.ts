/**
 * A key's metadata record on one drive, whichever layout the drive has: a metadata file per key (`xl.meta`, the
 * metadata-file layout) or the drive's key index (`.svc.sys/index`, storage/drive/indexed-objects.ts). Tests that damage,
 * remove or inspect records use these instead of paths, so that they check the same behaviour on both layouts.
 * Changes made here go behind the drive's back, as a damaged or lost record would: no change-log entry, so caches
 * keep what they read before (tests call forgetCachedMeta where it matters).
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexedObjects, keyIndexWanted, setKeyIndexForNewDrives } from '../../src/storage/drive/indexed-objects.js';
import { DriveIndex } from '../../src/storage/drive/key-index/drive-index.js';

/** The object's directory on a drive (key segments are stored as `+<segment>`, see storage/drive/object-path.ts). */
export function objectDir(drive: string, bucket: string, key: string): string {
  return join(drive, bucket, ...key.split('/').map((s) => `+${s}`));
}

const SYS = '.svc.sys';
const META_FILE = 'xl.meta';

/** True when the drive at `root` keeps its records in a key index. */
export function usesKeyIndex(root: string): boolean {
  return existsSync(join(root, SYS, 'index'));
}

/** The key index of a drive of a server running in this process (opened by its storage, shared through its worker). */
async function indexOf(root: string): Promise<IndexedObjects> {
  const ix = await IndexedObjects.open(join(root, SYS));
  if (ix === null) throw new Error(`${root} has no key index`);
  return ix;
}

/** The record of `key` on the drive at `root` (a drive of this process); null when it has none. */
export async function readRecord(root: string, bucket: string, key: string): Promise<Buffer | null> {
  if (usesKeyIndex(root)) return (await indexOf(root)).get(bucket, key);
  return readFile(join(objectDir(root, bucket, key), META_FILE)).catch(() => null);
}

/** The record of `key` on the drive at `root`; fails when it has none. */
export async function mustReadRecord(root: string, bucket: string, key: string): Promise<Buffer> {
  const rec = await readRecord(root, bucket, key);
  if (rec === null) throw new Error(`no record of ${bucket}/${key} on ${root}`);
  return rec;
}

/** Replaces the record of `key` on the drive at `root` with `bytes` (damaged ones too: the index stores them as given). */
export async function writeRecord(root: string, bucket: string, key: string, bytes: Uint8Array): Promise<void> {
  if (usesKeyIndex(root)) await (await indexOf(root)).put(bucket, key, bytes);
  else await writeFile(join(objectDir(root, bucket, key), META_FILE), bytes);
}

/** Removes the record of `key` from the drive at `root` (its data directories stay, as after a lost metadata file). */
export async function removeRecord(root: string, bucket: string, key: string): Promise<void> {
  if (usesKeyIndex(root)) await (await indexOf(root)).delete(bucket, key);
  else await rm(join(objectDir(root, bucket, key), META_FILE), { force: true });
}

/**
 * Removes a drive's whole root (or a part of it, such as `.svc.sys`) while its storage is open, as a failed or wiped
 * disk. On the key-index layout the drive's index worker may be writing a flushed run into `.svc.sys/index` at that
 * moment, which makes one pass of rmdir fail with ENOTEMPTY: retried, as `rm` does with `maxRetries`.
 */
export async function removeDriveDir(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true, maxRetries: 5 });
}

/** True when the drive at `root` (a drive of this process) holds a record of `key`. */
export async function hasRecord(root: string, bucket: string, key: string): Promise<boolean> {
  return (await readRecord(root, bucket, key)) !== null;
}

/**
 * The record of `key` as the drive at `root` holds it on disk, read from outside the process that owns it (a server in
 * a child process): what a restart would find. A key index is copied (manifest first, then what it names, then the
 * value log) and opened on the copy, which replays the log as a restart would; a run a merge removed meanwhile makes
 * it copy again. Null when the drive has no record of the key.
 */
export function readRecordOnDisk(root: string, bucket: string, key: string): Buffer | null {
  return readRecordsOnDisk(root, bucket, [key])[0]!;
}

/** {@link readRecordOnDisk} for several keys of one bucket, with one copy of the drive's index. */
export function readRecordsOnDisk(root: string, bucket: string, keys: readonly string[]): (Buffer | null)[] {
  if (!usesKeyIndex(root)) {
    return keys.map((k) => {
      try { return readFileSync(join(objectDir(root, bucket, k), META_FILE)); } catch { return null; }
    });
  }
  const copy = copyIndex(join(root, SYS, 'index'));
  try {
    const ix = new DriveIndex(copy);
    try { return keys.map((k) => ix.get(bucket, k)); } finally { ix.close(); }
  } finally {
    rmSync(copy, { recursive: true, force: true, maxRetries: 5 });
  }
}

function copyIndex(dir: string): string {
  for (let attempt = 0; ; attempt++) {
    const copy = mkdtempSync(join(tmpdir(), 'svc-index-copy-'));
    try {
      // The manifest first: the runs it names are then all there unless a merge removed one since (copied again).
      const names = readdirSync(dir).sort((a, b) => Number(b === 'MANIFEST') - Number(a === 'MANIFEST'));
      for (const n of names) cpSync(join(dir, n), join(copy, n), { recursive: true });
      return copy;
    } catch (err) {
      rmSync(copy, { recursive: true, force: true, maxRetries: 5 });
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 20) throw err;
    }
  }
}

/**
 * Drives formatted from now until `scope`'s end get the metadata-file layout, whatever the suite's switch says: for
 * tests of that layout's own machinery (its commit log, its files). `scope` is a test context or node:test's `after`.
 */
export function pinMetadataFileLayout(scope: { after(fn: () => void): void } | ((fn: () => void) => void)): void {
  const before = keyIndexWanted();
  setKeyIndexForNewDrives(false);
  const restore = (): void => setKeyIndexForNewDrives(before);
  if (typeof scope === 'function') scope(restore);
  else scope.after(restore);
}
