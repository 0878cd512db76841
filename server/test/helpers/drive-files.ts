/** Finding and damaging files on a test server's drives (fault injection from outside the process). */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { decodeObjectMeta } from '../../src/storage/format/index.js';
import { SYS_DIR, inlineIndexFor } from '../../src/storage/drive/index.js';
import { join } from 'node:path';

/** Every regular file under `dir`, recursively. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let names: string[];
    try { names = readdirSync(d); } catch { return; }
    for (const n of names) {
      const p = join(d, n);
      const st = statSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** The shard data files (`part.N`) of an object on one drive. */
export function shardFiles(drive: string, bucket: string, key: string): string[] {
  return listFiles(objectDir(drive, bucket, key)).filter((f) => /\/part\.\d+$/.test(f));
}

/** The object's directory on a drive (key segments are stored as `+<segment>`, see storage/drive/object-path.ts). */
export function objectDir(drive: string, bucket: string, key: string): string {
  return join(drive, bucket, ...key.split('/').map((s) => `+${s}`));
}

/** Which erasure shard (1-based; 1..K are data shards) a drive holds for an object, read from its metadata record. */
export function shardIndexOn(drive: string, bucket: string, key: string): number {
  return decodeObjectMeta(readRecordSync(drive, bucket, key)).erasure.index;
}

/*
 * A key's metadata record on a drive, wherever the drive keeps it: small (inline) objects in the drive's index
 * (storage/drive/inline-index.ts), others in the key's `xl.meta` file. The index's record wins when both exist.
 * Another process (a test server) may have the index open: LMDB allows that.
 */

function metaFile(drive: string, bucket: string, key: string): string {
  return join(objectDir(drive, bucket, key), 'xl.meta');
}

function indexOf(drive: string) {
  return inlineIndexFor(join(drive, SYS_DIR));
}

/** The record, or an ENOENT error when the drive has none. */
export function readRecordSync(drive: string, bucket: string, key: string): Buffer {
  return indexOf(drive).get(bucket, key) ?? readFileSync(metaFile(drive, bucket, key));
}

export function hasRecordSync(drive: string, bucket: string, key: string): boolean {
  return indexOf(drive).get(bucket, key) !== undefined || statSync(metaFile(drive, bucket, key), { throwIfNoEntry: false }) !== undefined;
}

export async function readRecord(drive: string, bucket: string, key: string): Promise<Buffer> {
  return indexOf(drive).get(bucket, key) ?? readFile(metaFile(drive, bucket, key));
}

export async function hasRecord(drive: string, bucket: string, key: string): Promise<boolean> {
  return readRecord(drive, bucket, key).then(() => true, () => false);
}

/** Where the record is in the index (or nowhere), `data` replaces it there; a record in a file is replaced in place. */
export async function writeRecord(drive: string, bucket: string, key: string, data: Uint8Array): Promise<void> {
  const index = indexOf(drive);
  const inFile = statSync(metaFile(drive, bucket, key), { throwIfNoEntry: false }) !== undefined;
  if (index.get(bucket, key) !== undefined || !inFile) {
    await index.put(bucket, key, data);
    return;
  }
  await mkdir(objectDir(drive, bucket, key), { recursive: true });
  await writeFile(metaFile(drive, bucket, key), data);
}

/** Removes the key's record from the drive (both places). */
export async function removeRecord(drive: string, bucket: string, key: string): Promise<void> {
  await indexOf(drive).remove(bucket, key);
  await rm(metaFile(drive, bucket, key), { force: true });
}

/** Removes an object from a drive as a lost directory would: its directory and its record. */
export async function removeObject(drive: string, bucket: string, key: string): Promise<void> {
  await rm(objectDir(drive, bucket, key), { recursive: true, force: true });
  await removeRecord(drive, bucket, key);
}

/** The records a drive's index holds for `bucket`, by key. */
export function indexRecords(drive: string, bucket: string): Map<string, Buffer> {
  return new Map(indexOf(drive).records(bucket));
}
