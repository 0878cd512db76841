import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES } from './codes.js';

const SRC = join(import.meta.dirname, '..');
const DOC = join(import.meta.dirname, '..', '..', '..', 'docs', 'errors.md');

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

test('every ServerError code used in server/src is registered in common/codes.ts', () => {
  const used = new Set<string>();
  for (const f of sources(SRC)) {
    for (const m of readFileSync(f, 'utf8').matchAll(/(?:super|new ServerError)\(\s*'(ERR_[A-Z0-9_]+)'/g)) used.add(m[1] ?? '');
  }
  const missing = [...used].filter((c) => !(c in ERROR_CODES));
  assert.deepEqual(missing, [], 'add these to ERROR_CODES in server/src/common/codes.ts and to docs/errors.md');
  assert.ok(used.size >= 20, 'the scan found the codes');
});

test('docs/errors.md documents exactly the registered codes', () => {
  const documented = new Set([...readFileSync(DOC, 'utf8').matchAll(/^\| `(ERR_[A-Z0-9_]+)` \|/gm)].map((m) => m[1]));
  assert.deepEqual([...documented].sort(), Object.keys(ERROR_CODES).sort());
});
