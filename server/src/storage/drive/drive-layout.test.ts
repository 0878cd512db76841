import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DriveLayout } from './drive-layout.js';
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
