/**
 * The node options the server runs with (server/bin/svc.js's first line says why) are the same wherever it is
 * started: the `svc` command itself (its `env -S` line), the image's ENTRYPOINT and scripts/start.sh.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../helpers/run.js';
import { BUILT_SVC, SVC_NODE_OPTIONS } from '../helpers/svc-process.js';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

test('svc.js names the growing factor of the old generation on its first line', () => {
  assert.match(readFileSync(BUILT_SVC, 'utf8'), /^#!\/usr\/bin\/env -S node /);
  assert.ok(SVC_NODE_OPTIONS.some((o) => /^--heap-growing-percent=\d+$/.test(o)), SVC_NODE_OPTIONS.join(' '));
});

test('the image and scripts/start.sh start node with the same options', () => {
  const entry = /^ENTRYPOINT (\[.*\])$/m.exec(readFileSync(resolve(ROOT, 'Dockerfile'), 'utf8'));
  assert.ok(entry, 'Dockerfile has an exec-form ENTRYPOINT');
  assert.deepEqual(JSON.parse(entry[1]!), ['node', ...SVC_NODE_OPTIONS, '/app/server/bin/svc.js']);
  assert.match(readFileSync(resolve(ROOT, 'scripts/start.sh'), 'utf8'), new RegExp(`^exec node ${SVC_NODE_OPTIONS.join(' ')} server/bin/svc\\.js `, 'm'));
});

test('svc.js runs as a command: node accepts the options of its first line', async () => {
  const r = await run(BUILT_SVC, ['--version'], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^\d+\.\d+\.\d+/);
});
