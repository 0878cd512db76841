/** Finding and damaging files on a test server's drives (fault injection from outside the process). */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { decodeObjectMeta } from '../../src/storage/format/index.js';
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
  return decodeObjectMeta(readFileSync(join(objectDir(drive, bucket, key), 'xl.meta'))).erasure.index;
}
