import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateSelfSigned } from './generate.js';
import { inspectCombinedPem, nameCovered } from './inspect.js';
import { combinePem } from './parse.js';

const NOW = new Date('2026-06-01T00:00:00Z');
const HOSTS = ['s3.example.test', 'console.example.test'];
// One RSA bundle for the whole file: key generation is the slow part.
const good = generateSelfSigned({ hosts: HOSTS, now: NOW, days: 90 });
const other = generateSelfSigned({ hosts: ['s3.example.test'], now: NOW, days: 90 });

function ids(text: string, now = NOW): string[] {
  return inspectCombinedPem(text, { hosts: HOSTS, now }).findings.map((f) => `${f.severity}:${f.id}`);
}

test('a leaf + CA + key PEM for both names is clean', () => {
  const report = inspectCombinedPem(combinePem([good.leafCertPem, good.caCertPem], good.leafKeyPem), { hosts: HOSTS, now: NOW });
  assert.deepEqual(report.findings, []);
  assert.deepEqual(report.leaf?.dnsNames, HOSTS);
  assert.equal(report.chain.length, 2);
  assert.equal(report.chain[1]?.isCA, true);
});

test('a certificate missing a hostname is an error naming it', () => {
  const report = inspectCombinedPem(combinePem([other.leafCertPem], other.leafKeyPem), { hosts: HOSTS, now: NOW });
  const f = report.findings.find((x) => x.id === 'cert.name-missing');
  assert.equal(f?.severity, 'error');
  assert.match(f?.message ?? '', /console\.example\.test/);
});

test('key before chain, foreign key, leaf not first are each reported', () => {
  assert.ok(ids(good.leafKeyPem + good.leafCertPem).includes('error:cert.key-before-chain'));
  assert.ok(ids(combinePem([good.leafCertPem], other.leafKeyPem)).includes('error:cert.key-mismatch'));
  const swapped = ids(combinePem([good.caCertPem, good.leafCertPem], good.leafKeyPem));
  assert.ok(swapped.includes('error:cert.leaf-not-first'), swapped.join());
  assert.ok(ids(good.leafCertPem).includes('error:cert.no-key'));
  assert.ok(ids('').includes('error:cert.no-certificate'));
});

test('dates: expired and not yet valid are errors, under 30 days left is a warning', () => {
  const pem = combinePem([good.leafCertPem], good.leafKeyPem);
  assert.ok(ids(pem, new Date(NOW.getTime() + 91 * 86_400_000)).includes('error:cert.expired'));
  assert.ok(ids(pem, new Date(NOW.getTime() - 2 * 86_400_000)).includes('error:cert.not-yet-valid'));
  assert.deepEqual(ids(pem, new Date(NOW.getTime() + 70 * 86_400_000)), ['warning:cert.expires-soon']);
});

test('wildcards cover exactly one label (RFC 6125 §6.4.3)', () => {
  assert.equal(nameCovered('s3.example.com', ['*.example.com']), true);
  assert.equal(nameCovered('S3.Example.com', ['s3.example.com']), true);
  assert.equal(nameCovered('example.com', ['*.example.com']), false);
  assert.equal(nameCovered('a.b.example.com', ['*.example.com']), false);
  assert.equal(nameCovered('s3.example.com', ['console.example.com']), false);
});

test('garbage inside a CERTIFICATE block is an error, not a crash', () => {
  const bad = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
  assert.ok(ids(bad + good.leafKeyPem).includes('error:cert.unreadable'));
});
