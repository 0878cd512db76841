import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DeployKitError } from '../../errors.js';
import { createNodeFs } from '../../io/index.js';
import { createFsWebroot } from './webroot.js';

test('challenge files land as <webroot>/<token>, readable by the responder, and are removed', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'dk-webroot-'));
  try {
    const root = join(dir, 'acme', 'challenges');
    const w = createFsWebroot(createNodeFs(), root);
    await w.put('abc_DEF-123', 'abc_DEF-123.thumbprint');
    assert.equal(await readFile(join(root, 'abc_DEF-123'), 'utf8'), 'abc_DEF-123.thumbprint');
    assert.equal((await stat(join(root, 'abc_DEF-123'))).mode & 0o777, 0o644);
    await w.remove('abc_DEF-123');
    assert.deepEqual(await readdir(root), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('tokens that are not base64url never become paths', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'dk-webroot-'));
  try {
    const w = createFsWebroot(createNodeFs(), join(dir, 'challenges'));
    for (const token of ['../escape', 'a/b', '', '.hidden', 'x'.repeat(300)]) {
      await assert.rejects(w.put(token, 'v'), (e: unknown) => e instanceof DeployKitError && e.code === 'DK_ERR_EXTERNAL_TOOL', token);
      await assert.rejects(w.remove(token), DeployKitError);
    }
    assert.deepEqual(await readdir(dir), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
