// Account keys are generated per run (no key material in git), ed25519 because it is instant.
import { generateKeyPairSync } from 'node:crypto';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { leafFingerprint } from '../../src/certs/acme/index.js';
import type { AcmeCa } from '../../src/certs/acme/index.js';
import { combinePem, generateSelfSigned } from '../../src/certs/pem/index.js';
import { certCommand } from '../../src/commands/cert/command.js';
import type { CertRunners } from '../../src/commands/cert/command.js';
import { runCertRotate } from '../../src/commands/cert/rotate.js';
import type { CertRotateOptions, RotateTools } from '../../src/commands/cert/rotate.js';
import type { FingerprintProbe } from '../../src/commands/cert/rotate-probe.js';
import { buildSpec, formatSpec, parseSpec } from '../../src/config/index.js';
import type { SpecAnswers } from '../../src/config/index.js';
import { DeployKitError } from '../../src/errors.js';
import { createCapturedOutput, createFixedClock, createMemoryFs, createRecordingExec, createTestDeps, execResults } from '../../src/io/testing.js';
import type { ExecCall, MemoryFs } from '../../src/io/testing.js';

const NOW = new Date('2026-06-01T00:00:00Z');
const DIR = '/work/deploy';
const PEM = `${DIR}/certs/site.pem`;
const HOSTS = ['s3.example.test', 'console.example.test'];
const CONTAINER = 'c0ffee0123456789';

function specYaml(over: Partial<SpecAnswers> = {}): string {
  const { spec, problems } = parseSpec(buildSpec({
    s3Host: HOSTS[0], consoleHost: HOSTS[1], proxy: 'haproxy', tls: 'pem', nodes: 1, drivesPerNode: 1, ...over,
  }));
  assert.deepEqual(problems, []);
  return formatSpec(spec!);
}

function pemFor(hosts = HOSTS, days = 90): string {
  const b = generateSelfSigned({ hosts, now: NOW, days });
  return combinePem([b.leafCertPem, b.caCertPem], b.leafKeyPem);
}

const OLD = pemFor();

/**
 * A docker host in miniature: compose v2, one proxy container whose served certificate is whatever the mounted file
 * held at its last (re)load. A single-file mount pins the inode, so a renamed-over file is not seen: the "inode"
 * here is the content at the last in-place write (cp) or at container creation.
 */
interface World {
  fs: MemoryFs;
  calls: ExecCall[];
  served: string;
  mounted: string;
  running: boolean;
  mount: 'file' | 'directory';
  fail: Partial<Record<'kill' | 'up' | 'ps' | 'api', boolean>>;
  reloadsIgnored: boolean;
}

function world(spec: string, over: Partial<World> = {}): World & { exec: ReturnType<typeof createRecordingExec> } {
  const fs = createMemoryFs({
    [`${DIR}/deploy-kit.yaml`]: spec,
    [`${DIR}/compose.yaml`]: 'services:\n  proxy:\n    ports: ["127.0.0.1:18080:80", "127.0.0.1:18443:443"]\n',
    [PEM]: { content: OLD, mode: 0o600 },
  });
  const w: World = { fs, calls: [], served: OLD, mounted: OLD, running: true, mount: 'directory', fail: {}, reloadsIgnored: false, ...over };
  const current = (): string => (w.mount === 'file' ? w.mounted : fs.files.get(PEM)?.content ?? '');
  const exec = createRecordingExec((call) => {
    const a = call.args;
    if (call.file === 'docker' && a[0] === 'compose' && a[1] === 'version') return execResults.ok('Docker Compose version v2.x');
    if (call.file === 'docker' && a[0] === 'compose' && a.includes('ps')) {
      if (w.fail.ps === true) return execResults.fail(1, 'Cannot connect to the Docker daemon');
      return execResults.ok(w.running ? `${CONTAINER}\n` : '');
    }
    if (call.file === 'docker' && a[0] === 'inspect' && a[2] === '{{.State.Running}}') return execResults.ok(`${String(w.running)}\n`);
    if (call.file === 'docker' && a[0] === 'inspect' && a[2] === '{{json .Mounts}}') {
      const dest = w.mount === 'file' ? '/usr/local/etc/haproxy/certs/site.pem' : '/usr/local/etc/haproxy/certs';
      return execResults.ok(JSON.stringify([{ Type: 'bind', Destination: '/usr/local/etc/haproxy/haproxy.cfg' }, { Type: 'bind', Destination: dest }]));
    }
    if (call.file === 'docker' && a[0] === 'exec' && a[2] === 'bash') {
      if (w.fail.api === true) return execResults.fail(1, 'bash: connect: Connection refused');
      assert.match(a[4] ?? '', /set ssl cert %s <<[\s\S]*cat "\$P"[\s\S]*commit ssl cert/);
      assert.doesNotMatch(a[4] ?? '', /PRIVATE KEY/, 'the key never travels on a command line');
      if (!w.reloadsIgnored) w.served = current();
      return execResults.ok('Transaction created for certificate /usr/local/etc/haproxy/certs/site.pem!\n\nCommitting /usr/local/etc/haproxy/certs/site.pem.\nSuccess!\n');
    }
    if (call.file === 'docker' && a[0] === 'kill') {
      if (w.fail.kill === true) return execResults.fail(1, 'No such container');
      if (!w.reloadsIgnored) w.served = current();
      return execResults.ok(CONTAINER);
    }
    if (call.file === 'docker' && a[0] === 'compose' && a.includes('up')) {
      if (w.fail.up === true) return execResults.fail(1, 'boom');
      w.mounted = fs.files.get(PEM)?.content ?? '';
      w.served = w.mounted;
      return execResults.ok();
    }
    if (call.file === 'cp') {
      const src = fs.files.get(a[0] as string);
      const dst = fs.files.get(a[1] as string);
      if (src === undefined || dst === undefined) return execResults.fail(1, 'cp: no such file');
      dst.content = src.content;
      w.mounted = src.content;
      return execResults.ok();
    }
    return execResults.notFound();
  });
  Object.defineProperty(w, 'calls', { get: () => exec.calls });
  return Object.assign(w, { exec });
}

