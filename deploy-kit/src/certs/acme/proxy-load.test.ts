import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createNodeDeps, createNodeFs } from '../../io/index.js';
import { hotSwapScript, pemWriter } from './proxy-load.js';

const exec = createNodeDeps(process.env, process.cwd()).exec;

test('single-file mount: the new PEM lands in the same inode (what the container sees), mode 600, staged copy removed', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'dk-pemw-'));
  try {
    const pem = join(dir, 'certs', 'site.pem');
    await pemWriter(createNodeFs(), exec, 'directory')(pem, 'old\n');
    const before = await stat(pem);
    await pemWriter(createNodeFs(), exec, 'file')(pem, 'new\n');
    const after = await stat(pem);
    assert.equal(after.ino, before.ino);
    assert.equal(await readFile(pem, 'utf8'), 'new\n');
    assert.equal(after.mode & 0o777, 0o600);
    assert.deepEqual(await readdir(join(dir, 'certs')), ['site.pem']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('directory mount: an atomic rename (a new inode), mode 600 even over a looser file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'dk-pemw-'));
  try {
    const pem = join(dir, 'site.pem');
    await writeFile(pem, 'old\n', { mode: 0o644 });
    const before = await stat(pem);
    await pemWriter(createNodeFs(), exec, 'directory')(pem, 'new\n');
    const after = await stat(pem);
    assert.notEqual(after.ino, before.ino);
    assert.equal(after.mode & 0o777, 0o600);
    assert.equal(await readFile(pem, 'utf8'), 'new\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the runtime API script reads the PEM inside the container and commits the transaction', () => {
  const s = hotSwapScript('/usr/local/etc/haproxy/certs/site.pem');
  assert.match(s, /^P='\/usr\/local\/etc\/haproxy\/certs\/site\.pem';/);
  assert.ok(s.indexOf('set ssl cert') < s.indexOf('cat "$P"') && s.indexOf('cat "$P"') < s.indexOf('commit ssl cert'));
  assert.match(s, /\/dev\/tcp\/127\.0\.0\.1\/9999/);
});
