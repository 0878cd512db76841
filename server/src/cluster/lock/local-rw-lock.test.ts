import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LocalRwLock } from './local-rw-lock.js';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

test('writers are served in arrival order and exclusively; readers share; a reader behind a writer waits', async () => {
  const lock = new LocalRwLock();
  const order: string[] = [];
  const w1 = await lock.acquire('k', 'write');
  const pw2 = lock.acquire('k', 'write').then((u) => { order.push('w2'); return u; });
  const pr1 = lock.acquire('k', 'read').then((u) => { order.push('r1'); return u; });
  const pr2 = lock.acquire('k', 'read').then((u) => { order.push('r2'); return u; });
  const pw3 = lock.acquire('k', 'write').then((u) => { order.push('w3'); return u; });
  await tick();
  assert.deepEqual(order, []);
  w1();
  w1();
  const w2 = await pw2;
  await tick();
  assert.deepEqual(order, ['w2']);
  w2();
  const [r1, r2] = await Promise.all([pr1, pr2]);
  await tick();
  assert.deepEqual(order, ['w2', 'r1', 'r2'], 'both readers at once');
  r1();
  await tick();
  assert.deepEqual(order, ['w2', 'r1', 'r2'], 'w3 waits for the last reader');
  r2();
  (await pw3)();
  assert.equal(lock.size, 0, 'no state left behind');
});

test('an aborted waiter leaves the queue and the others proceed', async () => {
  const lock = new LocalRwLock();
  const held = await lock.acquire('k', 'write');
  const ctl = new AbortController();
  const aborted = lock.acquire('k', 'write', ctl.signal);
  const next = lock.acquire('k', 'read');
  ctl.abort(new Error('gave up'));
  await assert.rejects(aborted, /gave up/);
  held();
  (await next)();
  assert.equal(lock.size, 0);
  await assert.rejects(lock.acquire('k', 'read', AbortSignal.abort(new Error('already'))), /already/);
});