function tools(w: World, ca?: AcmeCa): RotateTools & { probes: string[] } {
  const probes: string[] = [];
  const probe: FingerprintProbe = {
    async served(address, port, servername) {
      probes.push(`${address}:${port}/${servername}`);
      return { ok: true, fingerprint256: leafFingerprint(w.served) as string };
    },
  };
  return {
    probes,
    probe,
    sleep: async () => undefined,
    ca: ca ?? { createAccountKey: async () => { throw new Error('no CA in this test'); }, order: async () => { throw new Error('no CA in this test'); } },
  };
}

function opts(over: Partial<CertRotateOptions> = {}): CertRotateOptions {
  return {
    dir: DIR, project: 'deploy', source: { kind: 'combined', pem: '/in/new.pem' }, recreate: false, reload: false, force: false, staging: false,
    address: undefined, httpsPort: undefined, verifyTimeoutSeconds: 2, json: false, ...over,
  };
}

function depsFor(w: World & { exec: ReturnType<typeof createRecordingExec> }, files: Record<string, string> = {}) {
  for (const [p, c] of Object.entries(files)) w.fs.files.set(p, { content: c, mode: 0o644 });
  w.fs.dirs.add('/in');
  return createTestDeps({ fs: w.fs, exec: w.exec, clock: createFixedClock(NOW), out: createCapturedOutput(), cwd: DIR });
}

const kills = (w: World): ExecCall[] => w.calls.filter((c) => c.file === 'docker' && c.args[0] === 'kill');
const swaps = (w: World): ExecCall[] => w.calls.filter((c) => c.file === 'docker' && c.args[0] === 'exec');
const loads = (w: World): ExecCall[] => [...kills(w), ...swaps(w)];

test('a new PEM replaces site.pem atomically (mode 600), HAProxy takes it through the runtime API, and the TLS check sees the new fingerprint', async () => {
  const w = world(specYaml());
  const next = pemFor();
  const deps = depsFor(w, { '/in/new.pem': next });
  const t = tools(w);
  await runCertRotate(opts(), deps, t);
  assert.equal(w.fs.files.get(PEM)?.content, next);
  assert.equal(w.fs.files.get(PEM)?.mode, 0o600);
  assert.deepEqual(swaps(w).map((c) => c.args.slice(0, 3)), [['exec', CONTAINER, 'bash']]);
  assert.deepEqual(kills(w), [], 'no reload needed');
  assert.ok(!w.calls.some((c) => c.file === 'cp'), 'directory mount: plain atomic replace');
  assert.match(deps.out.stdoutText(), /runtime API/);
  assert.equal(w.served, next);
  assert.ok(t.probes.includes('127.0.0.1:18443/s3.example.test') && t.probes.includes('127.0.0.1:18443/console.example.test'), t.probes.join());
  assert.match(deps.out.stdoutText(), /serves the new certificate/);
  assert.ok(w.calls.some((c) => c.args.join(' ') === 'compose -p deploy -f /work/deploy/compose.yaml ps -q proxy'));
});

