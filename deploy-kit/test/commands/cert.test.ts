import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Command } from 'commander';
import { inspectCombinedPem } from '../../src/certs/index.js';
import { buildSpec, formatSpec, parseSpec } from '../../src/config/index.js';
import type { SpecAnswers } from '../../src/config/index.js';
import { certCommand } from '../../src/commands/cert/command.js';
import type { CertRunners } from '../../src/commands/cert/command.js';
import { runCertImport } from '../../src/commands/cert/import.js';
import { runCertSelfSigned } from '../../src/commands/cert/self-signed.js';
import { generateSelfSigned } from '../../src/certs/pem/index.js';
import { createFixedClock, createMemoryFs, createTestDeps } from '../../src/io/testing.js';
import type { MemoryFs } from '../../src/io/testing.js';
import { DeployKitError } from '../../src/errors.js';

const NOW = new Date('2026-06-01T00:00:00Z');
const DIR = '/work/deploy';

function specYaml(over: Partial<SpecAnswers> = {}): string {
  const { spec, problems } = parseSpec(buildSpec({
    s3Host: 's3.example.test', consoleHost: 'console.example.test', proxy: 'haproxy', tls: 'pem', nodes: 1, drivesPerNode: 1, ...over,
  }));
  assert.deepEqual(problems, []);
  return formatSpec(spec!);
}

function recording(): { runners: CertRunners; calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    runners: {
      selfSigned: async (o) => { calls.push(['self-signed', o]); },
      import: async (o) => { calls.push(['import', o]); },
    },
  };
}

async function parse(argv: string[]): Promise<unknown[]> {
  const { runners, calls } = recording();
  const cmd: Command = certCommand(createTestDeps(), runners);
  cmd.exitOverride();
  for (const c of cmd.commands) c.exitOverride();
  await cmd.parseAsync(argv, { from: 'user' });
  return calls;
}

test('argv → options: cert self-signed and cert import', async () => {
  const table: [string[], unknown][] = [
    [['self-signed'], ['self-signed', { dir: '.', days: 90, json: false }]],
    [['self-signed', '--dir', 'd', '--days', '7'], ['self-signed', { dir: 'd', days: 7, json: false }]],
    [['import', '--cert', 'c.pem', '--key', 'k.pem'], ['import', { dir: '.', source: { kind: 'pair', cert: 'c.pem', key: 'k.pem' }, json: false }]],
    [['import', '--pem', 'all.pem', '--dir', 'x'], ['import', { dir: 'x', source: { kind: 'combined', pem: 'all.pem' }, json: false }]],
  ];
  for (const [argv, expected] of table) assert.deepEqual(await parse(argv), [expected], argv.join(' '));
});

test('argv errors: bad --days, --pem with --cert, --cert without --key', async () => {
  await assert.rejects(parse(['self-signed', '--days', 'soon']), (e: Error & { code?: string }) => e.code === 'commander.invalidArgument');
  await assert.rejects(parse(['import', '--pem', 'a', '--cert', 'b']), (e) => e instanceof DeployKitError && e.code === 'DK_ERR_USAGE');
  await assert.rejects(parse(['import', '--cert', 'b']), (e) => e instanceof DeployKitError && /--key/.test(e.message));
});

function deps(fs: MemoryFs) {
  return createTestDeps({ fs, clock: createFixedClock(NOW), cwd: DIR });
}

test('self-signed writes leaf+CA+key mode 600 and ca.crt 644, valid for both hostnames', async () => {
  const fs = createMemoryFs({ [`${DIR}/deploy-kit.yaml`]: specYaml() });
  const d = deps(fs);
  await runCertSelfSigned({ dir: undefined, days: 30, json: false }, d);
  const pem = fs.files.get(`${DIR}/certs/site.pem`);
  assert.equal(pem?.mode, 0o600);
  assert.equal(fs.files.get(`${DIR}/certs/ca.crt`)?.mode, 0o644);
  const report = inspectCombinedPem(pem!.content, { hosts: ['s3.example.test', 'console.example.test'], now: NOW });
  assert.deepEqual(report.findings, []);
  assert.equal(report.chain.length, 2);
  assert.match(d.out.stdoutText(), /wrote certs\/site\.pem \(mode 600\)/);
});

test('import: a pair in the wrong order is stored chain first then key, mode 600', async () => {
  const b = generateSelfSigned({ hosts: ['s3.example.test', 'console.example.test'], now: NOW, days: 60 });
  const fs = createMemoryFs({
    [`${DIR}/deploy-kit.yaml`]: specYaml(),
    [`${DIR}/in/chain.pem`]: b.caCertPem + b.leafCertPem,
    [`${DIR}/in/key.pem`]: b.leafKeyPem,
  });
  await runCertImport({ dir: undefined, source: { kind: 'pair', cert: 'in/chain.pem', key: 'in/key.pem' }, json: true }, deps(fs));
  const stored = fs.files.get(`${DIR}/certs/site.pem`);
  assert.equal(stored?.mode, 0o600);
  assert.equal(stored?.content, b.leafCertPem + b.caCertPem + b.leafKeyPem);
});

test('import rejects a certificate missing a hostname and writes nothing', async () => {
  const b = generateSelfSigned({ hosts: ['s3.example.test'], now: NOW, days: 60 });
  const fs = createMemoryFs({ [`${DIR}/deploy-kit.yaml`]: specYaml(), [`${DIR}/all.pem`]: b.leafCertPem + b.leafKeyPem });
  await assert.rejects(
    runCertImport({ dir: undefined, source: { kind: 'combined', pem: 'all.pem' }, json: false }, deps(fs)),
    (e) => e instanceof DeployKitError && e.code === 'DK_ERR_CERT_INVALID' && e.details.some((l) => l.includes('console.example.test')),
  );
  assert.equal(fs.files.has(`${DIR}/certs/site.pem`), false);
});

test('cert commands without a spec say to run init (exit 2)', async () => {
  await assert.rejects(runCertSelfSigned({ dir: undefined, days: 1, json: false }, deps(createMemoryFs())),
    (e) => e instanceof DeployKitError && e.code === 'DK_ERR_SPEC_NOT_FOUND' && e.exitCode === 2);
});
