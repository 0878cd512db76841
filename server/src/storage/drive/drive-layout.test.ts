import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DriveLayout } from './drive-layout.js';
import { VolumeNotFoundError } from './drive-errors.js';
import { encodeKey } from './object-path.js';

test('volumeDir and objectDir build what join builds, for roots as users write them', () => {
  for (const root of ['/data/d1', '/data/d1/', '/data//d1/./', 'data/d1', './d1/', '/', '.', '../up/d1']) {
    const l = new DriveLayout(root);
    assert.equal(l.volumeDir('bkt'), join(root, 'bkt'), root);
    assert.equal(l.volumeDir('a.b-c_1'), join(root, 'a.b-c_1'), root);
    assert.equal(l.objectDir('bkt', 'x/y/z').dir, join(root, 'bkt', ...encodeKey('x/y/z').map((s) => s.name)), root);
  }
  assert.throws(() => new DriveLayout('/d').volumeDir('..'), /invalid volume name/);
});

test('volumeHere: checks of one turn are shared, and forgetVolumeChecks makes the next call look again', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'svc-layout-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  await mkdir(join(root, '.svc.sys'), { recursive: true });
  await writeFile(join(root, '.svc.sys', 'format.json'), '{}');
  await mkdir(join(root, 'b'));
  const l = new DriveLayout(root);
  // Twenty calls of one turn: one answer for all.
  await Promise.all(Array.from({ length: 20 }, () => l.volumeHere('b')));
  // A bucket removed here in the same turn as a check in flight: once the checks are forgotten, the next call sees it.
  // (Its own answer may go either way: its stat can run before or after the removal.)
  const before = l.volumeHere('b').catch(() => undefined);
  rmSync(join(root, 'b'), { recursive: true });
  l.forgetVolumeChecks();
  await assert.rejects(l.volumeHere('b'), VolumeNotFoundError);
  await before;
  // And a later turn looks again by itself.
  await mkdir(join(root, 'b'));
  await new Promise((r) => setImmediate(r));
  await l.volumeHere('b');
});
