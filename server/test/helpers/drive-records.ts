/**
 * A key's metadata record on one drive of a server running in this process, whichever way the drive holds it: in its
 * record store (small objects' records, storage/drive/record-store.ts) or as a metadata file (`xl.meta`, objects with
 * data directories). Changes made here go behind the drive's back, as a damaged or lost record would: no change log
 * entry, no log record, so caches keep what they read before (tests call forgetCachedMeta where it matters).
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { recordStoreOf } from '../../src/storage/drive/commit-log.js';
import { recordId } from '../../src/storage/drive/record-store.js';
import { objectDir } from './drive-files.js';

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
