import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { load } from 'js-yaml';
import { Command } from 'commander';
import { initCommand, toInitOptions } from '../../src/commands/init/command.js';
import { answersFromOptions, type InitOptions } from '../../src/commands/init/answers.js';
import { PROMPTS } from '../../src/commands/init/prompts.js';
import { runInit } from '../../src/commands/init/run.js';
import { generateSelfSigned } from '../../src/certs/index.js';
import { parseSpec } from '../../src/config/index.js';
import { DeployKitError } from '../../src/errors.js';
import { createNodeFs, defaultKitPaths } from '../../src/io/index.js';
import { createCapturedOutput, createScriptedPrompter, createTestDeps } from '../../src/io/testing.js';

const dirs: string[] = [];
after(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

async function tmp(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'dk-init-'));
  dirs.push(d);
  return d;
}

function opts(over: Partial<InitOptions>): InitOptions {
  return { ...toInitOptions({}, false), ...over };
}

function deps(cwd: string, tty = false, answers: (string | boolean)[] = []) {
  return createTestDeps({
    fs: createNodeFs(), cwd, paths: defaultKitPaths({}), out: createCapturedOutput({ isTTY: tty }), prompter: createScriptedPrompter(answers),
  });
}

async function spec(dir: string) {
  return parseSpec(load(await readFile(join(dir, 'deploy-kit.yaml'), 'utf8'))).spec;
}

test('argv → options', async () => {
  const seen: InitOptions[] = [];
  const root = new Command('deploy-kit').option('--json').exitOverride();
  root.addCommand(initCommand(createTestDeps(), async (o) => { seen.push(o); }).exitOverride());
  await root.parseAsync(['--json', 'init', '--s3-host', 'a.example.com', '--console-host', 'b.example.com', '--proxy', 'nginx', '--tls', 'acme',
    '--acme-email', 'x@example.com', '--staging', '--nodes', '4', '--drives-per-node', 'four', '--parity', 'EC:2', '--dir', 'out'], { from: 'user' });
  assert.deepEqual(seen[0], opts({
    dir: 'out', s3Host: 'a.example.com', consoleHost: 'b.example.com', proxy: 'nginx', tls: 'acme', acmeEmail: 'x@example.com', staging: true,
    nodes: '4', drivesPerNode: 'four', parity: 'EC:2', json: true,
  }));
});

test('no TTY: every missing or invalid value is reported together, nothing is asked or written', async () => {
  const dir = await tmp();
  const d = deps(dir);
  await assert.rejects(runInit(opts({ s3Host: 'S3!', proxy: 'nginx', nodes: 'x', cert: 'a.pem' }), d), (e) => {
    assert.ok(e instanceof DeployKitError);
    assert.equal(e.code, 'DK_ERR_MISSING_OPTIONS');
    assert.equal(e.exitCode, 2);
    const flags = e.details.map((l) => l.split(':')[0]).sort();
    assert.deepEqual(flags, ['--console-host', '--key', '--nodes', '--proxy', '--s3-host', '--tls'], e.details.join('\n'));
    return true;
  });
  assert.deepEqual((d.prompter as unknown as { asked: string[] }).asked, []);
  assert.equal(await createNodeFs().stat(join(dir, 'deploy-kit.yaml')), undefined);
});

test('flags only: spec, .env (600, secret shapes), .gitignore and the rendering; a second init keeps the secrets', async () => {
  const dir = await tmp();
  const flags = opts({ s3Host: 's3.example.test', consoleHost: 'console.example.test', proxy: 'haproxy', tls: 'acme', acmeEmail: 'ops@example.test', staging: true, nodes: '4', drivesPerNode: '2', parity: 'EC:2' });
  await runInit(flags, deps(dir));
  const s = await spec(dir);
  assert.equal(s?.cluster.nodes, 4);
  assert.equal(s?.tls.mode === 'acme' && s.tls.acme.staging, true);
  const env = await readFile(join(dir, '.env'), 'utf8');
  assert.equal((await stat(join(dir, '.env'))).mode & 0o777, 0o600);
  assert.match(env, /^SVC_ACCESS_KEY=[A-Z0-9]{20}$/m);
  assert.match(env, /^SVC_SECRET_KEY=[A-Za-z0-9]{40}$/m);
  assert.match(env, /^SVC_CONSOLE_SESSION_KEY=[0-9a-f]{64}$/m);
  assert.deepEqual((await readFile(join(dir, '.gitignore'), 'utf8')).split('\n').filter((l) => !l.startsWith('#') && l !== ''), ['.env', 'certs/', 'acme/']);
  assert.match(await readFile(join(dir, 'haproxy/haproxy.cfg'), 'utf8'), /s3\.example\.test/);
  assert.doesNotMatch(await readFile(join(dir, 'compose.yaml'), 'utf8'), new RegExp(env.match(/SVC_SECRET_KEY=(\w+)/)![1]!));

  await chmod(join(dir, '.env'), 0o644);
  await runInit(flags, deps(dir));
  assert.equal(await readFile(join(dir, '.env'), 'utf8'), env);
  assert.equal((await stat(join(dir, '.env'))).mode & 0o777, 0o600);
});

