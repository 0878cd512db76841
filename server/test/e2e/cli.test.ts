/** The `svc` command line: invalid settings are refused with a message naming the variable (exit 2), --help works. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../helpers/run.js';
import { svcNodeArgs } from '../helpers/svc-process.js';

const svc = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, svcNodeArgs(), { env: { ...process.env, ...env, SVC_TEST_ARGS: JSON.stringify(args) }, timeoutMs: 60_000 });

test('invalid environment values exit 2 with one line per problem', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const r = await svc(['server', join(dir, 'd{1...4}')], { SVC_ADDRESS: '9000', SVC_CONSOLE_ENABLE: 'maybe', SVC_STORAGE_CLASS_STANDARD: 'EC:3' });
  assert.equal(r.code, 2);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 3, r.stderr);
  assert.match(r.stderr, /svc: SVC_ADDRESS="9000" is not a valid listen address \(expected :<port>/);
  assert.match(r.stderr, /svc: SVC_CONSOLE_ENABLE="maybe" is not a boolean/);
  assert.match(r.stderr, /svc: SVC_STORAGE_CLASS_STANDARD=EC:3 is too high/);
});

test('missing drives is a usage error; --help documents flags and environment', async () => {
  const r = await svc(['server']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /missing required argument/);
  const help = await svc(['server', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--address <addr>/);
  assert.match(help.stdout, /SVC_HEALTH_ENDPOINT_ENABLE=false/);
});

test('a flag with a bad address exits 2 naming the flag', async () => {
  const r = await svc(['server', '--address', 'localhost', '/tmp/x']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--address="localhost" is not a valid listen address/);
});
