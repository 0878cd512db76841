// Scenario 3 of issue 7: `deploy-kit up` of a HAProxy + tls.mode acme deployment obtains its certificate itself: it
// starts HAProxy on a self-signed placeholder, orders from pebble with HTTP-01 answered for real through the proxy's
// published port 80 and the acme-responder, loads the certificate into the running HAProxy, then waits for readiness
// over TLS. Pebble and its mock DNS run before `up` on the host's network (DOCKER.md §3 option A, in the pebble image):
// every name resolves to 127.0.0.1 and pebble validates on the proxy's published port 80. The served certificate must
// chain to pebble's root and cover both names; a second `up` must not re-issue (SPEC rule 12).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { BASE_IMAGES, RUN_ID, RUN_LABELS, TEST_HOSTS, deployKit, docker, freePort, requireDocker, runDeployKit, serverImage, wire } from './helpers/index.js';

let dir = '';
let project = '';
let httpPort = 0;
let httpsPort = 0;
let mgmtPort = 0;
let listenerCa = '';
let env: Record<string, string> = {};
const containers: string[] = [];
const labels = Object.entries(RUN_LABELS).flatMap(([k, v]) => ['--label', `${k}=${v}`]);

function kit(args: readonly string[], env: Record<string, string> = {}): ReturnType<typeof runDeployKit> {
  return runDeployKit([...args, '--dir', dir, '--project', project], { cwd: dir, env });
}

async function getText(url: string, ca: string): Promise<{ status: number; body: string }> {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, timeout: 3000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => { resolve({ status: res.statusCode ?? 0, body }); });
    });
    req.on('timeout', () => { req.destroy(new Error('timeout')); });
    req.on('error', reject);
    req.end();
  });
}

