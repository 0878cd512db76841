// Scenario 3 of issue 7, through `deploy-kit cert rotate` (issue: `up` does not run the ACME flow yet): a HAProxy +
// tls.mode acme deployment started by `deploy-kit up`, pebble as the CA in a container on the deployment's network
// (DOCKER.md §3 option B), validating HTTP-01 for real through the proxy's port 80 and the acme-responder. The served
// certificate must chain to pebble's root and cover both names; a second run must not re-issue.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { BASE_IMAGES, RUN_ID, RUN_LABELS, TEST_HOSTS, deployKit, docker, freePort, requireDocker, runDeployKit, serverImage, wire } from './helpers/index.js';

let dir = '';
let project = '';
let httpsPort = 0;
let acmePort = 0;
let mgmtPort = 0;
const containers: string[] = [];
const labels = Object.entries(RUN_LABELS).flatMap(([k, v]) => ['--label', `${k}=${v}`]);

function kit(args: readonly string[], env: Record<string, string> = {}): ReturnType<typeof runDeployKit> {
  return runDeployKit([...args, '--dir', dir, '--project', project], { cwd: dir, env });
}

function inspect(container: string, format: string): string {
  return docker(['inspect', '-f', format, container]).trim();
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
  [acmePort, mgmtPort, httpsPort] = [await freePort(), await freePort(), await freePort()];
  const httpPort = await freePort();

  // Pebble ships no listener certificate (DOCKER.md §3): a self-made one for localhost, trusted via DEPLOY_KIT_ACME_CA_FILE.
  const pebbleDir = join(dir, 'pebble');
  await mkdir(pebbleDir);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '2',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1,DNS:pebble'], { cwd: pebbleDir, stdio: 'pipe' });
  execFileSync('chmod', ['644', join(pebbleDir, 'key.pem')]);
  await writeFile(join(pebbleDir, 'pebble-config.json'), JSON.stringify({
    pebble: {
      listenAddress: '0.0.0.0:14000', managementListenAddress: '0.0.0.0:15000', certificate: '/pebble/cert.pem', privateKey: '/pebble/key.pem',
      httpPort: 80, tlsPort: 443, ocspResponderURL: '', externalAccountBindingRequired: false,
    },
  }));

  await deployKit(['init', '--dir', dir, '--s3-host', TEST_HOSTS.s3, '--console-host', TEST_HOSTS.console, '--proxy', 'haproxy', '--tls', 'acme',
    '--acme-email', 'ops@svc.test', '--acme-directory', `https://localhost:${acmePort}/dir`, '--nodes', '1', '--image', image,
    '--proxy-image', BASE_IMAGES.haproxy], { cwd: dir });
  // HAProxy needs a certificate file to start before the first order: a self-signed placeholder.
  await deployKit(['cert', 'self-signed', '--dir', dir], { cwd: dir });
  const up = await kit(['up', '--publish-http', `127.0.0.1:${httpPort}`, '--publish-https', `127.0.0.1:${httpsPort}`, '--timeout', '120']);
  if (up.code !== 0) throw new Error(`deploy-kit up exited ${up.code}\n${up.stdout}\n${up.stderr}`);

  const proxy = docker(['ps', '-q', '--filter', `label=com.docker.compose.project=${project}`, '--filter', 'label=com.docker.compose.service=proxy']).trim();
  const networks = JSON.parse(inspect(proxy, '{{json .NetworkSettings.Networks}}')) as Record<string, { IPAddress: string }>;
  const [network, { IPAddress: proxyIp }] = Object.entries(networks)[0]!;
  // Mock DNS: every name → the proxy, so pebble's validation reaches HAProxy's port 80 like a CA on the internet.
  const dns = `${project}-challtestsrv`;
  containers.push(dns);
  docker(['run', '-d', '--name', dns, '--network', network, ...labels, BASE_IMAGES.haproxy, 'pebble-challtestsrv',
    '-dns01', ':8053', '-http01', '', '-https01', '', '-tlsalpn01', '', '-management', ':8055', '-defaultIPv4', proxyIp, '-defaultIPv6', '']);
  const dnsIp = (JSON.parse(inspect(dns, '{{json .NetworkSettings.Networks}}')) as Record<string, { IPAddress: string }>)[network]!.IPAddress;
  const pebble = `${project}-pebble`;
  containers.push(pebble);
  docker(['run', '-d', '--name', pebble, '--network', network, ...labels, '-p', `127.0.0.1:${acmePort}:14000`, '-p', `127.0.0.1:${mgmtPort}:15000`,
    '-e', 'PEBBLE_VA_NOSLEEP=1', '-e', 'PEBBLE_WFE_NONCEREJECT=0', '-v', `${pebbleDir}:/pebble:ro`, BASE_IMAGES.haproxy,
    'pebble', '-config', '/pebble/pebble-config.json', '-dnsserver', `${dnsIp}:8053`]);
  const listenerCa = await readFile(join(pebbleDir, 'cert.pem'), 'utf8');
  for (let i = 0; ; i++) {
    try {
      if ((await getText(`https://localhost:${acmePort}/dir`, listenerCa)).status === 200) break;
    } catch {
      // not up yet
    }
    if (i > 100) throw new Error(`pebble did not start: ${docker(['logs', pebble])}`);
    await new Promise((r) => setTimeout(r, 200));
  }
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

test('ACME end to end: pebble validates HTTP-01 through HAProxy; the served certificate chains to pebble\'s root for both names; no re-issue', async (t) => {
  const env = { DEPLOY_KIT_ACME_CA_FILE: join(dir, 'pebble', 'cert.pem'), DEPLOY_KIT_ACME_SELF_CHECK: '0' };
  const first = await kit(['cert', 'rotate'], env);
  assert.equal(first.code, 0, `${first.stdout}\n${first.stderr}`);
  assert.match(first.stdout, /not issued through ACME/);
  assert.match(first.stdout, /ordering a certificate for s3\.svc\.test, console\.svc\.test/);
  assert.match(first.stdout, /serves the new certificate/);
  t.diagnostic(first.stdout.trim());

  const root = (await getText(`https://localhost:${mgmtPort}/roots/0`, await readFile(join(dir, 'pebble', 'cert.pem'), 'utf8'))).body;
  const fingerprints = new Set<string>();
  for (const host of [TEST_HOSTS.s3, TEST_HOSTS.console]) {
    const r = await wire({ port: httpsPort, host, path: host === TEST_HOSTS.s3 ? '/health/ready' : '/svc/console/health', ca: root }, true);
    assert.equal(r.authorized, true, `${host} is served a certificate that chains to pebble's root`);
    assert.equal(r.status, 200);
    assert.match(r.certificate?.subjectaltname ?? '', /DNS:s3\.svc\.test/);
    assert.match(r.certificate?.subjectaltname ?? '', /DNS:console\.svc\.test/);
    fingerprints.add(r.certificate?.fingerprint256 ?? '');
  }
  assert.equal(fingerprints.size, 1);
  const pem = await readFile(join(dir, 'certs', 'site.pem'), 'utf8');

  const second = await kit(['cert', 'rotate'], env);
  assert.equal(second.code, 0, `${second.stdout}\n${second.stderr}`);
  assert.match(second.stdout, /certificate valid for \d+ more days; not renewing/);
  assert.match(second.stdout, /already serves this certificate/);
  assert.doesNotMatch(second.stdout, /ordering/);
  assert.equal(await readFile(join(dir, 'certs', 'site.pem'), 'utf8'), pem);
});
