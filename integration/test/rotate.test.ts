// Scenario 4 of issue 7: day-two rotation under load. A client does signed PUT/GET in a loop through the proxy while
// `deploy-kit cert rotate` replaces the certificate: the new certificate is served, and with the default load
// (HAProxy's runtime API, set/commit ssl cert: nothing restarts) the client sees no failed request. Before
// haproxy.cfg rendered `option idle-close-on-response`, a USR2 reload lost one request in one run of four here (the
// soft-stopping worker closed idle keep-alive connections as the client reused them); now the old worker answers
// one more request on each and then closes it, and repeated USR2 reloads under load are asserted to fail nothing.
// --recreate restarts the proxy: its failed requests are counted and reported, not asserted.
// The proxy mounts the certificate FOLDER (certs/), so every rotation renames a complete new PEM into it (a new
// inode, never a half-written file) and a reloaded or recreated proxy reads that new file.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { docker, requireDocker, s3Client, startStack, wire } from './helpers/index.js';
import type { Stack } from './helpers/index.js';

let stack: Stack;
/** Every CA whose certificate the proxy may serve during the run (the deployment's, then each rotation's). */
let trusted = '';

before(async () => {
  requireDocker();
  stack = await startStack({ name: 'rotate' });
});

after(async () => {
  await stack?.destroy();
});

