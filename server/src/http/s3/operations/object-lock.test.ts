import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { S3Context } from '../context.js';
import { S3Error } from '../s3-error.js';
import { bypassGovernance, defaultRetention, explicitLock, retentionChangeAllowed } from './object-lock.js';

const NOW = new Date(Date.UTC(2030, 5, 15, 12));
const later = (days: number): Date => new Date(NOW.getTime() + days * 86_400_000);

function ctxWith(headers: Record<string, string>, authorizeKey?: (bucket: string, key: string, action: string) => boolean): S3Context {
  return { headers, now: () => NOW, ...(authorizeKey !== undefined ? { authorizeKey } : {}) } as unknown as S3Context;
}

test('retentionChangeAllowed: COMPLIANCE only extends, GOVERNANCE shortens or goes only with a bypass, expired changes freely', () => {
  const comp = { mode: 'COMPLIANCE' as const, retainUntil: later(2) };
  const gov = { mode: 'GOVERNANCE' as const, retainUntil: later(2) };
  assert.equal(retentionChangeAllowed(comp, { mode: 'COMPLIANCE', retainUntil: later(3) }, NOW, false), true);
  assert.equal(retentionChangeAllowed(comp, { mode: 'COMPLIANCE', retainUntil: later(1) }, NOW, true), false);
  assert.equal(retentionChangeAllowed(comp, { mode: 'GOVERNANCE', retainUntil: later(9) }, NOW, true), false);
  assert.equal(retentionChangeAllowed(comp, undefined, NOW, true), false);
  assert.equal(retentionChangeAllowed(gov, { mode: 'COMPLIANCE', retainUntil: later(2) }, NOW, false), true);
  assert.equal(retentionChangeAllowed(gov, { mode: 'GOVERNANCE', retainUntil: later(1) }, NOW, false), false);
  assert.equal(retentionChangeAllowed(gov, { mode: 'GOVERNANCE', retainUntil: later(1) }, NOW, true), true);
  assert.equal(retentionChangeAllowed(gov, undefined, NOW, false), false);
  assert.equal(retentionChangeAllowed(gov, undefined, NOW, true), true);
  assert.equal(retentionChangeAllowed({ mode: 'COMPLIANCE', retainUntil: NOW }, undefined, NOW, false), true);
  assert.equal(retentionChangeAllowed(undefined, undefined, NOW, false), true);
});

test('bypassGovernance needs the header and, for users, s3:BypassGovernanceRetention', () => {
  const asked = { 'x-amz-bypass-governance-retention': 'true' };
  assert.equal(bypassGovernance(ctxWith({}), 'b', 'k'), false);
  assert.equal(bypassGovernance(ctxWith(asked), 'b', 'k'), true);
  assert.equal(bypassGovernance(ctxWith(asked, (_b, _k, action) => action === 's3:BypassGovernanceRetention'), 'b', 'k'), true);
  assert.equal(bypassGovernance(ctxWith(asked, () => false), 'b', 'k'), false);
  assert.equal(bypassGovernance(ctxWith({ 'x-amz-bypass-governance-retention': 'false' }), 'b', 'k'), false);
});

test('defaultRetention: days from now, years as calendar years', () => {
  assert.deepEqual(defaultRetention({ defaultRetention: { mode: 'GOVERNANCE', days: 2 } }, NOW), { mode: 'GOVERNANCE', retainUntil: later(2) });
  assert.deepEqual(defaultRetention({ defaultRetention: { mode: 'COMPLIANCE', years: 1 } }, NOW), { mode: 'COMPLIANCE', retainUntil: new Date(Date.UTC(2031, 5, 15, 12)) });
  assert.equal(defaultRetention({}, NOW), undefined);
});

test('explicitLock parses the x-amz-object-lock-* headers and refuses bad ones with InvalidArgument', () => {
  assert.equal(explicitLock(ctxWith({}), NOW), undefined);
  assert.deepEqual(explicitLock(ctxWith({
    'x-amz-object-lock-mode': 'governance', 'x-amz-object-lock-retain-until-date': '2030-06-20T00:00:00Z', 'x-amz-object-lock-legal-hold': 'OFF',
  }), NOW), { retention: { mode: 'GOVERNANCE', retainUntil: new Date(Date.UTC(2030, 5, 20)) }, legalHold: false });
  const bad: Array<Record<string, string>> = [
    { 'x-amz-object-lock-retain-until-date': '2030-06-20T00:00:00Z' },
    { 'x-amz-object-lock-mode': 'WORM', 'x-amz-object-lock-retain-until-date': '2030-06-20T00:00:00Z' },
    { 'x-amz-object-lock-mode': 'COMPLIANCE', 'x-amz-object-lock-retain-until-date': 'tomorrow' },
    { 'x-amz-object-lock-mode': 'COMPLIANCE', 'x-amz-object-lock-retain-until-date': '2030-06-01T00:00:00Z' },
    { 'x-amz-object-lock-legal-hold': 'yes' },
  ];
  for (const headers of bad) {
    assert.throws(() => explicitLock(ctxWith(headers), NOW), (err: unknown) => err instanceof S3Error && err.code === 'InvalidArgument', JSON.stringify(headers));
  }
});
