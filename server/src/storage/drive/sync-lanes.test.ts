import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newNameDirs } from './dir-sync.js';
import { SyncLanes } from './sync-lanes.js';

function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => { open = r; });
  return { wait, open };
}

test('sync lanes: callers during a run share the next one; a run never covers a call made after it started', async () => {
  const lanes = new SyncLanes();
  const gates = [gate(), gate(), gate()];
  let started = 0;
  const sync = async (): Promise<void> => {
    await gates[started++]!.wait;
  };
  const first = lanes.run('d', sync);
  await new Promise((r) => setImmediate(r));
  assert.equal(started, 1, 'the first call runs at once');
  const joined = [lanes.run('d', sync), lanes.run('d', sync), lanes.run('d', sync)];
  assert.equal(joined[0], joined[1], 'calls while a run is in progress join one queued run');
  const other = lanes.run('e', sync);
  await new Promise((r) => setImmediate(r));
  assert.equal(started, 2, 'another key has its own lane');
  gates[0]!.open();
  await first;
  await new Promise((r) => setImmediate(r));
  gates[1]!.open();
  gates[2]!.open();
  await Promise.all([...joined, other]);
  await new Promise((r) => setImmediate(r));
  assert.equal(started, 3, 'three runs for five calls');
  assert.equal(lanes.size, 0, 'idle lanes are dropped');
});

test('sync lanes: a failed run rejects its callers only; the lane goes on', async () => {
  const lanes = new SyncLanes();
  let fail = true;
  const sync = async (): Promise<void> => {
    if (fail) throw new Error('EIO');
  };
  await assert.rejects(lanes.run('d', sync), /EIO/);
  fail = false;
  await lanes.run('d', sync);
  await new Promise((r) => setImmediate(r));
  assert.equal(lanes.size, 0);
});

test('newNameDirs: the key directory, and every directory mkdir -p created with the parent of the first', () => {
  assert.deepEqual(newNameDirs('/r/b/+k', undefined), ['/r/b/+k']);
  assert.deepEqual(newNameDirs('/r/b/+k', '/r/b/+k'), ['/r/b/+k', '/r/b']);
  assert.deepEqual(newNameDirs('/r/b/+a/+b/+k', '/r/b/+a'), ['/r/b/+a/+b/+k', '/r/b/+a/+b', '/r/b/+a', '/r/b']);
});
