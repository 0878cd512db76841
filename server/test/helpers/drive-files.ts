/** Finding and damaging files on a test server's drives (fault injection from outside the process). */
import { readdirSync, statSync } from 'node:fs';
import { decodeObjectMeta } from '../../src/storage/format/index.js';
import { join, relative, sep } from 'node:path';
import { objectDir, readRecordOnDisk } from './drive-records.js';

export { objectDir };

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

/** The shard data files (`part.N`) of an object on one drive (both layouts keep data directories under the key's directory). */
export function shardFiles(drive: string, bucket: string, key: string): string[] {
  return listFiles(objectDir(drive, bucket, key)).filter((f) => /\/part\.\d+$/.test(f));
}


/**
 * The key whose directory is `dir` (`<drive>/<bucket>/+<seg>/+<seg>...`), or undefined when it is not one (a hashed
 * `#` segment, whose text is in a `.name` file, is not read back here).
 */
export function keyOfDir(drive: string, bucket: string, dir: string): string | undefined {
  const segs = relative(join(drive, bucket), dir).split(sep);
  if (segs.length === 0 || !segs.every((s) => s.startsWith('+'))) return undefined;
  return segs.map((s) => s.slice(1)).join('/');
}

/**
 * Which erasure shard (1-based; 1..K are data shards) a drive holds for an object, read from its metadata record
 * (either layout: drive-records.ts readRecordOnDisk).
 */
export function shardIndexOn(drive: string, bucket: string, key: string): number {
  const rec = readRecordOnDisk(drive, bucket, key);
  if (rec === null) throw new Error(`no record of ${bucket}/${key} on ${drive}`);
  return decodeObjectMeta(rec).erasure.index;
}
