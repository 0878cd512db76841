// Which server test files the second pass of the suite (scripts/test.sh, drives with a metadata file per key) runs:
// those whose tests can meet a drive's records. A file qualifies when its relative imports reach the drive
// (storage/drive/local-drive.ts, in this process) or the helper that spawns a server (test/helpers/svc-process.ts);
// unit tests of parsers, signatures, policies and formats never do, and run once. Of the files that reach a drive,
// these run once too: what they test the layout cannot change, and the server paths they pass through are the ones
// the S3, admin and end-to-end tests exercise on both layouts:
// - server/test/fuzz/: the XML, header, policy and SigV4 parsers fed random input (no request reaches a bucket);
// - server/test/rc/: the rc command (aliases, output, progress bars, transfers), a client of the S3 and admin APIs;
// - server/test/console/: the web console's pages in a browser, likewise a client of those APIs;
// - server/test/cluster/contention.test.ts and pools.test.ts: the distributed lock under contention and placement over
//   pools, which the layout does not change; the drive calls they make are those the engine and S3 tests run on both
//   layouts, and the multi-node paths on the metadata-file layout stay covered by cluster.test.ts and the fault run.
//   They took ~170 s of the second pass, which kept the whole CI run past its 30 minutes (33 min on 2026-11-28).
// - server/test/bench/bench-run.test.ts: `npm run bench` run end to end (~60 s), a client of the S3 API whose servers
//   use the default layout; the layout is in its first JSON line, and it passes no request the S3 tests do not.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const DRIVE = [/server\/src\/storage\/drive\/local-drive\.ts$/, /server\/test\/helpers\/svc-process\.ts$/];
const CLIENT_SIDE = ['server/test/fuzz/', 'server/test/rc/', 'server/test/console/'];
const LAYOUT_FREE = ['server/test/cluster/contention.test.ts', 'server/test/cluster/pools.test.ts', 'server/test/bench/bench-run.test.ts'];

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
  return files.filter((f) => !CLIENT_SIDE.some((c) => relative('.', f).startsWith(c)) && !LAYOUT_FREE.includes(relative('.', f))
    && reachesDrive(f));
}
