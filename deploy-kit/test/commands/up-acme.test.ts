// Account keys are generated per run (no key material in git), ed25519 because it is instant.
import { generateKeyPairSync } from 'node:crypto';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, test } from 'node:test';
import { leafFingerprint } from '../../src/certs/acme/index.js';
import type { AcmeCa } from '../../src/certs/acme/index.js';
import { generateSelfSigned } from '../../src/certs/pem/index.js';
import { runUp } from '../../src/commands/up/run.js';
import type { UpOptions } from '../../src/commands/up/run.js';
import type { ProxyProbe } from '../../src/compose/index.js';
import { buildSpec, formatSpec, parseSpec } from '../../src/config/index.js';
import { DeployKitError } from '../../src/errors.js';
import { createNodeFs, defaultKitPaths } from '../../src/io/index.js';
import { createFixedClock, createRecordingExec, createTestDeps, execResults } from '../../src/io/testing.js';
import type { ExecCall } from '../../src/io/testing.js';

const NOW = new Date('2026-06-01T00:00:00Z');
const HOSTS = ['s3.example.test', 'console.example.test'];
const DIRECTORY = 'https://acme.example.test/dir';
const CONTAINER = 'c0ffee0123456789';
const dirs: string[] = [];

afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function acmeDeployment(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dk-up-acme-'));
  dirs.push(dir);
  const { spec, problems } = parseSpec(buildSpec({
    s3Host: HOSTS[0], consoleHost: HOSTS[1], proxy: 'haproxy', tls: 'acme', acmeEmail: 'ops@example.test', acmeDirectory: DIRECTORY, nodes: 1, drivesPerNode: 1,
  }));
  assert.deepEqual(problems, []);
  await writeFile(join(dir, 'deploy-kit.yaml'), formatSpec(spec!));
  await writeFile(join(dir, '.env'), 'SVC_ACCESS_KEY=abcdefghijklmnopqrst\nSVC_SECRET_KEY=secretsecretsecretsecretsecretsecret1234\n', { mode: 0o600 });
  return dir;
}

function options(dir: string, over: Partial<UpOptions> = {}): UpOptions {
  return { dir, project: 'proj', image: undefined, proxyImage: undefined, baseImage: undefined, publishHttp: undefined, publishHttps: '127.0.0.1:18443',
    templates: undefined, noRender: false, timeoutSeconds: 3, force: false, staging: false, json: false, ...over };
}

/**
 * compose v1 + one running HAProxy container, recording in `events` what happened in which order; `pemAtStart` is
 * the leaf the proxy was started with, `served` the one it serves after its last load.
 */
function host(dir: string, opts: { apiFails?: boolean } = {}) {
  const events: string[] = [];
  const state = { pemAtStart: undefined as string | undefined, served: undefined as string | undefined };
  const pem = (): string | undefined => leafFingerprint(readFileSync(join(dir, 'certs/site.pem'), 'utf8'));
  const exec = createRecordingExec((c: ExecCall) => {
    const a = c.args.join(' ');
    if (c.file === 'docker' && a === 'compose version') return execResults.fail(1, 'unknown command');
    if (c.file === 'docker-compose' && a === 'version --short') return execResults.ok('1.29.2\n');
    if (a.startsWith('image inspect')) return execResults.ok('sha256:1');
    if (c.file === 'docker-compose' && a.endsWith('up -d --remove-orphans')) {
      events.push('compose up');
      state.pemAtStart = pem();
      state.served = state.pemAtStart;
      return execResults.ok();
    }
    if (c.file === 'docker-compose' && a.endsWith('ps -q proxy')) return execResults.ok(`${CONTAINER}\n`);
    if (a === `inspect -f {{.State.Running}} ${CONTAINER}`) return execResults.ok('true\n');
    if (a === `inspect -f {{json .Mounts}} ${CONTAINER}`) return execResults.ok(JSON.stringify([{ Destination: '/usr/local/etc/haproxy/certs' }]));
    if (c.file === 'docker' && c.args[0] === 'exec') {
      events.push('runtime api swap');
      if (opts.apiFails === true) return execResults.fail(1, 'bash: connect: Connection refused');
      state.served = pem();
      return execResults.ok('Success!\n');
    }
    if (c.file === 'docker' && c.args[0] === 'kill') {
      events.push('USR2 reload');
      state.served = pem();
      return execResults.ok(CONTAINER);
    }
    return execResults.ok();
  });
  const probe: ProxyProbe = {
    get: async (r) => {
      events.push(`probe ${r.host}`);
      return { ok: true, status: 200, certificate: undefined };
    },
  };
  return { exec, events, state, probe };
}

function fakeCa(events: string[], fail = false): AcmeCa & { orders: number } {
  const ca = {
    orders: 0,
    async createAccountKey() { return generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(); },
    async order(req: Parameters<AcmeCa['order']>[0]) {
      ca.orders += 1;
      events.push(`order ${req.hosts.join(',')} from ${req.directoryUrl}`);
      if (fail) throw new DeployKitError('DK_ERR_EXTERNAL_TOOL', `ACME order at ${req.directoryUrl} failed: urn:ietf:params:acme:error:connection`);
      const b = generateSelfSigned({ hosts: req.hosts, now: NOW, days: 90 });
      return { chainPem: b.leafCertPem + b.caCertPem, keyPem: b.leafKeyPem };
    },
  };
  return ca;
}

const noWait = { now: (() => { let t = 0; return () => (t += 1000); })(), sleep: async () => undefined };

function depsFor(dir: string, exec: ReturnType<typeof createRecordingExec>) {
  return createTestDeps({ fs: createNodeFs(), exec, cwd: dir, clock: createFixedClock(NOW), paths: defaultKitPaths(process.env) });
}

