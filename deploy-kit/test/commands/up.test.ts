import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildSpec, formatSpec, parseSpec } from '../../src/config/index.js';
import { upCommand } from '../../src/commands/up/command.js';
import { runUp } from '../../src/commands/up/run.js';
import type { UpOptions } from '../../src/commands/up/run.js';
import type { ProbeRequest, ProbeResult, ProxyProbe } from '../../src/compose/index.js';
import { DeployKitError } from '../../src/errors.js';
import { createNodeFs, defaultKitPaths } from '../../src/io/index.js';
import { createRecordingExec, createTestDeps, execResults } from '../../src/io/testing.js';
import type { ExecCall } from '../../src/io/testing.js';

let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dk-up-'));
  const { spec, problems } = parseSpec(buildSpec({ s3Host: 's3.example.test', consoleHost: 'console.example.test', proxy: 'haproxy', tls: 'pem', nodes: 1, drivesPerNode: 1 }));
  assert.deepEqual(problems, []);
  await writeFile(join(dir, 'deploy-kit.yaml'), formatSpec(spec!));
  await writeFile(join(dir, '.env'), 'SVC_ACCESS_KEY=abcdefghijklmnopqrst\nSVC_SECRET_KEY=secretsecretsecretsecretsecretsecret1234\n', { mode: 0o600 });
  await import('node:fs/promises').then((f) => f.mkdir(join(dir, 'certs')));
  await writeFile(join(dir, 'certs/site.pem'), 'not read by up', { mode: 0o600 });
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function options(over: Partial<UpOptions> = {}): UpOptions {
  return { dir, project: 'proj', image: undefined, proxyImage: undefined, baseImage: undefined, publishHttp: undefined, publishHttps: '127.0.0.1:18443',
    templates: undefined, noRender: false, timeoutSeconds: 3, force: false, staging: false, json: false, ...over };
}

/** docker/compose as a v1 host (or v2 with `v2: true`) where everything succeeds. */
function composeHost(opts: { v2?: boolean; imagesPresent?: boolean; psIds?: string } = {}): (c: ExecCall) => ReturnType<typeof execResults.ok> {
  return (c) => {
    const a = c.args.join(' ');
    if (c.file === 'docker' && a === 'compose version') return opts.v2 === true ? execResults.ok('Docker Compose version v2.26.1') : execResults.fail(1, 'unknown command');
    if (c.file === 'docker-compose' && a === 'version --short') return execResults.ok('1.29.2\n');
    if (a.startsWith('image inspect')) return opts.imagesPresent === false ? execResults.fail(1, 'No such image') : execResults.ok('sha256:1');
    if (a.includes(' ps -a -q')) return execResults.ok(opts.psIds ?? 'abc\n');
    if (a.startsWith('inspect')) return execResults.ok('abc|/proj_node1_1|node1|{"Status":"running","Health":{"Status":"unhealthy"}}\n');
    if (a.includes(' logs ')) return execResults.ok('node1_1  | svc: drive /data is not writable\n');
    return execResults.ok();
  };
}

function probeAnswering(status: number): ProxyProbe & { seen: ProbeRequest[] } {
  const seen: ProbeRequest[] = [];
  return { seen, get: async (r): Promise<ProbeResult> => { seen.push(r); return { ok: true, status, certificate: undefined }; } };
}

const noWait = { now: (() => { let t = 0; return () => (t += 1000); })(), sleep: async () => undefined };

test('up: parses its flags', async () => {
  let got: UpOptions | undefined;
  await upCommand(createTestDeps(), async (o) => { got = o; }).parseAsync(
    ['--dir', 'd', '-p', 'x', '--image', 'i:1', '--proxy-image', 'p:2', '--base-image', 'b:3', '--publish-http', '8080', '--publish-https', '127.0.0.1:8443', '--timeout', '7', '--no-render', '--force', '--staging'], { from: 'user' });
  assert.deepEqual(got, { dir: 'd', project: 'x', image: 'i:1', proxyImage: 'p:2', baseImage: 'b:3', publishHttp: '8080', publishHttps: '127.0.0.1:8443', timeoutSeconds: 7, templates: undefined, noRender: true, force: true, staging: true, json: false });
});

