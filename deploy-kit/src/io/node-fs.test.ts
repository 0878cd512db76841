import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createNodeFs } from './node-fs.js';

const fs = createNodeFs();
const dirs: string[] = [];
after(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

async function tmp(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'dk-fs-'));
  dirs.push(d);
  return d;
}

test('writeAtomic writes with the exact mode and leaves no temp file behind', async () => {
  const d = await tmp();
  await fs.writeAtomic(join(d, 'secret.pem'), 'x', 0o600);
  await fs.writeAtomic(join(d, 'secret.pem'), 'y', 0o600);
  assert.equal((await stat(join(d, 'secret.pem'))).mode & 0o777, 0o600);
  assert.equal(await fs.readText(join(d, 'secret.pem')), 'y');
  assert.deepEqual(await readdir(d), ['secret.pem']);
});

test('writeNew never overwrites', async () => {
  const d = await tmp();
  await writeFile(join(d, '.env'), 'KEEP=1\n');
  assert.equal(await fs.writeNew(join(d, '.env'), 'NEW=1\n', 0o600), false);
  assert.equal(await fs.readText(join(d, '.env')), 'KEEP=1\n');
  assert.equal(await fs.writeNew(join(d, 'other'), 'a', 0o600), true);
  assert.deepEqual(await fs.stat(join(d, 'other')), { kind: 'file', mode: 0o600, size: 1 });
});

test('missing paths are undefined or empty, not exceptions', async () => {
  const d = await tmp();
  assert.equal(await fs.readText(join(d, 'nope')), undefined);
  assert.equal(await fs.stat(join(d, 'nope', 'deeper')), undefined);
  assert.deepEqual(await fs.list(join(d, 'nope')), []);
  await fs.mkdirp(join(d, 'a', 'b'));
  assert.deepEqual(await fs.list(d), ['a']);
});
