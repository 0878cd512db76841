/**
 * Host-level ACME: the real acme-client against Debian's pebble on 127.0.0.1 (DOCKER.md §3 option A), with
 * HTTP-01 validated for real through a responder serving the deployment's acme/challenges folder.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { connect, createServer } from 'node:tls';
import { createAcmeClientCa, obtainAcmeCertificate, readAcmeEnvironment } from '../../src/certs/acme/index.js';
import type { AcmeCa, ObtainOptions } from '../../src/certs/acme/index.js';
import { DeployKitError } from '../../src/errors.js';
import { createNodeFs } from '../../src/io/index.js';
import { startPebble } from './acme-pebble-harness.js';
import type { PebbleHarness } from './acme-pebble-harness.js';

const HOSTS = ['s3.example.test', 'console.example.test'];

let dir: string;
let pebble: PebbleHarness;
let staging: PebbleHarness;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dk-acme-'));
  const webroot = join(dir, 'acme', 'challenges');
  pebble = await startPebble(webroot);
  staging = await startPebble(webroot, pebble.listener);
});

after(async () => {
  await pebble?.stop();
  await staging?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Counts orders on the way to the real client. */
function counting(ca: AcmeCa): AcmeCa & { orders: string[] } {
  const orders: string[] = [];
  return { orders, createAccountKey: () => ca.createAccountKey(), order: (req) => { orders.push(req.directoryUrl); return ca.order(req); } };
}

function options(over: Partial<ObtainOptions> = {}): ObtainOptions {
  return {
    dir, hosts: HOSTS, email: 'ops@example.test', directoryUrl: pebble.directoryUrl, pemPath: 'certs/site.pem',
    challengeDir: 'acme/challenges', force: false, rehearsalDirectoryUrl: undefined, directoryCaPem: pebble.listenerCaPem, ...over,
  };
}

/** Serves `pem` over TLS on 127.0.0.1 and checks that a client trusting only `rootPem` accepts it for `servername`. */
async function verifiedBy(pem: string, rootPem: string, servername: string): Promise<{ authorized: boolean; error: string | undefined }> {
  const server = createServer({ cert: pem, key: pem }, (s) => { s.end(); });
  await new Promise<void>((resolve) => { server.listen(0, '127.0.0.1', resolve); });
  const port = (server.address() as { port: number }).port;
  try {
    return await new Promise((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port, servername, ca: rootPem, rejectUnauthorized: false }, () => {
        resolve({ authorized: s.authorized, error: s.authorizationError?.toString() });
        s.destroy();
      });
      s.on('error', reject);
    });
  } finally {
    server.close();
  }
}

test('pebble issues one certificate for both names; it chains to pebble\'s root; a second run does not re-issue', async () => {
  const fs = createNodeFs();
  const env = await readAcmeEnvironment(fs, { DEPLOY_KIT_ACME_CA_FILE: pebble.listenerCaFile }, '/');
  assert.equal(env.directoryCaPem, pebble.listenerCaPem);
  const ca = counting(createAcmeClientCa({ selfCheck: false, backoffMinMs: 200 }));
  const lines: string[] = [];
  const deps = { fs, clock: { now: () => new Date() }, ca, log: (l: string) => { lines.push(l); } };

  const first = await obtainAcmeCertificate(deps, options({ directoryCaPem: env.directoryCaPem }));
  assert.equal(first.action, 'issued');
  assert.ok(pebble.challengeHits() >= 2, `pebble validated through the responder (${pebble.challengeHits()} fetches)`);
  const pemFile = join(dir, 'certs', 'site.pem');
  assert.equal((await stat(pemFile)).mode & 0o777, 0o600);
  assert.equal((await stat(join(dir, 'acme', 'account.key'))).mode & 0o777, 0o600);
  const pem = await readFile(pemFile, 'utf8');
  assert.ok(pem.indexOf('PRIVATE KEY') > pem.lastIndexOf('END CERTIFICATE'), 'chain first, then key');
  const root = await pebble.rootPem();
  for (const host of HOSTS) {
    assert.deepEqual(await verifiedBy(pem, root, host), { authorized: true, error: undefined }, host);
  }
  assert.equal((await verifiedBy(pem, root, 'other.example.test')).authorized, false, 'only the two names');

  const hits = pebble.challengeHits();
  const second = await obtainAcmeCertificate(deps, options({ directoryCaPem: env.directoryCaPem }));
  assert.equal(second.action, 'kept');
  assert.match(second.decision.reason, /^certificate valid for \d+ more days; not renewing/);
  assert.deepEqual(ca.orders, [pebble.directoryUrl]);
  assert.equal(pebble.challengeHits(), hits);
  assert.equal(await readFile(pemFile, 'utf8'), pem);
  assert.equal(second.fingerprint256, first.fingerprint256);
});

test('--staging rehearses against the staging directory, then stores the real directory\'s certificate', async () => {
  const ca = counting(createAcmeClientCa({ selfCheck: false, backoffMinMs: 200 }));
  const deps = { fs: createNodeFs(), clock: { now: () => new Date() }, ca, log: () => undefined };
  const r = await obtainAcmeCertificate(deps, options({ force: true, rehearsalDirectoryUrl: staging.directoryUrl }));
  assert.equal(r.rehearsed, true);
  assert.deepEqual(ca.orders, [staging.directoryUrl, pebble.directoryUrl]);
  const pem = await readFile(join(dir, 'certs', 'site.pem'), 'utf8');
  assert.equal((await verifiedBy(pem, await pebble.rootPem(), HOSTS[0] as string)).authorized, true);
  assert.equal((await verifiedBy(pem, await staging.rootPem(), HOSTS[0] as string)).authorized, false, 'the staging certificate was discarded');
});

test('without the directory\'s CA the order fails with exit 4 and a hint naming DEPLOY_KIT_ACME_CA_FILE; verification is never skipped', async () => {
  const ca = createAcmeClientCa({ selfCheck: false, retryAttempts: 0 });
  const deps = { fs: createNodeFs(), clock: { now: () => new Date() }, ca, log: () => undefined };
  const before = await readFile(join(dir, 'certs', 'site.pem'), 'utf8');
  await assert.rejects(obtainAcmeCertificate(deps, options({ force: true, directoryCaPem: undefined })), (e: unknown) =>
    e instanceof DeployKitError && e.exitCode === 4 && /DEPLOY_KIT_ACME_CA_FILE/.test(e.hint ?? ''));
  assert.equal(await readFile(join(dir, 'certs', 'site.pem'), 'utf8'), before);
});