/** A new CA and a leaf for both names, made with openssl (black box: nothing of deploy-kit's own code). */
function newCertificate(name: string): { pemFile: string; caPem: string; fingerprint256: string } {
  const dir = join(stack.dir, 'incoming', name);
  mkdirSync(dir, { recursive: true });
  const run = (args: string[]): void => { execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' }); };
  run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', `/CN=rotation CA ${name}`]);
  run(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', `/CN=${stack.hosts.s3}`]);
  const ext = join(dir, 'ext.cnf');
  execFileSync('sh', ['-c', `printf 'subjectAltName=DNS:${stack.hosts.s3},DNS:${stack.hosts.console}\\nextendedKeyUsage=serverAuth\\n' > ${ext}`]);
  run(['x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', ext, '-out', 'leaf.crt']);
  const leaf = readFileSync(join(dir, 'leaf.crt'), 'utf8');
  const pem = leaf + readFileSync(join(dir, 'ca.crt'), 'utf8') + readFileSync(join(dir, 'leaf.key'), 'utf8');
  execFileSync('sh', ['-c', `cat > ${join(dir, 'combined.pem')}`], { input: pem });
  return { pemFile: join(dir, 'combined.pem'), caPem: readFileSync(join(dir, 'ca.crt'), 'utf8'), fingerprint256: new X509Certificate(leaf).fingerprint256 };
}

/** Signed PUT then GET of a fresh object, over and over, until stopped; every failure is kept. */
function startLoad(ca: string, bucket: string): { stop: () => Promise<{ ok: number; failures: string[] }> } {
  const s3 = s3Client({ s3Host: stack.hosts.s3, httpsPort: stack.httpsPort, ca, accessKey: stack.accessKey, secretKey: stack.secretKey });
  let running = true;
  let ok = 0;
  const failures: string[] = [];
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const body = randomBytes(8192);
      try {
        await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `k${i % 20}`, Body: body }));
        const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: `k${i % 20}` }));
        const back = Buffer.from(await got.Body!.transformToByteArray());
        if (back.equals(body)) ok++;
        else failures.push(`#${i}: body differs`);
      } catch (err) {
        failures.push(`#${i}: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
      }
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      s3.destroy();
      return { ok, failures };
    },
  };
}

async function servedFingerprint(ca: string): Promise<string | undefined> {
  const r = await wire({ port: stack.httpsPort, host: stack.hosts.s3, path: '/health/ready', ca }, true);
  assert.equal(r.authorized, true);
  return r.certificate?.fingerprint256;
}

async function rotateUnderLoad(name: string, extra: string[]): Promise<{ ok: number; failures: string[]; fingerprint256: string; stdout: string }> {
  const next = newCertificate(name);
  trusted = (trusted === '' ? stack.ca : trusted) + next.caPem;
  const ca = trusted;
  const setup = s3Client({ s3Host: stack.hosts.s3, httpsPort: stack.httpsPort, ca, accessKey: stack.accessKey, secretKey: stack.secretKey });
  await setup.send(new CreateBucketCommand({ Bucket: name }));
  setup.destroy();
  const load = startLoad(ca, name);
  await new Promise((r) => setTimeout(r, 1500));
  const inodeBefore = statSync(join(stack.dir, 'certs/site.pem')).ino;
  const r = await stack.kit(['cert', 'rotate', '--pem', next.pemFile, ...extra]);
  await new Promise((r2) => setTimeout(r2, 1500));
  const result = await load.stop();
  assert.equal(r.code, 0, `cert rotate exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  assert.equal(await servedFingerprint(ca), next.fingerprint256, 'a new connection gets the new certificate');
  assert.equal(statSync(join(stack.dir, 'certs/site.pem')).mode & 0o777, 0o600);
  assert.notEqual(statSync(join(stack.dir, 'certs/site.pem')).ino, inodeBefore, 'a new file was renamed into certs/ (atomic), not copied over the old one');
  assert.deepEqual(readdirSync(join(stack.dir, 'certs')).sort(), ['ca.crt', 'site.pem'], 'no temporary file is left beside the PEM');
  assert.ok(result.ok >= 10, `the client kept working through the rotation (${result.ok} round trips)`);
  return { ...result, fingerprint256: next.fingerprint256, stdout: r.stdout };
}

test('the proxy mounts the certificate folder read-only, not the PEM file', () => {
  const mounts = JSON.parse(docker(['inspect', '-f', '{{json .Mounts}}', stack.container('proxy')])) as { Source: string; Destination: string; RW: boolean }[];
  const certs = mounts.filter((m) => m.Destination.includes('/certs'));
  assert.deepEqual(certs.map((m) => [m.Source, m.Destination, m.RW]), [[join(stack.dir, 'certs'), '/usr/local/etc/haproxy/certs', false]]);
});

test('default (runtime API, no reload): the new certificate is served and the client saw 0 failed requests', async (t) => {
  const r = await rotateUnderLoad('default', []);
  assert.match(r.stdout, /runtime API/);
  assert.match(r.stdout, /serves the new certificate/);
  t.diagnostic(`default: ${r.ok} PUT+GET round trips, ${r.failures.length} failed`);
  assert.deepEqual(r.failures, [], r.failures.join("\n"));
});

test('--reload (master-worker USR2): the new certificate is served; the failed requests are counted and reported', async (t) => {
  const r = await rotateUnderLoad('reload', ['--reload']);
  assert.match(r.stdout, /reloading HAProxy \(master-worker, USR2\)/);
  t.diagnostic(`--reload: ${r.ok} PUT+GET round trips, ${r.failures.length} failed${r.failures.length > 0 ? ` (first: ${r.failures[0]})` : ''}`);
});

test('repeated master-worker reloads (USR2) under a keep-alive PUT/GET loop: 0 failed requests (option idle-close-on-response)', async (t) => {
  const cfg = readFileSync(join(stack.dir, 'haproxy/haproxy.cfg'), 'utf8');
  assert.match(cfg, /^\s+option idle-close-on-response$/m);
  const setup = s3Client({ s3Host: stack.hosts.s3, httpsPort: stack.httpsPort, ca: trusted, accessKey: stack.accessKey, secretKey: stack.secretKey });
  await setup.send(new CreateBucketCommand({ Bucket: 'reloads' }));
  setup.destroy();
  const load = startLoad(trusted, 'reloads');
  const RELOADS = 8;
  for (let i = 0; i < RELOADS; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    docker(['kill', '-s', 'USR2', stack.container('proxy')]);
  }
  await new Promise((r) => setTimeout(r, 1500));
  const result = await load.stop();
  t.diagnostic(`${RELOADS} USR2 reloads: ${result.ok} PUT+GET round trips, ${result.failures.length} failed`);
  assert.ok(result.ok >= 20, `the client kept working through the reloads (${result.ok} round trips)`);
  assert.deepEqual(result.failures, [], result.failures.join('\n'));
});

test('--recreate: the new certificate is served; the failed requests are counted and reported', async (t) => {
  const r = await rotateUnderLoad('recreate', ['--recreate']);
  assert.match(r.stdout, /recreating the proxy/);
  t.diagnostic(`--recreate: ${r.ok} PUT+GET round trips, ${r.failures.length} failed${r.failures.length > 0 ? ` (first: ${r.failures[0]})` : ''}`);
});
