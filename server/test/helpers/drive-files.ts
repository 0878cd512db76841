/** Finding and damaging files on a test server's drives (fault injection from outside the process). */
import { readdirSync, statSync } from 'node:fs';
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
  const objectDir = join(drive, bucket, ...key.split('/').map((s) => `+${s}`));
  return listFiles(objectDir).filter((f) => /\/part\.\d+$/.test(f));
}