before(async () => {
  requireDocker();
  const image = await serverImage();
  dir = await mkdtemp(join(tmpdir(), 'svc-it-acme-'));
  project = `${RUN_ID}-acme`.toLowerCase().replace(/[^a-z0-9_-]/g, '');
  const acmePort = await freePort();
  [mgmtPort, httpPort, httpsPort] = [await freePort(), await freePort(), await freePort()];
  const [dnsPort, dnsMgmtPort, pebbleTlsPort] = [await freePort(), await freePort(), await freePort()];

  // Pebble ships no listener certificate (DOCKER.md §3): a self-made one for localhost, trusted via DEPLOY_KIT_ACME_CA_FILE.
  const pebbleDir = join(dir, 'pebble');
  await mkdir(pebbleDir);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '2',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { cwd: pebbleDir, stdio: 'pipe' });
  execFileSync('chmod', ['644', join(pebbleDir, 'key.pem')]);
  await writeFile(join(pebbleDir, 'pebble-config.json'), JSON.stringify({
    pebble: {
      listenAddress: `127.0.0.1:${acmePort}`, managementListenAddress: `127.0.0.1:${mgmtPort}`, certificate: '/pebble/cert.pem', privateKey: '/pebble/key.pem',
      httpPort, tlsPort: pebbleTlsPort, ocspResponderURL: '', externalAccountBindingRequired: false,
    },
  }));
  // Mock DNS: every name → 127.0.0.1, where the proxy's port 80 is published, like a CA on the internet reaching the host.
  const dns = `${project}-challtestsrv`;
  containers.push(dns);
  docker(['run', '-d', '--name', dns, '--network', 'host', ...labels, BASE_IMAGES.haproxy, 'pebble-challtestsrv',
    '-dns01', `127.0.0.1:${dnsPort}`, '-http01', '', '-https01', '', '-tlsalpn01', '', '-management', `127.0.0.1:${dnsMgmtPort}`,
    '-defaultIPv4', '127.0.0.1', '-defaultIPv6', '']);
  const pebble = `${project}-pebble`;
  containers.push(pebble);
  docker(['run', '-d', '--name', pebble, '--network', 'host', ...labels,
    '-e', 'PEBBLE_VA_NOSLEEP=1', '-e', 'PEBBLE_WFE_NONCEREJECT=0', '-v', `${pebbleDir}:/pebble:ro`, BASE_IMAGES.haproxy,
    'pebble', '-config', '/pebble/pebble-config.json', '-dnsserver', `127.0.0.1:${dnsPort}`]);
  listenerCa = await readFile(join(pebbleDir, 'cert.pem'), 'utf8');
  for (let i = 0; ; i++) {
    try {
      if ((await getText(`https://localhost:${acmePort}/dir`, listenerCa)).status === 200) break;
    } catch {
      // not up yet
    }
    if (i > 100) throw new Error(`pebble did not start: ${docker(['logs', pebble])}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  // The issued chain ends at pebble's root (new at every start): deploy-kit's readiness wait trusts it the way a
  // public CA's root is trusted, through Node's extra CA store.
  await writeFile(join(pebbleDir, 'root.pem'), (await getText(`https://localhost:${mgmtPort}/roots/0`, listenerCa)).body);
  env = { DEPLOY_KIT_ACME_CA_FILE: join(pebbleDir, 'cert.pem'), DEPLOY_KIT_ACME_SELF_CHECK: '0', NODE_EXTRA_CA_CERTS: join(pebbleDir, 'root.pem') };

  await deployKit(['init', '--dir', dir, '--s3-host', TEST_HOSTS.s3, '--console-host', TEST_HOSTS.console, '--proxy', 'haproxy', '--tls', 'acme',
    '--acme-email', 'ops@svc.test', '--acme-directory', `https://localhost:${acmePort}/dir`, '--nodes', '1', '--image', image,
    '--proxy-image', BASE_IMAGES.haproxy], { cwd: dir });
});

after(async () => {
  for (const c of containers) {
    try { docker(['rm', '-f', c]); } catch { /* already gone */ }
  }
  if (dir !== '') {
    await kit(['down', '--volumes']);
    await rm(dir, { recursive: true, force: true });
  }
});

async function served(): Promise<string> {
  const root = await readFile(join(dir, 'pebble', 'root.pem'), 'utf8');
  const fingerprints = new Set<string>();
  for (const host of [TEST_HOSTS.s3, TEST_HOSTS.console]) {
    const r = await wire({ port: httpsPort, host, path: host === TEST_HOSTS.s3 ? '/health/ready' : '/svc/console/health', ca: root }, true);
    assert.equal(r.authorized, true, `${host} is served a certificate that chains to pebble's root`);
    assert.equal(r.status, 200);
    assert.match(r.certificate?.subjectaltname ?? '', /DNS:s3\.svc\.test/);
    assert.match(r.certificate?.subjectaltname ?? '', /DNS:console\.svc\.test/);
    fingerprints.add(r.certificate?.fingerprint256 ?? '');
  }
  assert.equal(fingerprints.size, 1, 'one certificate for both names');
  return [...fingerprints][0]!;
}

test('ACME end to end: `up` gets the certificate from pebble through HAProxy; it chains to pebble\'s root for both names; a second `up` does not re-issue', async (t) => {
  const upArgs = ['up', '--publish-http', `127.0.0.1:${httpPort}`, '--publish-https', `127.0.0.1:${httpsPort}`, '--timeout', '120'];
  const first = await kit(upArgs, env);
  assert.equal(first.code, 0, `${first.stdout}\n${first.stderr}`);
  assert.match(first.stderr, /self-signed placeholder certs\/site\.pem/);
  assert.match(first.stderr, /not issued through ACME/);
  assert.match(first.stderr, /ordering a certificate for s3\.svc\.test, console\.svc\.test/);
  assert.match(first.stderr, /loaded into HAProxy through its runtime API|reloading HAProxy/);
  assert.match(first.stdout, /svc is up/);
  t.diagnostic(first.stderr.trim());
  const fingerprint = await served();
  const pem = await readFile(join(dir, 'certs', 'site.pem'), 'utf8');

  const second = await kit(upArgs, env);
  assert.equal(second.code, 0, `${second.stdout}\n${second.stderr}`);
  assert.match(second.stderr, /certificate valid for \d+ more days; not renewing/);
  assert.doesNotMatch(second.stderr, /ordering|placeholder/);
  assert.equal(await readFile(join(dir, 'certs', 'site.pem'), 'utf8'), pem);
  assert.equal(await served(), fingerprint, 'the same certificate is served after the second up');
});
