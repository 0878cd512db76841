// Account keys are generated per run (no key material in git), ed25519 because it is instant.
import { generateKeyPairSync } from 'node:crypto';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DeployKitError } from '../../errors.js';
import { createFixedClock, createMemoryFs } from '../../io/testing.js';
import type { MemoryFs } from '../../io/testing.js';
import { generateSelfSigned, inspectCombinedPem, parseCombinedPem } from '../pem/index.js';
import type { AcmeCa, AcmeOrderRequest } from './ca-port.js';
import { leafFingerprint } from './decision.js';
import { ISSUANCE_RECORD_FILE, obtainAcmeCertificate } from './obtain.js';
import type { ObtainOptions } from './obtain.js';

const NOW = new Date('2026-06-01T00:00:00Z');
const DAY = 86_400_000;
const DIR = '/deploy';
const HOSTS = ['s3.example.test', 'console.example.test'];
const PROD = 'https://ca.example.test/directory';
const STAGING = 'https://staging.example.test/directory';

interface FakeCa extends AcmeCa {
  readonly orders: AcmeOrderRequest[];
  /** Challenge files seen in the webroot while an order ran. */
  readonly published: string[];
}

/** A CA that publishes one challenge through the webroot, then issues a 90-day certificate (or fails for `failFor`). */
function fakeCa(fs: MemoryFs, opts: { failFor?: string; names?: readonly string[] } = {}): FakeCa {
  const orders: AcmeOrderRequest[] = [];
  const published: string[] = [];
  return {
    orders,
    published,
    async createAccountKey() {
      return generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    },
    async order(req) {
      orders.push(req);
      await req.webroot.put(`tok${orders.length}`, `tok${orders.length}.thumb`);
      published.push(...[...fs.files.keys()].filter((p) => p.startsWith(`${DIR}/acme/challenges/`)));
      await req.webroot.remove(`tok${orders.length}`);
      if (req.directoryUrl === opts.failFor) {
        throw new DeployKitError('DK_ERR_EXTERNAL_TOOL', `ACME order at ${req.directoryUrl} failed: urn:ietf:params:acme:error:connection`);
      }
      const b = generateSelfSigned({ hosts: opts.names ?? req.hosts, now: NOW, days: 90 });
      return { chainPem: b.leafCertPem + b.caCertPem, keyPem: b.leafKeyPem };
    },
  };
}

function options(over: Partial<ObtainOptions> = {}): ObtainOptions {
  return {
    dir: DIR, hosts: HOSTS, email: 'ops@example.test', directoryUrl: PROD, pemPath: 'certs/site.pem',
    challengeDir: 'acme/challenges', force: false, rehearsalDirectoryUrl: undefined, directoryCaPem: undefined, ...over,
  };
}

function flowDeps(fs: MemoryFs, ca: AcmeCa, at = NOW): { fs: MemoryFs; clock: ReturnType<typeof createFixedClock>; ca: AcmeCa; log: (l: string) => void; lines: string[] } {
  const lines: string[] = [];
  return { fs, clock: createFixedClock(at), ca, log: (l) => { lines.push(l); }, lines };
}

test('first run orders for both names, answers the challenge in acme/challenges, writes PEM, key and record with mode 600', async () => {
  const fs = createMemoryFs();
  const ca = fakeCa(fs);
  const deps = flowDeps(fs, ca);
  const r = await obtainAcmeCertificate(deps, options());
  assert.equal(r.action, 'issued');
  assert.equal(ca.orders.length, 1);
  assert.deepEqual(ca.orders[0]?.hosts, HOSTS);
  assert.equal(ca.orders[0]?.directoryUrl, PROD);
  assert.equal(ca.orders[0]?.email, 'ops@example.test');
  assert.deepEqual(ca.published, [`${DIR}/acme/challenges/tok1`]);
  assert.equal(fs.files.has(`${DIR}/acme/challenges/tok1`), false, 'challenge removed after the order');

  const pem = fs.files.get(`${DIR}/certs/site.pem`);
  assert.equal(pem?.mode, 0o600);
  const report = inspectCombinedPem(pem?.content ?? '', { hosts: HOSTS, now: NOW });
  assert.deepEqual(report.findings.filter((f) => f.severity === 'error'), []);
  assert.deepEqual(parseCombinedPem(pem?.content ?? '').order, ['certificate', 'certificate', 'key'], 'chain first, then key');
  assert.equal(fs.files.get(`${DIR}/acme/account.key`)?.mode, 0o600);
  assert.equal(ca.orders[0]?.accountKeyPem, fs.files.get(`${DIR}/acme/account.key`)?.content);
  const record = JSON.parse(fs.files.get(`${DIR}/${ISSUANCE_RECORD_FILE}`)?.content ?? '{}') as Record<string, unknown>;
  assert.equal(record['directory'], PROD);
  assert.equal(record['fingerprint256'], leafFingerprint(pem?.content ?? ''));
  assert.equal(r.fingerprint256, record['fingerprint256']);
});

