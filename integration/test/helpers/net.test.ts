/**
 * freePort (net.ts): ports come from below the ephemeral range, are bindable on 127.0.0.1, and one run never hands
 * out a port twice, even across the parallel processes of its test files (the reservation is a file).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './net.js';

test('free ports are outside the ephemeral range, distinct, bindable and reserved for the run', async () => {
  const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()));
  assert.equal(new Set(ports).size, 50);
  for (const p of ports) assert.ok(p >= 20_000 && p < 32_000, `port ${p} below 32768`);
  const reserved = new Set(readdirSync(join(tmpdir(), `svc-test-ports-${process.env.SVC_TEST_RUN_ID ?? 'local'}`)).map(Number));
  for (const p of ports) assert.ok(reserved.has(p), `port ${p} has its reservation file`);
  const s = createServer();
  await new Promise<void>((r) => s.listen(ports[0], '127.0.0.1', r));
  s.close();
});
