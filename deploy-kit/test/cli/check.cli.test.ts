import assert from 'node:assert/strict';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { generateSelfSigned } from '../../src/certs/pem/index.js';
import { runCli, tempDir } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
after(async () => { for (const c of cleanups) await c(); });

async function goodDeployment(): Promise<string> {
  const { dir, cleanup } = await tempDir('dk-check-');
  cleanups.push(cleanup);
  const init = await runCli(['init', '--s3-host', 's3.example.test', '--console-host', 'console.example.test', '--proxy', 'haproxy', '--tls', 'pem'], { cwd: dir });
  assert.equal(init.code, 0, init.stderr);
  const cert = await runCli(['cert', 'self-signed'], { cwd: dir });
  assert.equal(cert.code, 0, cert.stderr);
  return dir;
}

let good = '';
before(async () => { good = await goodDeployment(); });

test('check on a good self-signed HAProxy deployment exits 0 (DNS and busy ports are only warnings)', async () => {
  const r = await runCli(['check'], { cwd: good });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.doesNotMatch(r.stdout, /^error/m);
  assert.match(r.stdout, /^ok: no errors/m);
  const json = await runCli(['--json', 'check', '--dir', good], { cwd: '/' });
  assert.equal(json.code, 0);
  const parsed = JSON.parse(json.stdout) as { ok: boolean; errors: number; findings: { level: string; area: string }[] };
  assert.equal(parsed.ok, true);
  assert.equal(parsed.errors, 0);
});

test('a deliberately broken deployment fails check with one clear line per problem', async () => {
  const dir = await goodDeployment();
  // 1. same hostname twice
  const specPath = join(dir, 'deploy-kit.yaml');
  await writeFile(specPath, (await readFile(specPath, 'utf8')).replace('console: console.example.test', 'console: s3.example.test'));
  // 2. a certificate missing a name, 3. with mode 644
  const b = generateSelfSigned({ hosts: ['console.example.test'], now: new Date(), days: 30 });
  await writeFile(join(dir, 'certs/site.pem'), b.leafCertPem + b.leafKeyPem);
  await chmod(join(dir, 'certs/site.pem'), 0o644);
  // 4. a node publishing 9000
  const composePath = join(dir, 'compose.yaml');
  const compose = await readFile(composePath, 'utf8');
  const edited = compose.replace(/^( {2}node1:\n)/m, '$1    ports:\n      - "9000:9000"\n');
  assert.notEqual(edited, compose);
  await writeFile(composePath, edited);

  const r = await runCli(['check'], { cwd: dir });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const errors = r.stdout.split('\n').filter((l) => l.startsWith('error'));
  assert.equal(errors.length, 4, errors.join('\n'));
  assert.match(errors[0] ?? '', /^error +spec: hosts\.console: same hostname as hosts\.s3 \("s3\.example\.test"\) \(fix: .+\)$/);
  assert.match(errors[1] ?? '', /^error +cert: certs\/site\.pem: certificate does not cover s3\.example\.test .*\(fix: .+\)$/);
  assert.match(errors[2] ?? '', /^error +modes: certs\/site\.pem has mode 644, readable by others \(fix: chmod 600 certs\/site\.pem\)$/);
  assert.match(errors[3] ?? '', /^error +compose: service node1 publishes port 9000:9000 on the host \(fix: .+SPEC rule 9\)$/);
  assert.match(r.stderr, /^deploy-kit: error: check found 4 errors \(hint: .+\)$/m);
});