test('a second run keeps the certificate without contacting the CA; --force and age renew it with the same account key', async () => {
  const fs = createMemoryFs();
  const ca = fakeCa(fs);
  await obtainAcmeCertificate(flowDeps(fs, ca), options());
  const first = fs.files.get(`${DIR}/certs/site.pem`)?.content;
  const accountKey = fs.files.get(`${DIR}/acme/account.key`)?.content;

  const again = flowDeps(fs, ca, new Date(NOW.getTime() + DAY));
  const kept = await obtainAcmeCertificate(again, options());
  assert.equal(kept.action, 'kept');
  assert.equal(ca.orders.length, 1);
  assert.ok(again.lines.includes('certificate valid for 89 more days; not renewing (--force to override)'), again.lines.join('\n'));
  assert.equal(fs.files.get(`${DIR}/certs/site.pem`)?.content, first);
  assert.ok(kept.notAfter instanceof Date);

  const forced = await obtainAcmeCertificate(flowDeps(fs, ca), options({ force: true }));
  assert.equal(forced.action, 'issued');
  assert.equal(ca.orders.length, 2);
  assert.notEqual(fs.files.get(`${DIR}/certs/site.pem`)?.content, first);
  assert.equal(fs.files.get(`${DIR}/acme/account.key`)?.content, accountKey, 'account key reused');

  const aged = await obtainAcmeCertificate(flowDeps(fs, ca, new Date(NOW.getTime() + 61 * DAY)), options());
  assert.equal(aged.action, 'issued');
  assert.equal(ca.orders.length, 3);
});

test('a placeholder or imported certificate is replaced by an ACME one', async () => {
  const b = generateSelfSigned({ hosts: HOSTS, now: NOW, days: 365 });
  const fs = createMemoryFs({ [`${DIR}/certs/site.pem`]: { content: b.leafCertPem + b.leafKeyPem, mode: 0o600 } });
  const ca = fakeCa(fs);
  const r = await obtainAcmeCertificate(flowDeps(fs, ca), options());
  assert.equal(r.action, 'issued');
  assert.equal(ca.orders.length, 1);
});

test('--staging rehearses against the staging directory first, then orders from the real one', async () => {
  const fs = createMemoryFs();
  const ca = fakeCa(fs);
  const deps = flowDeps(fs, ca);
  const r = await obtainAcmeCertificate(deps, options({ rehearsalDirectoryUrl: STAGING }));
  assert.deepEqual(ca.orders.map((o) => o.directoryUrl), [STAGING, PROD]);
  assert.equal(r.rehearsed, true);
  const record = JSON.parse(fs.files.get(`${DIR}/${ISSUANCE_RECORD_FILE}`)?.content ?? '{}') as Record<string, unknown>;
  assert.equal(record['directory'], PROD, 'the stored certificate is the real one');
  assert.ok(deps.lines.some((l) => /staging rehearsal passed/.test(l)));
});

test('a failed staging rehearsal stops before the real directory and leaves the current certificate alone', async () => {
  const b = generateSelfSigned({ hosts: HOSTS, now: NOW, days: 365 });
  const before = b.leafCertPem + b.leafKeyPem;
  const fs = createMemoryFs({ [`${DIR}/certs/site.pem`]: { content: before, mode: 0o600 } });
  const ca = fakeCa(fs, { failFor: STAGING });
  await assert.rejects(obtainAcmeCertificate(flowDeps(fs, ca), options({ rehearsalDirectoryUrl: STAGING })),
    (e: unknown) => e instanceof DeployKitError && e.code === 'DK_ERR_EXTERNAL_TOOL' && e.exitCode === 4);
  assert.deepEqual(ca.orders.map((o) => o.directoryUrl), [STAGING]);
  assert.equal(fs.files.get(`${DIR}/certs/site.pem`)?.content, before);
  assert.equal(fs.files.has(`${DIR}/${ISSUANCE_RECORD_FILE}`), false);
});

test('staging rehearsal is skipped when the spec already points at the staging directory', async () => {
  const fs = createMemoryFs();
  const ca = fakeCa(fs);
  const r = await obtainAcmeCertificate(flowDeps(fs, ca), options({ directoryUrl: STAGING, rehearsalDirectoryUrl: STAGING }));
  assert.deepEqual(ca.orders.map((o) => o.directoryUrl), [STAGING]);
  assert.equal(r.rehearsed, false);
});

test('a certificate from the CA that misses a name is refused and nothing is written', async () => {
  const fs = createMemoryFs();
  const ca = fakeCa(fs, { names: ['s3.example.test'] });
  await assert.rejects(obtainAcmeCertificate(flowDeps(fs, ca), options()),
    (e: unknown) => e instanceof DeployKitError && e.code === 'DK_ERR_CERT_INVALID' && /console\.example\.test/.test(e.details.join('\n')));
  assert.equal(fs.files.has(`${DIR}/certs/site.pem`), false);
});

test('the directory CA is passed to every order', async () => {
  const fs = createMemoryFs();
  const ca = fakeCa(fs);
  await obtainAcmeCertificate(flowDeps(fs, ca), options({ directoryCaPem: 'CA PEM', rehearsalDirectoryUrl: STAGING }));
  assert.deepEqual(ca.orders.map((o) => o.directoryCaPem), ['CA PEM', 'CA PEM']);
});

test('an account key left with a loose mode is tightened to 600 and reused', async () => {
  const key = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const fs = createMemoryFs({ [`${DIR}/acme/account.key`]: { content: key, mode: 0o644 } });
  const ca = fakeCa(fs);
  await obtainAcmeCertificate(flowDeps(fs, ca), options());
  assert.equal(ca.orders[0]?.accountKeyPem, key);
  assert.equal(fs.files.get(`${DIR}/acme/account.key`)?.mode, 0o600);
});

test('a custom PEM writer replaces the default store', async () => {
  const fs = createMemoryFs();
  const written: string[] = [];
  const deps = { ...flowDeps(fs, fakeCa(fs)), writePem: async (path: string, text: string) => { written.push(path); assert.match(text, /PRIVATE KEY/); } };
  await obtainAcmeCertificate(deps, options());
  assert.deepEqual(written, [`${DIR}/certs/site.pem`]);
  assert.equal(fs.files.has(`${DIR}/certs/site.pem`), false);
});
