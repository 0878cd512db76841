import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import { assembleCombinedPem } from './assemble.js';
import { privateKeyId, readCertificate } from './forge.js';
import { generateSelfSigned } from './generate.js';
import { parseCombinedPem, splitPem } from './parse.js';

const NOW = new Date('2026-06-01T00:00:00Z');
const b = generateSelfSigned({ hosts: ['a.example.test', 'b.example.test'], now: NOW, days: 30 });

test('chain and key in any order come out leaf first, chain, then key', () => {
  const r = assembleCombinedPem([b.leafKeyPem + b.caCertPem, b.leafCertPem]);
  assert.ok(r.ok);
  const parts = parseCombinedPem(r.text);
  assert.deepEqual(parts.order, ['certificate', 'certificate', 'key']);
  assert.equal(parts.certificates[0], b.leafCertPem);
  assert.equal(parts.certificates[1], b.caCertPem);
});

test('no key, two keys or no certificate are refused with a reason', () => {
  const noKey = assembleCombinedPem([b.leafCertPem]);
  assert.deepEqual(noKey.ok ? [] : noKey.problems, ['no PEM private key found']);
  const twoKeys = assembleCombinedPem([b.leafCertPem, b.leafKeyPem, b.leafKeyPem]);
  assert.equal(twoKeys.ok, false);
  const noCert = assembleCombinedPem([b.leafKeyPem]);
  assert.deepEqual(noCert.ok ? [] : noCert.problems, ['no PEM certificate found']);
});

test('PEM text uses LF line ends and splits into labelled blocks', () => {
  assert.doesNotMatch(b.leafCertPem + b.leafKeyPem, /\r/);
  assert.deepEqual(splitPem(`junk\n${b.leafCertPem}between\n${b.leafKeyPem}`).map((x) => x.label), ['CERTIFICATE', 'RSA PRIVATE KEY']);
});

test('the generated leaf names both hosts, is signed by the CA and matches its key', () => {
  const leaf = readCertificate(b.leafCertPem);
  const ca = readCertificate(b.caCertPem);
  assert.deepEqual(leaf.dnsNames, ['a.example.test', 'b.example.test']);
  assert.equal(leaf.issuer, ca.subject);
  assert.equal(ca.isCA, true);
  assert.equal(leaf.isCA, false);
  assert.equal(leaf.publicKeyId, privateKeyId(b.leafKeyPem));
  assert.equal(leaf.notAfter.getTime(), NOW.getTime() + 30 * 86_400_000);
});

test('a PKCS#8 EC key is read through node crypto (forge reads RSA only)', () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  assert.match(privateKeyId(pem), /^[A-Za-z0-9+/=]+$/);
});
