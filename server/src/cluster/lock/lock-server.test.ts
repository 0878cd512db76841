import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LockServer } from './lock-server.js';

function setup(t: { after(fn: () => void): void }): { server: LockServer; clock: { now: number } } {
  const clock = { now: 1_000_000 };
  const server = new LockServer({ now: () => clock.now });
  t.after(() => server.close());
  return { server, clock };
}

const w = (uid: string, resource = 'bkt/key') => ({ resource, uid, owner: 'node1' });

test('one writer or many readers per resource; unlock is idempotent and only by the holder', (t) => {
  const { server } = setup(t);
  assert.equal(server.lock(w('a')), true);
  assert.equal(server.lock(w('b')), false, 'second writer refused');
  assert.equal(server.rlock(w('r1')), false, 'reader refused while written');
  assert.equal(server.lock(w('a')), true, 'the same uid asking again is granted (a retried call)');
  assert.equal(server.lock(w('b', 'bkt/other')), true, 'other resources are independent');
  assert.equal(server.unlock('bkt/key', 'b'), false, 'not the holder');
  assert.equal(server.unlock('bkt/key', 'a'), true);
  assert.equal(server.unlock('bkt/key', 'a'), false, 'idempotent');
  assert.equal(server.rlock(w('r1')), true);
  assert.equal(server.rlock(w('r2')), true, 'readers share');
  assert.equal(server.lock(w('c')), false, 'writer refused while read');
  assert.equal(server.runlock('bkt/key', 'r1'), true);
  assert.equal(server.runlock('bkt/key', 'r1'), false);
  assert.equal(server.lock(w('c')), false, 'r2 still reads');
  assert.equal(server.unlock('bkt/key', 'r2'), false, 'a read lock is not released by unlock');
  assert.equal(server.runlock('bkt/key', 'r2'), true);
  assert.equal(server.lock(w('c')), true);
  assert.deepEqual(server.entries().map((e) => [e.resource, e.writer?.uid, e.readers.length]).sort(),
    [['bkt/key', 'c', 0], ['bkt/other', 'b', 0]]);
});

test('an entry not refreshed for 60 s expires; a refreshed one stays; refresh of an unknown lock says false', (t) => {
  const { server, clock } = setup(t);
  assert.equal(server.lock(w('a')), true);
  assert.equal(server.rlock(w('r', 'bkt/read')), true);
  clock.now += 59_000;
  assert.equal(server.expire(), 0);
  assert.equal(server.refresh('bkt/read', 'r'), true);
  assert.equal(server.refresh('bkt/key', 'nobody'), false);
  clock.now += 2_000;
  assert.equal(server.expire(), 1, 'the unrefreshed write lock is dropped');
  assert.equal(server.refresh('bkt/key', 'a'), false, 'its holder learns it is gone');
  assert.equal(server.lock(w('b')), true, 'the resource can be taken again');
  assert.equal(server.lock(w('x', 'bkt/read')), false, 'the refreshed read lock still holds');
  clock.now += 61_000;
  assert.equal(server.lock(w('x', 'bkt/read')), true, 'an expired holder never blocks a grant, even before the sweep');
  assert.equal(server.expire(), 1, 'b expired too');
  assert.deepEqual(server.entries().map((e) => e.resource), ['bkt/read']);
});

test('the periodic sweep drops expired entries without keeping the process alive', async (t) => {
  const clock = { now: 0 };
  const server = new LockServer({ now: () => clock.now, validityMs: 100, sweepIntervalMs: 5 });
  t.after(() => server.close());
  server.lock(w('a'));
  clock.now = 1_000;
  for (let i = 0; i < 200 && server.entries().length > 0; i++) await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(server.entries(), []);
});

test('force-unlock drops writer and readers whoever holds them', (t) => {
  const { server } = setup(t);
  server.rlock(w('r1'));
  server.rlock(w('r2'));
  assert.equal(server.forceUnlock('bkt/key'), true);
  assert.equal(server.forceUnlock('bkt/key'), false);
  assert.equal(server.refresh('bkt/key', 'r1'), false);
  assert.equal(server.lock(w('a')), true);
});
