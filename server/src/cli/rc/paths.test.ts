import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RcError } from './errors.js';
import { parsePath, parseRemote, splitRemote } from './paths.js';

const config = { version: 1 as const, aliases: { x: { url: 'http://h:1', accessKey: 'k', secretKey: 's', region: 'us-east-1' } } };

test('alias/bucket/key splits at the first two slashes', () => {
  assert.deepEqual(splitRemote('x'), { aliasName: 'x', bucket: '', key: '' });
  assert.deepEqual(splitRemote('x/b/'), { aliasName: 'x', bucket: 'b', key: '' });
  assert.deepEqual(splitRemote('x/b/d/e f/'), { aliasName: 'x', bucket: 'b', key: 'd/e f/' });
});

test('a path is remote only when its first segment is a configured alias and it is not explicitly local', () => {
  assert.equal(parsePath(config, 'x/b/k').kind, 'remote');
  assert.equal(parsePath(config, './x/b/k').kind, 'local');
  assert.equal(parsePath(config, '/x/b').kind, 'local');
  assert.equal(parsePath(config, 'y/b/k').kind, 'local');
  assert.throws(() => parseRemote(config, 'y/b'), RcError);
});
