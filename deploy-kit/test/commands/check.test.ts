import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Command } from 'commander';
import { checkCommand } from '../../src/commands/check/command.js';
import { checkCompose, publishedPort } from '../../src/commands/check/compose.js';
import { viewOfRawSpec } from '../../src/commands/check/context.js';
import { checkDns } from '../../src/commands/check/dns.js';
import { checkHaproxy, haproxyAlerts } from '../../src/commands/check/haproxy.js';
import { checkPorts } from '../../src/commands/check/ports.js';
import type { CheckOptions } from '../../src/commands/check/run.js';
import { checkTraefik } from '../../src/commands/check/traefik.js';
import { runInit } from '../../src/commands/init/run.js';
import { toInitOptions } from '../../src/commands/init/command.js';
import { buildSpec } from '../../src/config/index.js';
import { createNodeFs, defaultKitPaths } from '../../src/io/index.js';
import { createCapturedOutput, createFakeNet, createMemoryFs, createRecordingExec, createTableDns, createTestDeps, execResults } from '../../src/io/testing.js';

const dirs: string[] = [];
after(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

const GOOD_RAW = buildSpec({ s3Host: 's3.example.test', consoleHost: 'console.example.test', proxy: 'haproxy', tls: 'pem', nodes: 1, drivesPerNode: 1 });

test('argv → options', async () => {
  const seen: CheckOptions[] = [];
  const root = new Command('deploy-kit').option('--json').exitOverride();
  root.addCommand(checkCommand(createTestDeps(), async (o) => { seen.push(o); }).exitOverride());
  await root.parseAsync(['--json', 'check', '--dir', 'd', '--schemas', 's'], { from: 'user' });
  await root.parseAsync(['check'], { from: 'user' });
  assert.deepEqual(seen, [{ dir: 'd', schemas: 's', templates: undefined, json: true }, { dir: '.', schemas: undefined, templates: undefined, json: false }]);
});

test('dns: other addresses and NXDOMAIN are warnings naming the addresses; local answers are fine', async () => {
  const dns = createTableDns({ 'a.example.test': ['127.0.0.1'], 'b.example.test': ['203.0.113.7', '203.0.113.8'] }, ['127.0.0.1']);
  const f = await checkDns(['a.example.test', 'b.example.test', 'c.example.test'], dns);
  assert.deepEqual(f.map((x) => [x.level, x.message]), [
    ['warning', 'b.example.test resolves to 203.0.113.7, 203.0.113.8, not to an address of this host'],
    ['warning', 'c.example.test does not resolve (ENOTFOUND)'],
  ]);
});

test('ports: busy and denied are warnings naming the port', async () => {
  const f = await checkPorts(createFakeNet({ 80: 'busy', 443: 'denied' }));
  assert.deepEqual(f.map((x) => x.message), ['port 80 is already in use on this host', 'port 443 cannot be bound by this user']);
  assert.deepEqual(await checkPorts(createFakeNet()), []);
});

test('compose: published host ports by entry form', () => {
  assert.deepEqual(['9000', '9000:9000', '127.0.0.1:9001:9001', '[::1]:80:80/tcp', 443].map((p) => publishedPort(p).host), ['random', '9000', '9001', '80', 'random']);
  assert.equal(publishedPort({ target: 9000, published: 19000 }).host, '19000');
});

test('compose: node ports, odd proxy ports, inline credentials, leaked .env values and the docker socket are errors', async () => {
  const fs = createMemoryFs({
    '/d/.env': 'SVC_SECRET_KEY=abcdefghijklmnopqrst\n',
    '/d/compose.yaml': [
      'services:',
      '  node1:',
      '    image: x',
      '    ports: ["9001:9001"]',
      '    environment:',
      '      SVC_ACCESS_KEY: AKIAFOO',
      '      SVC_SECRET_KEY: ${SVC_SECRET_KEY}',
      '      OTHER: abcdefghijklmnopqrst',
      '  proxy:',
      '    image: haproxy',
      '    ports: ["80:80", "443:443", "8080:8080"]',
      '    volumes: ["/var/run/docker.sock:/var/run/docker.sock"]',
      '',
    ].join('\n'),
  });
  const f = await checkCompose('/d', viewOfRawSpec(GOOD_RAW).view, fs);
  assert.deepEqual(f.map((x) => `${x.level}: ${x.message}`), [
    'error: service node1 publishes port 9001:9001 on the host',
    'error: service node1 sets SVC_ACCESS_KEY inline',
    'error: the proxy publishes port 8080:8080, not 80 or 443',
    'error: the proxy mounts the Docker socket',
    'error: compose.yaml contains the value of SVC_SECRET_KEY from .env',
  ]);
});

test('haproxy -c output: ALERT lines become findings, the summary line does not', () => {
  const out = "[NOTICE]   (1) : haproxy version is 2.6.12\n[ALERT]    (1) : config : parsing [/x/host.cfg:12] : unknown keyword 'balanse' in 'backend' section\n[ALERT]    (1) : config : Fatal errors found in configuration.\n";
  assert.deepEqual(haproxyAlerts(out), ["config : parsing [/x/host.cfg:12] : unknown keyword 'balanse' in 'backend' section", 'config : Fatal errors found in configuration.']);
});

test('haproxy: no haproxy on the host → docker run of the proxy image; neither → a warning, not an error', async () => {
  const cfg = 'global\ndefaults\nfrontend https\n    bind :443 ssl crt /usr/local/etc/haproxy/certs/site.pem\n';
  const files = { '/d/haproxy/haproxy.cfg': cfg, '/d/certs/site.pem': { content: 'x PRIVATE KEY', mode: 0o600 } };
  const view = viewOfRawSpec(GOOD_RAW).view;
  const viaDocker = createRecordingExec((c) => (c.file === 'docker' ? execResults.ok('Configuration file is valid') : execResults.notFound()));
  const fs = createMemoryFs(files);
  const f1 = await checkHaproxy('/d', view, { fs, exec: viaDocker, clock: { now: () => new Date() } });
  assert.deepEqual(viaDocker.calls.map((c) => c.file), ['haproxy', 'docker']);
  assert.deepEqual(viaDocker.calls[1]?.args.slice(-4), ['haproxy', '-c', '-f', '/usr/local/etc/haproxy/haproxy.cfg']);
  assert.ok(viaDocker.calls[1]?.args.includes('haproxy:2.6'));
  assert.equal(f1.filter((x) => x.message.includes('haproxy -c')).length, 0);
  assert.deepEqual([...fs.dirs].filter((d) => d.startsWith('/tmp/dk-check-')), [], 'temp dir removed');

  const none = await checkHaproxy('/d', view, { fs: createMemoryFs(files), exec: createRecordingExec(), clock: { now: () => new Date() } });
  assert.ok(none.some((x) => x.level === 'warning' && /haproxy -c could not run/.test(x.message)));

  const rejecting = createRecordingExec(() => execResults.fail(1, '[ALERT]    (7) : config : parsing [x:3] : unknown keyword\n'));
  const bad = await checkHaproxy('/d', view, { fs: createMemoryFs(files), exec: rejecting, clock: { now: () => new Date() } });
  assert.ok(bad.some((x) => x.level === 'error' && x.message === 'haproxy -c rejects haproxy/haproxy.cfg: config : parsing [x:3] : unknown keyword'));
  const hostCfg = rejecting.calls[0]?.args[2] ?? '';
  assert.match(hostCfg, /^\/tmp\/dk-check-\d+\/host\.cfg$/);
});

test('traefik: a rendered deployment validates against the schemas; a dangling service reference is an error', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'dk-check-traefik-'));
  dirs.push(dir);
  const deps = createTestDeps({ fs: createNodeFs(), cwd: dir, paths: defaultKitPaths({}), out: createCapturedOutput() });
  await runInit({ ...toInitOptions({}, false), s3Host: 's3.example.test', consoleHost: 'console.example.test', proxy: 'traefik', tls: 'acme', acmeEmail: 'ops@example.test' }, deps);
  const schemas = defaultKitPaths(process.env).traefikSchemasDir;
  assert.deepEqual(await checkTraefik(dir, schemas, deps.fs), []);
  const dyn = join(dir, 'traefik/dynamic.yml');
  const text = await readFile(dyn, 'utf8');
  const m = /service: (\S+)/.exec(text);
  assert.ok(m);
  await writeFile(dyn, text.replace(`service: ${m[1]}`, 'service: nowhere'));
  const f = await checkTraefik(dir, schemas, deps.fs);
  assert.ok(f.some((x) => x.level === 'error' && /nowhere/.test(x.message)), JSON.stringify(f));
  const noSchemas = await checkTraefik(dir, join(dir, 'no-schemas'), deps.fs);
  assert.ok(noSchemas.some((x) => x.level === 'warning' && /Schemas not found/.test(x.message)));
});
