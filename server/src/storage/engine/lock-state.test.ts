import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromLockMeta, isLocked, toLockMeta } from './lock-state.js';

const NOW = Date.UTC(2030, 0, 10);
const at = (ms: number): Date => new Date(ms);

test('isLocked: retention protects until its date, GOVERNANCE yields to a bypass, COMPLIANCE never', () => {
  const gov = { retention: { mode: 'GOVERNANCE' as const, retainUntil: NOW + 1000 } };
  const comp = { retention: { mode: 'COMPLIANCE' as const, retainUntil: NOW + 1000 } };
  assert.equal(isLocked(gov, { now: at(NOW), bypassGovernance: false }), true);
  assert.equal(isLocked(gov, { now: at(NOW), bypassGovernance: true }), false);
  assert.equal(isLocked(comp, { now: at(NOW), bypassGovernance: true }), true);
  assert.equal(isLocked(comp, { now: at(NOW + 1000), bypassGovernance: false }), false);
  assert.equal(isLocked(undefined, { now: at(NOW), bypassGovernance: false }), false);
});

test('isLocked: a legal hold protects with or without retention, expired or bypassed', () => {
  assert.equal(isLocked({ legalHold: true }, { now: at(NOW), bypassGovernance: true }), true);
  assert.equal(isLocked({ legalHold: false }, { now: at(NOW), bypassGovernance: false }), false);
  const expired = { retention: { mode: 'GOVERNANCE' as const, retainUntil: NOW - 1 }, legalHold: true };
  assert.equal(isLocked(expired, { now: at(NOW), bypassGovernance: true }), true);
});

test('toLockMeta / fromLockMeta round-trip; an empty state is stored as nothing, OFF is kept', () => {
  assert.equal(toLockMeta({}), undefined);
  assert.equal(toLockMeta(undefined), undefined);
  const state = { retention: { mode: 'COMPLIANCE' as const, retainUntil: at(NOW) }, legalHold: false };
  assert.deepEqual(fromLockMeta(toLockMeta(state)), state);
});
