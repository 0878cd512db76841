/**
 * deploy-kit with Docker Compose v2 (issue 7: "`docker compose` (v2) or `docker-compose` (v1), whichever exists").
 * The other scenarios run on this machine's compose v1 (Debian bookworm); this one gives deploy-kit a DOCKER_CONFIG
 * holding the v2 CLI plugin (scripts/compose-v2.sh, from Debian trixie), so `docker compose` exists and must be
 * chosen: `up` starts the stack and waits for readiness through the proxy over TLS, containers carry v2's
 * `<project>-<service>-1` names, `status` reads the proxy, `down` removes everything.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { docker, requireDocker, startStack, wire } from './helpers/index.js';
import type { Stack } from './helpers/index.js';

let stack: Stack;
const v2Config = process.env.SVC_COMPOSE_V2_CONFIG;

before(async () => {
  requireDocker();
  // Fails (never skips) without the plugin: `npm test` provides it through scripts/compose-v2.sh.
  assert.ok(v2Config, 'SVC_COMPOSE_V2_CONFIG is not set: run scripts/compose-v2.sh (npm test does)');
  stack = await startStack({ name: 'composev2', env: { DOCKER_CONFIG: v2Config } });
});

after(async () => {
  await stack?.destroy();
});

test('up with compose v2: v2 container names, ready through the proxy over TLS', async () => {
  const names = docker(['ps', '--filter', `label=com.docker.compose.project=${stack.project}`, '--format', '{{.Names}}']).split('\n').filter(Boolean);
  assert.ok(names.includes(`${stack.project}-proxy-1`), `v2 names: ${names.join(', ')}`);
  assert.ok(!names.some((n) => n.includes('_')), `no v1-style names: ${names.join(', ')}`);
  const ready = await wire({ port: stack.httpsPort, host: stack.hosts.s3, path: '/health/ready', ca: stack.ca }, true);
  assert.equal(ready.status, 200);
  const status = await stack.kit(['status', '--json']);
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, /"UP"/);
});

test('down with compose v2 removes the containers', async () => {
  const down = await stack.kit(['down']);
  assert.equal(down.code, 0, down.stderr);
  const left = docker(['ps', '-a', '--filter', `label=com.docker.compose.project=${stack.project}`, '--format', '{{.Names}}']).trim();
  assert.equal(left, '');
});
