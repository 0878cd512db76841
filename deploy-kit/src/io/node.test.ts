import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { colorAllowed, defaultKitPaths, findPackageRoot } from './node.js';

test('colours only on a TTY without NO_COLOR (any non-empty value disables them) and not on a dumb terminal', () => {
  assert.equal(colorAllowed(true, {}), true);
  assert.equal(colorAllowed(false, {}), false);
  assert.equal(colorAllowed(true, { NO_COLOR: '1' }), false);
  assert.equal(colorAllowed(true, { NO_COLOR: '' }), true);
  assert.equal(colorAllowed(true, { TERM: 'dumb' }), false);
});

test('templates are found beside the package; the schemas dir can be overridden by env', () => {
  const root = findPackageRoot();
  assert.ok(existsSync(join(root, 'package.json')));
  const paths = defaultKitPaths({});
  assert.equal(paths.templatesDir, join(root, '..', 'templates'));
  assert.match(paths.traefikSchemasDir, /shared\/schemas\/traefik$/);
  assert.equal(defaultKitPaths({ DEPLOY_KIT_TRAEFIK_SCHEMAS: '/x/y' }).traefikSchemasDir, '/x/y');
});
