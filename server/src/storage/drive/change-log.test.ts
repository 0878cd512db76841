import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChangeLog, MAX_CHANGES, STAMP_MAX_AGE_MS, changeLogFor } from './change-log.js';

test('a stamp vouches for a key until the key, or a key below it, changes after it was taken', () => {
  const log = new ChangeLog();
  log.touch('b', 'a/b/c');
  const s = log.stamp();
  for (const k of ['a', 'a/b', 'a/b/c', 'x']) assert.equal(log.unchanged('b', '', k, s), true, k);
  log.touch('b', 'a/b/c/d');
  // The key and its ancestors (their deeper keys changed); a sibling or another volume are untouched.
  for (const k of ['a', 'a/b', 'a/b/c', 'a/b/c/d']) assert.equal(log.unchanged('b', '', k, s), false, k);
  assert.equal(log.unchanged('b', '', 'x', s), true);
  assert.equal(log.unchanged('other', '', 'a', s), true);
  // As the listing asks: a child `name` of the key directory `dirKey`.
  assert.equal(log.unchanged('b', 'a/b/', 'c', s), false);
  assert.equal(log.unchanged('b', 'a/', 'x', s), true);
  // A stamp taken after the change vouches again.
  assert.equal(log.unchanged('b', '', 'a/b', log.stamp()), true);
});

test('a change recorded while a read runs invalidates the stamp the read took before it', () => {
  const log = new ChangeLog();
  const beforeRead = log.stamp();
  log.touch('b', 'k'); // lands on disk during the read, recorded after it
  assert.equal(log.unchanged('b', '', 'k', beforeRead), false);
});

test('unchangedSince: a mark answers as a stamp taken at the same moment would, and nothing once forgotten', () => {
  const log = new ChangeLog();
  log.touch('b', 'k');
  const m = log.mark();
  assert.equal(log.unchangedSince('b', 'k', m), true);
  log.touch('b', 'other');
  log.touch('v2', 'k');
  assert.equal(log.unchangedSince('b', 'k', m), true, 'another key, another volume');
  log.touch('b', 'k/deeper');
  assert.equal(log.unchangedSince('b', 'k', m), false, 'a key below it');
  assert.equal(log.unchangedSince('b', 'k', log.mark()), true);
  const before = log.mark();
  log.touchAll();
  assert.equal(log.unchangedSince('b', 'other', before), false, 'touchAll');
  // Changes beyond MAX_CHANGES are forgotten: an older mark vouches for nothing, whatever key it asks about.
  const old = log.mark();
  for (let i = 0; i <= MAX_CHANGES; i++) log.touch('b', `f${i}`);
  assert.equal(log.unchangedSince('b', 'never-touched', old), false);
});

test('touchAll, foreign and malformed stamps, and stamps past their age vouch for nothing', (t) => {
  const log = new ChangeLog();
  const s = log.stamp();
  log.touchAll();
  assert.equal(log.unchanged('b', '', 'k', s), false);
  const fresh = log.stamp();
  assert.equal(log.unchanged('b', '', 'k', fresh), true);
  assert.equal(log.unchanged('b', '', 'k', new ChangeLog().stamp()), false, 'another process or drive');
  for (const bad of ['', 'x', 'a:b:c', fresh.replace(/:\d+:/, ':x:')]) assert.equal(log.unchanged('b', '', 'k', bad), false, bad);
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
  const aged = log.stamp();
  t.mock.timers.tick(STAMP_MAX_AGE_MS + 1);
  assert.equal(log.unchanged('b', '', 'k', aged), false);
});

test('forgotten changes raise the floor: older stamps are refused, newer ones still work', () => {
  const log = new ChangeLog();
  const old = log.stamp();
  for (let i = 0; i <= MAX_CHANGES; i++) log.touch('b', `k${i}`);
  assert.equal(log.unchanged('b', '', 'k0', old), false, 'k0 was forgotten: its change must not read as none');
  assert.equal(log.unchanged('b', '', 'never', old), false);
  assert.equal(log.unchanged('b', '', 'never', log.stamp()), true);
});

test('one log per drive root in the process, whatever the path spelling', () => {
  assert.equal(changeLogFor('/tmp/x/../d1'), changeLogFor('/tmp/d1'));
  assert.notEqual(changeLogFor('/tmp/d1'), changeLogFor('/tmp/d2'));
});

test('forgetting old changes keeps a key changed again since: its later change still invalidates stamps', () => {
  const log = new ChangeLog();
  log.touch('b', 'hot');
  for (let i = 1; i < MAX_CHANGES; i++) log.touch('b', `k${i}`);
  const s = log.stamp();
  log.touch('b', 'hot'); // its first change is now the oldest entry, superseded by this one
  log.touch('b', 'new1');
  log.touch('b', 'new2'); // over the limit: the oldest quarter is forgotten
  assert.equal(log.unchanged('b', '', 'hot', s), false, 'hot changed after the stamp');
  assert.equal(log.unchanged('b', '', `k${MAX_CHANGES - 1}`, s), true, 'a recent change before the stamp is still known');
});
