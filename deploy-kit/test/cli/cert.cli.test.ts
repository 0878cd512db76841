import assert from 'node:assert/strict';
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildSpec, formatSpec, parseSpec } from '../../src/config/index.js';
import { generateSelfSigned } from '../../src/certs/pem/index.js';
import { runCli, tempDir } from './helpers.js';

let dir = '';
let cleanup: () => Promise<void> = async () => undefined;

before(async () => {
  ({ dir, cleanup } = await tempDir());
  const { spec } = parseSpec(buildSpec({ s3Host: 's3.example.test', consoleHost: 'console.example.test', proxy: 'haproxy', tls: 'pem', nodes: 1, drivesPerNode: 1 }));
  await writeFile(join(dir, 'deploy-kit.yaml'), formatSpec(spec!));
});
after(() => cleanup());

test('cert self-signed writes the combined PEM with mode 600 and ca.crt with 644', async () => {
  const r = await runCli(['cert', 'self-signed', '--days', '10'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.equal((await stat(join(dir, 'certs/site.pem'))).mode & 0o777, 0o600);
  assert.equal((await stat(join(dir, 'certs/ca.crt'))).mode & 0o777, 0o644);
});

test('cert import rejects a certificate missing a hostname with one error line per problem (exit 2)', async () => {
  const b = generateSelfSigned({ hosts: ['s3.example.test'], now: new Date(), days: 30 });
  await writeFile(join(dir, 'only-s3.crt'), b.leafCertPem);
  await writeFile(join(dir, 'only-s3.key'), b.leafKeyPem);
  const r = await runCli(['cert', 'import', '--cert', 'only-s3.crt', '--key', 'only-s3.key', '--dir', dir], { cwd: dir });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^deploy-kit: error: the certificate is not usable for s3\.example\.test and console\.example\.test \(hint: .+\)$/m);
  assert.match(r.stderr, /^  - certificate does not cover console\.example\.test/m);
  assert.equal(r.stdout, '');
});