test('a PEM bind-mounted as a single file is written in place (same inode) from a complete staged copy, then reloaded with --reload (USR2)', async () => {
  const w = world(specYaml(), { mount: 'file' });
  const next = pemFor();
  const deps = depsFor(w, { '/in/new.pem': next });
  await runCertRotate(opts({ reload: true }), deps, tools(w));
  assert.deepEqual(kills(w).map((c) => c.args), [['kill', '-s', 'USR2', CONTAINER]]);
  assert.deepEqual(swaps(w), []);
  assert.match(deps.out.stdoutText(), /master-worker, USR2/);
  const cp = w.calls.find((c) => c.file === 'cp');
  assert.deepEqual(cp?.args, [`${DIR}/certs/.site.pem.next`, PEM]);
  assert.equal(w.fs.files.has(`${DIR}/certs/.site.pem.next`), false, 'staged copy removed');
  assert.equal(w.fs.files.get(PEM)?.mode, 0o600);
  assert.equal(w.served, next);
});

test('--cert/--key pairs are assembled; --address/--https-port aim the TLS check', async () => {
  const w = world(specYaml());
  const b = generateSelfSigned({ hosts: HOSTS, now: NOW, days: 90 });
  const t = tools(w);
  await runCertRotate(opts({ source: { kind: 'pair', cert: '/in/chain.pem', key: '/in/key.pem' }, address: '10.1.2.3', httpsPort: 9443 }),
    depsFor(w, { '/in/chain.pem': b.caCertPem + b.leafCertPem, '/in/key.pem': b.leafKeyPem }), t);
  assert.ok(w.fs.files.get(PEM)?.content.startsWith(b.leafCertPem), 'leaf first');
  assert.ok(t.probes.every((p) => p.startsWith('10.1.2.3:9443/')));
});

test('an unusable PEM is refused (exit 2) before anything is replaced or reloaded', async () => {
  for (const bad of [pemFor(['s3.example.test']), pemFor(HOSTS, -1), generateSelfSigned({ hosts: HOSTS, now: NOW, days: 9 }).leafCertPem]) {
    const w = world(specYaml());
    await assert.rejects(runCertRotate(opts(), depsFor(w, { '/in/new.pem': bad }), tools(w)),
      (e: unknown) => e instanceof DeployKitError && e.code === 'DK_ERR_CERT_INVALID' && e.exitCode === 2);
    assert.equal(w.fs.files.get(PEM)?.content, OLD);
    assert.deepEqual(loads(w), []);
  }
});

test('--recreate recreates only the proxy with compose instead of reloading', async () => {
  const w = world(specYaml(), { mount: 'file' });
  const next = pemFor();
  const deps = depsFor(w, { '/in/new.pem': next });
  await runCertRotate(opts({ recreate: true, json: true }), deps, tools(w));
  assert.deepEqual(loads(w), []);
  assert.ok(w.calls.some((c) => c.args.join(' ') === 'compose -p deploy -f /work/deploy/compose.yaml up -d --force-recreate --no-deps proxy'));
  const out = JSON.parse(deps.out.stdoutText()) as Record<string, unknown>;
  assert.equal(out['loadedBy'], 'recreate');
  assert.equal(out['verified'], true);
  assert.equal(out['fingerprint256'], leafFingerprint(next));
});

test('the runtime API refusing falls back to the USR2 reload', async () => {
  const w = world(specYaml(), { fail: { api: true } });
  const next = pemFor();
  const deps = depsFor(w, { '/in/new.pem': next });
  await runCertRotate(opts({ json: true }), deps, tools(w));
  assert.equal(kills(w).length, 1);
  assert.equal(w.served, next);
  assert.equal((JSON.parse(deps.out.stdoutText()) as Record<string, unknown>)['loadedBy'], 'reload');
});

test('docker failures exit 4: USR2 refused, compose ps failing, recreate failing', async () => {
  for (const fail of [{ kill: true, api: true }, { ps: true }, { up: true }] as const) {
    const w = world(specYaml(), { fail });
    await assert.rejects(runCertRotate(opts({ recreate: 'up' in fail }), depsFor(w, { '/in/new.pem': pemFor() }), tools(w)),
      (e: unknown) => e instanceof DeployKitError && e.code === 'DK_ERR_EXTERNAL_TOOL' && e.exitCode === 4, JSON.stringify(fail));
  }
});

test('when the proxy keeps serving the old certificate the rotation fails (exit 4) naming both fingerprints', async () => {
  const w = world(specYaml(), { reloadsIgnored: true });
  const next = pemFor();
  await assert.rejects(runCertRotate(opts(), depsFor(w, { '/in/new.pem': next }), tools(w)), (e: unknown) =>
    e instanceof DeployKitError && e.exitCode === 4 && e.details[0] === `expected ${leafFingerprint(next)}`
    && e.details.some((l) => l.includes(leafFingerprint(OLD) as string)) && /--recreate/.test(e.hint ?? ''));
});

