/**
 * The node options the server runs with (server/bin/svc.js's first line says why) are the same wherever it is
 * started: the `svc` command itself (its `env -S` line), the image's ENTRYPOINT and scripts/start.sh.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../helpers/run.js';
import { BUILT_SVC, SVC_NODE_OPTIONS, startSvc } from '../helpers/svc-process.js';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

test('svc.js names the growing factor of the old generation and when marking starts on its first line', () => {
  assert.match(readFileSync(BUILT_SVC, 'utf8'), /^#!\/usr\/bin\/env -S node /);
  assert.ok(SVC_NODE_OPTIONS.some((o) => /^--heap-growing-percent=\d+$/.test(o)), SVC_NODE_OPTIONS.join(' '));
  assert.ok(SVC_NODE_OPTIONS.includes('--incremental-marking-hard-trigger=100'), SVC_NODE_OPTIONS.join(' '));
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

/** Threads of the process `pid` (Linux). */
function threads(pid: number): number {
  return readdirSync(`/proc/${pid}/task`).length;
}

test('svc started as users start it runs 64 libuv threads for its drive I/O, or as many as UV_THREADPOOL_SIZE says', async (t) => {
  // Not the suite's 16 (svc-process.ts): the variable unset, as in a user's shell; then set to 4.
  const own = await startSvc({ drives: 1, built: true, env: { UV_THREADPOOL_SIZE: undefined } });
  t.after(() => own.cleanup());
  const four = await startSvc({ drives: 1, built: true, env: { UV_THREADPOOL_SIZE: '4' } });
  t.after(() => four.cleanup());
  try {
    // The pool starts whole at its first use; both servers formatted their drive before listening.
    const a = threads(own.proc.pid!);
    const b = threads(four.proc.pid!);
    assert.ok(a - b >= 56, `${a} threads with the default, ${b} with UV_THREADPOOL_SIZE=4: 60 more expected`);
  } finally {
    await own.stop();
    await four.stop();
  }
});
