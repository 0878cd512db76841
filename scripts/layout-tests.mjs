// Which server test files the second pass of the suite (scripts/test.sh, drives with a metadata file per key) runs:
// those whose tests can meet a drive's records. A file qualifies when its relative imports reach the drive
// (storage/drive/local-drive.ts, in this process) or the helper that spawns a server (test/helpers/svc-process.ts);
// unit tests of parsers, signatures, policies and formats never do, and run once. Of the files that reach a drive,
// these test only what is decided before storage, so the layout cannot change their outcome:
// - server/test/fuzz/: the XML, header, policy and SigV4 parsers fed random input (no request reaches a bucket);
// - rc alias (validation of an alias by one signed call) and rc progress (the bar drawn on a terminal).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const DRIVE = [/server\/src\/storage\/drive\/local-drive\.ts$/, /server\/test\/helpers\/svc-process\.ts$/];
const BEFORE_STORAGE = ['server/test/fuzz/', 'server/test/rc/alias.test.ts', 'server/test/rc/progress-tty.test.ts'];

/** The TypeScript files `file` imports by relative path (`./x.js` is `./x.ts`, a folder is its index.ts). */
function imports(file) {
  const out = [];
  for (const m of readFileSync(file, 'utf8').matchAll(/(?:\bfrom|\bimport)\s*\(?\s*'(\.[^']+)'/g)) {
    const p = resolve(dirname(file), m[1]).replace(/\.js$/, '.ts');
    const found = [p, `${p}.ts`, join(p, 'index.ts')].find((c) => c.endsWith('.ts') && existsSync(c));
    if (found !== undefined) out.push(found);
  }
  return out;
}

/** True when `file`'s imports, followed transitively, reach a drive (see the module comment). */
function reachesDrive(file) {
  const seen = new Set();
  const todo = [resolve(file)];
  while (todo.length > 0) {
    const f = todo.pop();
    if (seen.has(f)) continue;
    seen.add(f);
    if (DRIVE.some((d) => d.test(f))) return true;
    todo.push(...imports(f));
  }
  return false;
}

/** The files of `files` (paths relative to the project root) the metadata-file pass runs. */
export function layoutTests(files) {
  return files.filter((f) => !BEFORE_STORAGE.some((b) => relative('.', f).startsWith(b)) && reachesDrive(f));
}
