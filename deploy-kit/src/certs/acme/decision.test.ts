import assert from 'node:assert/strict';
import { test } from 'node:test';
import { combinePem, generateSelfSigned } from '../pem/index.js';
import { decideRenewal, leafFingerprint } from './decision.js';
import type { IssuanceRecord } from './decision.js';

const NOW = new Date('2026-06-01T00:00:00Z');
const HOSTS = ['s3.example.test', 'console.example.test'];
const DIRECTORY = 'https://ca.example.test/dir';
const DAY = 86_400_000;

function pem(days: number, hosts = HOSTS, issuedAt = NOW): string {
  const b = generateSelfSigned({ hosts, now: issuedAt, days });
  return combinePem([b.leafCertPem, b.caCertPem], b.leafKeyPem);
}

function recordOf(text: string, directory = DIRECTORY): IssuanceRecord {
  return { directory, fingerprint256: leafFingerprint(text) as string, hosts: HOSTS, notAfter: '', issuedAt: '' };
}

const base = { directoryUrl: DIRECTORY, hosts: HOSTS, now: NOW, force: false };
const good = pem(90);

test('no certificate: renew', () => {
  const d = decideRenewal({ ...base, pemText: undefined, record: undefined });
  assert.equal(d.renew, true);
  assert.equal(d.daysLeft, undefined);
});

test('an ACME certificate with more than 30 days left is kept, with the SPEC rule 12 sentence', () => {
  const d = decideRenewal({ ...base, pemText: good, record: recordOf(good) });
  assert.equal(d.renew, false);
  assert.equal(d.daysLeft, 90);
  assert.match(d.reason, /^certificate valid for 90 more days; not renewing/);
});

test('--force renews a good certificate and says why', () => {
  const d = decideRenewal({ ...base, pemText: good, record: recordOf(good), force: true });
  assert.equal(d.renew, true);
  assert.match(d.reason, /--force/);
});

test('30 days or fewer left: renew; 31: keep', () => {
  const thirty = pem(30);
  assert.equal(decideRenewal({ ...base, pemText: thirty, record: recordOf(thirty) }).renew, true);
  const later = new Date(NOW.getTime() + 59 * DAY);
  const d = decideRenewal({ ...base, now: later, pemText: good, record: recordOf(good) });
  assert.equal(d.daysLeft, 31);
  assert.equal(d.renew, false);
  const d2 = decideRenewal({ ...base, now: new Date(later.getTime() + DAY), pemText: good, record: recordOf(good) });
  assert.equal(d2.daysLeft, 30);
  assert.equal(d2.renew, true);
});

test('a certificate deploy-kit did not issue (placeholder, import) is replaced even when it is fine', () => {
  const d = decideRenewal({ ...base, pemText: good, record: undefined });
  assert.equal(d.renew, true);
  assert.match(d.reason, /not issued through ACME/);
  const other = pem(90);
  assert.equal(decideRenewal({ ...base, pemText: good, record: recordOf(other) }).renew, true);
});

test('a certificate from another directory (staging → production) is replaced', () => {
  const d = decideRenewal({ ...base, pemText: good, record: recordOf(good, 'https://staging.example.test/dir') });
  assert.equal(d.renew, true);
  assert.match(d.reason, /another ACME directory/);
});

test('a certificate missing one of the names, expired, or broken is replaced', () => {
  const one = pem(90, ['s3.example.test']);
  const d = decideRenewal({ ...base, pemText: one, record: recordOf(one) });
  assert.equal(d.renew, true);
  assert.match(d.reason, /console\.example\.test/);
  const old = pem(10, HOSTS, new Date(NOW.getTime() - 20 * DAY));
  assert.match(decideRenewal({ ...base, pemText: old, record: recordOf(old) }).reason, /expired/);
  const garbage = decideRenewal({ ...base, pemText: 'not a pem', record: undefined });
  assert.equal(garbage.renew, true);
  assert.match(garbage.reason, /unusable/);
});

test('leafFingerprint reads the first certificate only', () => {
  assert.equal(leafFingerprint('nothing'), undefined);
  assert.match(leafFingerprint(good) ?? '', /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
});