test('up: renders, starts compose v1 with -p and the published-ports file, waits through the proxy, prints endpoints', async () => {
  const exec = createRecordingExec(composeHost());
  const deps = createTestDeps({ fs: createNodeFs(), exec, cwd: dir, paths: defaultKitPaths(process.env) });
  const probe = probeAnswering(200);
  await runUp(options(), deps, { probe, waiter: noWait });
  const up = exec.calls.find((c) => c.args.includes('up'));
  assert.deepEqual(up, { file: 'docker-compose', args: ['-p', 'proj', '-f', join(dir, '.compose.published.yaml'), 'up', '-d', '--remove-orphans'] });
  const published = await readFile(join(dir, '.compose.published.yaml'), 'utf8');
  assert.match(published, /- 80:80\n\s+- 127\.0\.0\.1:18443:443/);
  assert.deepEqual(probe.seen.map((r) => [r.address, r.port, r.host, r.path]), [
    ['127.0.0.1', 18443, 's3.example.test', '/health/ready'],
    ['127.0.0.1', 18443, 'console.example.test', '/svc/console/health'],
  ]);
  const out = deps.out.stdoutText();
  assert.match(out, /S3 API: +https:\/\/s3\.example\.test:18443/);
  assert.match(out, /console: +https:\/\/console\.example\.test:18443\/svc\/console\//);
  assert.match(out, /rc alias set svc https:\/\/s3\.example\.test:18443 "\$SVC_ACCESS_KEY" "\$SVC_SECRET_KEY"/);
  assert.doesNotMatch(out, /secretsecret/);
  assert.match(deps.out.stderrText(), /ok ready through the proxy/);
});

test('up: with compose v2 and every image local, nothing is pulled (--pull never); without overrides compose.yaml is used', async () => {
  const exec = createRecordingExec(composeHost({ v2: true }));
  const deps = createTestDeps({ fs: createNodeFs(), exec, cwd: dir, paths: defaultKitPaths(process.env) });
  await runUp(options({ publishHttps: undefined }), deps, { probe: probeAnswering(200), waiter: noWait });
  const up = exec.calls.find((c) => c.args.includes('up'));
  assert.deepEqual(up?.args, ['compose', '-p', 'proj', '-f', join(dir, 'compose.yaml'), 'up', '-d', '--remove-orphans', '--pull', 'never']);
  assert.match(deps.out.stdoutText(), /S3 API: +https:\/\/s3\.example\.test\n/);
});

test('up: not ready in time → exit 4 naming the failing service with its last log lines', async () => {
  const exec = createRecordingExec(composeHost());
  const deps = createTestDeps({ fs: createNodeFs(), exec, cwd: dir, paths: defaultKitPaths(process.env) });
  await assert.rejects(runUp(options(), deps, { probe: probeAnswering(503), waiter: noWait }), (err: unknown) => {
    assert.ok(err instanceof DeployKitError);
    assert.equal(err.code, 'DK_ERR_EXTERNAL_TOOL');
    assert.equal(err.exitCode, 4);
    assert.match(err.message, /not ready through the proxy after 3 s/);
    assert.match(err.details.join('\n'), /HTTP 503/);
    assert.match(err.details.join('\n'), /service node1 \(proj_node1_1\): running, unhealthy/);
    assert.match(err.details.join('\n'), /drive \/data is not writable/);
    assert.match(err.hint ?? '', /deploy-kit logs node1/);
    return true;
  });
});

test('up: no compose installed is an external-tool error; a bad publish value a usage error', async () => {
  const deps = createTestDeps({ fs: createNodeFs(), exec: createRecordingExec(), cwd: dir, paths: defaultKitPaths(process.env) });
  await assert.rejects(runUp(options(), deps, { probe: probeAnswering(200), waiter: noWait }), { code: 'DK_ERR_EXTERNAL_TOOL' });
  await assert.rejects(runUp(options({ publishHttps: 'x:y' }), deps, { probe: probeAnswering(200), waiter: noWait }), { code: 'DK_ERR_USAGE' });
});

test('up: --image is written to the spec; a missing image without --base-image is left to compose to pull', async () => {
  const exec = createRecordingExec(composeHost({ imagesPresent: false }));
  const deps = createTestDeps({ fs: createNodeFs(), exec, cwd: dir, paths: defaultKitPaths(process.env) });
  await runUp(options({ image: 'local/svc:test' }), deps, { probe: probeAnswering(200), waiter: noWait });
  assert.match(await readFile(join(dir, 'deploy-kit.yaml'), 'utf8'), /server: local\/svc:test/);
  assert.match(await readFile(join(dir, 'compose.yaml'), 'utf8'), /image: "local\/svc:test"/);
  assert.match(deps.out.stderrText(), /local\/svc:test is not present locally: compose will pull it/);
});
