import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './fixtures.js';

test('the rendering docs warn that Traefik answers 308 for non-GET redirects, and the template says so too', () => {
  const doc = readFileSync(join(REPO_ROOT, 'deploy-kit', 'docs', 'rendering.md'), 'utf8');
  assert.match(doc, /301 for GET\/HEAD\s+and 308 for other methods/);
  assert.match(readFileSync(join(REPO_ROOT, 'templates', 'traefik', 'dynamic.yml.hbs'), 'utf8'), /308 for other methods/);
  assert.match(readFileSync(join(REPO_ROOT, 'examples', 'cluster-traefik-acme', 'README.md'), 'utf8'), /308/);
});