test('a stopped proxy: the file is replaced, nothing is reloaded, a warning says `up` will load it', async () => {
  const w = world(specYaml(), { running: false });
  const deps = depsFor(w, { '/in/new.pem': pemFor() });
  await runCertRotate(opts(), deps, tools(w));
  assert.deepEqual(loads(w), []);
  assert.match(deps.out.stderrText(), /not running/);
});

test('Traefik with a PEM is recreated (its file provider does not watch certificate files)', async () => {
  const w = world(specYaml({ proxy: 'traefik' }));
  const deps = depsFor(w, { '/in/new.pem': pemFor() });
  await runCertRotate(opts(), deps, tools(w));
  assert.deepEqual(loads(w), []);
  assert.ok(w.calls.some((c) => c.args.includes('--force-recreate')));
  assert.match(deps.out.stdoutText(), /traefik#5495/);
});

test('usage errors: PEM mode without a new certificate; Traefik + ACME (its own resolver)', async () => {
  const w = world(specYaml());
  await assert.rejects(runCertRotate(opts({ source: undefined }), depsFor(w), tools(w)),
    (e: unknown) => e instanceof DeployKitError && e.code === 'DK_ERR_USAGE' && /--pem/.test(e.hint ?? ''));
  const t = world(specYaml({ proxy: 'traefik', tls: 'acme', acmeEmail: 'ops@example.test' }));
  await assert.rejects(runCertRotate(opts({ source: undefined }), depsFor(t), tools(t)),
    (e: unknown) => e instanceof DeployKitError && e.code === 'DK_ERR_USAGE' && /Traefik/.test(e.message));
  await assert.rejects(runCertRotate(opts(), depsFor(t, { '/in/new.pem': pemFor() }), tools(t)),
    (e: unknown) => e instanceof DeployKitError && e.code === 'DK_ERR_USAGE');
});

test('ACME mode: renews through the CA, reloads, verifies; a second rotate keeps it and does not reload again', async () => {
  const spec = specYaml({ tls: 'acme', acmeEmail: 'ops@example.test', acmeDirectory: 'https://ca.example.test/dir' });
  const w = world(spec);
  const orders: string[] = [];
  const ca: AcmeCa = {
    createAccountKey: async () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    async order(req) {
      orders.push(req.directoryUrl);
      const b = generateSelfSigned({ hosts: req.hosts, now: NOW, days: 90 });
      return { chainPem: b.leafCertPem + b.caCertPem, keyPem: b.leafKeyPem };
    },
  };
  const deps = depsFor(w);
  await runCertRotate(opts({ source: undefined }), deps, tools(w, ca));
  assert.deepEqual(orders, ['https://ca.example.test/dir'], 'the placeholder-like current PEM was not issued through ACME');
  assert.notEqual(w.served, OLD);
  assert.equal(w.served, w.fs.files.get(PEM)?.content);
  assert.equal(loads(w).length, 1);

  const again = depsFor(w);
  await runCertRotate(opts({ source: undefined }), again, tools(w, ca));
  assert.equal(orders.length, 1);
  assert.equal(loads(w).length, 1);
  assert.match(again.out.stdoutText(), /certificate valid for 90 more days; not renewing/);
  assert.match(again.out.stdoutText(), /already serves/);

  await runCertRotate(opts({ source: undefined, force: true }), depsFor(w), tools(w, ca));
  assert.equal(orders.length, 2);
  assert.equal(loads(w).length, 2);
});

test('command line: flags map to options; --pem with --cert is a usage error', async () => {
  const seen: CertRotateOptions[] = [];
  const runners: CertRunners = { selfSigned: async () => undefined, import: async () => undefined, rotate: async (o) => { seen.push(o); } };
  const run = (argv: string[]): Promise<unknown> => certCommand(createTestDeps(), runners).parseAsync(argv, { from: 'user' });
  await run(['rotate', '--dir', 'prod', '--pem', 'x.pem', '--recreate', '--reload', '--https-port', '8443', '--verify-timeout', '5', '-p', 'prod1']);
  assert.deepEqual(seen[0], {
    dir: 'prod', project: 'prod1', source: { kind: 'combined', pem: 'x.pem' }, recreate: true, reload: true, force: false, staging: false,
    address: undefined, httpsPort: 8443, verifyTimeoutSeconds: 5, json: false,
  });
  await run(['rotate', '--force', '--staging']);
  assert.equal(seen[1]?.source, undefined);
  assert.equal(seen[1]?.force, true);
  assert.equal(seen[1]?.staging, true);
  await assert.rejects(run(['rotate', '--pem', 'a', '--cert', 'b']), (e: unknown) => e instanceof DeployKitError && e.code === 'DK_ERR_USAGE');
  await assert.rejects(run(['rotate', '--cert', 'b']), (e: unknown) => e instanceof DeployKitError && e.code === 'DK_ERR_USAGE');
});
