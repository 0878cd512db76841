import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { DK_ERRORS, DeployKitError, EXIT_CODES } from './errors.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

test('every DK_ERR code is documented in the README with its exit code, and nothing else is', () => {
  const documented = new Map([...readme.matchAll(/^\| `(DK_ERR_[A-Z_]+)` \| (\d) \|/gm)].map((m) => [m[1], Number(m[2])]));
  assert.deepEqual([...documented.keys()].sort(), Object.keys(DK_ERRORS).sort());
  for (const [code, row] of Object.entries(DK_ERRORS)) assert.equal(documented.get(code), row.exitCode, code);
});

test('a DeployKitError takes its exit code from the table and keeps hint and details', () => {
  const e = new DeployKitError('DK_ERR_SPEC_INVALID', 'bad', { hint: 'fix it', details: ['a', 'b'] });
  assert.equal(e.exitCode, EXIT_CODES.usage);
  assert.equal(e.hint, 'fix it');
  assert.deepEqual(e.details, ['a', 'b']);
  assert.equal(new DeployKitError('DK_ERR_CANCELLED', 'x').exitCode, 3);
  assert.equal(new DeployKitError('DK_ERR_EXTERNAL_TOOL', 'x').exitCode, 4);
});