test('up (HAProxy, ACME): placeholder before compose up, order once the proxy runs, runtime-API swap, then the TLS readiness wait', async () => {
  const dir = await acmeDeployment();
  const h = host(dir);
  const ca = fakeCa(h.events);
  const deps = depsFor(dir, h.exec);
  await runUp(options(dir), deps, { probe: h.probe, waiter: noWait, ca });
  assert.deepEqual(h.events, [
    'compose up',
    `order ${HOSTS.join(',')} from ${DIRECTORY}`,
    'runtime api swap',
    `probe ${HOSTS[0]}`,
    `probe ${HOSTS[1]}`,
  ]);
  const issued = leafFingerprint(await readFile(join(dir, 'certs/site.pem'), 'utf8'));
  assert.notEqual(h.state.pemAtStart, undefined, 'HAProxy started with a certificate file (the placeholder)');
  assert.notEqual(h.state.pemAtStart, issued, 'the placeholder is not the issued certificate');
  assert.equal(h.state.served, issued, 'the readiness wait saw the issued certificate');
  const record = JSON.parse(await readFile(join(dir, 'acme/certificate.json'), 'utf8')) as { fingerprint256: string };
  assert.equal(record.fingerprint256, issued);
  const err = deps.out.stderrText();
  assert.match(err, /self-signed placeholder certs\/site\.pem/);
  assert.match(err, /ordering a certificate for s3\.example\.test, console\.example\.test/);
  assert.match(err, /loaded into HAProxy through its runtime API/);
  assert.match(err, /ok ACME certificate/);
  assert.match(deps.out.stdoutText(), /svc is up/);
});

test('up (HAProxy, ACME): a second up keeps a certificate with > 30 days left: no order, no load, same file', async () => {
  const dir = await acmeDeployment();
  const first = host(dir);
  const ca = fakeCa(first.events);
  await runUp(options(dir), depsFor(dir, first.exec), { probe: first.probe, waiter: noWait, ca });
  const before = await readFile(join(dir, 'certs/site.pem'), 'utf8');

  const second = host(dir);
  const deps = depsFor(dir, second.exec);
  await runUp(options(dir), deps, { probe: second.probe, waiter: noWait, ca });
  assert.equal(ca.orders, 1);
  assert.deepEqual(second.events, ['compose up', `probe ${HOSTS[0]}`, `probe ${HOSTS[1]}`]);
  assert.equal(await readFile(join(dir, 'certs/site.pem'), 'utf8'), before);
  assert.match(deps.out.stderrText(), /certificate valid for \d+ more days; not renewing/);
  assert.doesNotMatch(deps.out.stderrText(), /placeholder|ordering/);

  const forced = host(dir);
  await runUp(options(dir, { force: true }), depsFor(dir, forced.exec), { probe: forced.probe, waiter: noWait, ca });
  assert.equal(ca.orders, 2, '--force renews anyway');
  assert.notEqual(await readFile(join(dir, 'certs/site.pem'), 'utf8'), before);
});

test('up (HAProxy, ACME): when the runtime API refuses, HAProxy is reloaded (USR2) before the readiness wait', async () => {
  const dir = await acmeDeployment();
  const h = host(dir, { apiFails: true });
  const deps = depsFor(dir, h.exec);
  await runUp(options(dir), deps, { probe: h.probe, waiter: noWait, ca: fakeCa(h.events) });
  assert.deepEqual(h.events.slice(1), [
    `order ${HOSTS.join(',')} from ${DIRECTORY}`, 'runtime api swap', 'USR2 reload', `probe ${HOSTS[0]}`, `probe ${HOSTS[1]}`,
  ]);
  assert.match(deps.out.stderrText(), /the runtime API did not take the certificate \(bash: connect: Connection refused\); reloading instead/);
});

test('up (HAProxy, ACME): a failed order fails up with the CA\'s reason; the placeholder stays, nothing is probed', async () => {
  const dir = await acmeDeployment();
  const h = host(dir);
  const deps = depsFor(dir, h.exec);
  await assert.rejects(runUp(options(dir), deps, { probe: h.probe, waiter: noWait, ca: fakeCa(h.events, true) }), (err: unknown) => {
    assert.ok(err instanceof DeployKitError);
    assert.equal(err.code, 'DK_ERR_EXTERNAL_TOOL');
    assert.match(err.message, /acme:error:connection/);
    return true;
  });
  assert.deepEqual(h.events, ['compose up', `order ${HOSTS.join(',')} from ${DIRECTORY}`]);
  assert.equal(leafFingerprint(await readFile(join(dir, 'certs/site.pem'), 'utf8')), h.state.pemAtStart);
  assert.match(deps.out.stderrText(), /failed ACME certificate/);
});

test('up (HAProxy, ACME): a CA file in DEPLOY_KIT_ACME_CA_FILE that is no certificate is a clear error', async () => {
  const dir = await acmeDeployment();
  await writeFile(join(dir, 'ca.pem'), 'not a certificate');
  const h = host(dir);
  const deps = createTestDeps({ fs: createNodeFs(), exec: h.exec, cwd: dir, clock: createFixedClock(NOW), paths: defaultKitPaths(process.env),
    env: { DEPLOY_KIT_ACME_CA_FILE: 'ca.pem' } });
  await assert.rejects(runUp(options(dir), deps, { probe: h.probe, waiter: noWait, ca: fakeCa(h.events) }), { code: 'DK_ERR_CERT_INVALID' });
  assert.ok(!h.events.some((e) => e.startsWith('order')));
});