test('an existing .env missing one key gets only that key', async () => {
  const dir = await tmp();
  await writeFile(join(dir, '.env'), 'SVC_ACCESS_KEY=MINE\nSVC_SECRET_KEY=alsomine\n', { mode: 0o600 });
  await runInit(opts({ s3Host: 's3.example.test', consoleHost: 'console.example.test', proxy: 'traefik', tls: 'pem' }), deps(dir));
  const env = await readFile(join(dir, '.env'), 'utf8');
  assert.match(env, /^SVC_ACCESS_KEY=MINE\nSVC_SECRET_KEY=alsomine\nSVC_CONSOLE_SESSION_KEY=[0-9a-f]{64}\n$/);
});

test('pem mode: --cert/--key are validated and imported as the combined PEM; a cert missing a name is refused', async () => {
  const dir = await tmp();
  const good = generateSelfSigned({ hosts: ['s3.example.test', 'console.example.test'], now: new Date(), days: 60 });
  await writeFile(join(dir, 'chain.pem'), good.leafCertPem + good.caCertPem);
  await writeFile(join(dir, 'key.pem'), good.leafKeyPem);
  const base = { s3Host: 's3.example.test', consoleHost: 'console.example.test', proxy: 'haproxy', tls: 'pem' };
  await runInit(opts({ ...base, cert: 'chain.pem', key: 'key.pem' }), deps(dir));
  assert.equal(await readFile(join(dir, 'certs/site.pem'), 'utf8'), good.leafCertPem + good.caCertPem + good.leafKeyPem);
  assert.equal((await stat(join(dir, 'certs/site.pem'))).mode & 0o777, 0o600);

  const other = await tmp();
  const bad = generateSelfSigned({ hosts: ['s3.example.test'], now: new Date(), days: 60 });
  await writeFile(join(other, 'all.pem'), bad.leafCertPem + bad.leafKeyPem);
  await assert.rejects(runInit(opts({ ...base, pem: 'all.pem' }), deps(other)),
    (e) => e instanceof DeployKitError && e.details.some((l) => l.startsWith('--pem: certificate does not cover console.example.test')));
});

test('on a TTY, missing values are asked (and only those)', async () => {
  const dir = await tmp();
  const d = deps(dir, true, ['s3.example.test', 'console.example.test', 'traefik', 'acme', 'ops@example.test', false, '3', '2']);
  await runInit(opts({}), d);
  const asked = (d.prompter as unknown as { asked: string[] }).asked;
  assert.deepEqual(asked, [PROMPTS.s3Host, PROMPTS.consoleHost, PROMPTS.proxy, PROMPTS.tls, PROMPTS.acmeEmail, PROMPTS.staging, PROMPTS.nodes, PROMPTS.drivesPerNode]);
  const s = await spec(dir);
  assert.deepEqual({ hosts: s?.hosts, proxy: s?.proxy, nodes: s?.cluster.nodes, drives: s?.cluster.drivesPerNode },
    { hosts: { s3: 's3.example.test', console: 'console.example.test' }, proxy: 'traefik', nodes: 3, drives: 2 });

  const again = deps(dir, true, []);
  await runInit(opts({ proxy: 'haproxy' }), again);
  assert.deepEqual((again.prompter as unknown as { asked: string[] }).asked, []);
  assert.equal((await spec(dir))?.proxy, 'haproxy');
  assert.equal((await spec(dir))?.images.proxy, 'haproxy:2.6');
});

test('--base-image is passed through and written to the spec as images.base (air-gapped builds)', async () => {
  const seen: InitOptions[] = [];
  const root = new Command('deploy-kit').option('--json').exitOverride();
  root.addCommand(initCommand(createTestDeps(), async (o) => { seen.push(o); }).exitOverride());
  await root.parseAsync(['init', '--base-image', 'svc-test/node:20', '--image', 'svc/server:dev'], { from: 'user' });
  assert.equal(seen[0]?.baseImage, 'svc-test/node:20');
  assert.equal(seen[0]?.image, 'svc/server:dev');
  const { answers } = answersFromOptions(opts({ baseImage: 'svc-test/node:20' }));
  assert.equal(answers.baseImage, 'svc-test/node:20');
});
