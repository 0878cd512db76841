import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSpec } from './parse-spec.js';
import { buildSpec } from './build-spec.js';
import { LETSENCRYPT_PRODUCTION, LETSENCRYPT_STAGING } from './defaults.js';

const minimal = {
  version: 1,
  hosts: { s3: 's3.example.com', console: 'console.example.com' },
  proxy: 'haproxy',
  tls: { mode: 'pem' },
  cluster: { nodes: 1, drivesPerNode: 1 },
};

function withPatch(patch: Record<string, unknown>): Record<string, unknown> {
  return { ...structuredClone(minimal), ...patch };
}

function paths(raw: unknown): string[] {
  return parseSpec(raw).problems.map((p) => p.path);
}

test('a minimal spec gets every default', () => {
  const { spec, problems } = parseSpec(minimal);
  assert.deepEqual(problems, []);
  assert.deepEqual(spec, {
    version: 1,
    hosts: { s3: 's3.example.com', console: 'console.example.com' },
    proxy: 'haproxy',
    tls: { mode: 'pem', pem: { file: 'certs/site.pem' } },
    cluster: { nodes: 1, drivesPerNode: 1 },
    images: { server: 'svc/server:latest', proxy: 'haproxy:2.6' },
    healthCheck: { intervalSeconds: 10, timeoutSeconds: 5, fall: 3, rise: 2 },
  });
});

test('traefik gets the traefik image by default', () => {
  assert.equal(parseSpec(withPatch({ proxy: 'traefik' })).spec?.images.proxy, 'traefik:v3.4');
});

test('the same hostname twice is one clear problem on hosts.console', () => {
  const { spec, problems } = parseSpec(withPatch({ hosts: { s3: 'S3.example.com', console: 's3.example.com' } }));
  assert.equal(spec, undefined);
  assert.equal(problems.length, 1);
  assert.equal(problems[0]?.path, 'hosts.console');
  assert.match(problems[0]?.message ?? '', /same hostname as hosts\.s3 \("s3\.example\.com"\)/);
  assert.match(problems[0]?.hint ?? '', /two distinct hostnames/);
});

test('invalid hostnames are reported per field', () => {
  assert.deepEqual(paths(withPatch({ hosts: { s3: 'localhost', console: '-bad.example.com' } })), ['hosts.s3', 'hosts.console']);
  assert.deepEqual(paths(withPatch({ hosts: { s3: '*.example.com', console: '10.0.0.1' } })), ['hosts.s3', 'hosts.console']);
  assert.deepEqual(paths(withPatch({ hosts: { s3: 's3.example.com:443', console: 'console.example.com' } })), ['hosts.s3']);
  assert.deepEqual(paths(withPatch({ hosts: { s3: 's3.example.com' } })), ['hosts.console']);
});

test('every problem is collected in one pass', () => {
  const raw = {
    version: 2,
    hosts: { s3: 'bad_host', console: 'console.example.com' },
    proxy: 'nginx',
    tls: { mode: 'acme', acme: { email: 'not-an-email', directory: 'http://ca.example.com/dir' } },
    cluster: { nodes: 0, drivesPerNode: 'four' },
    images: { server: 'Bad Image' },
    healthCheck: { intervalSeconds: 2, timeoutSeconds: 5, fal: 3 },
    extra: true,
  };
  assert.deepEqual(paths(raw).sort(), [
    'cluster.drivesPerNode',
    'cluster.nodes',
    'extra',
    'healthCheck.fal',
    'healthCheck.timeoutSeconds',
    'hosts.s3',
    'images.server',
    'proxy',
    'tls.acme.directory',
    'tls.acme.email',
    'version',
  ]);
});

test('non-mapping input is a problem, not a crash', () => {
  for (const raw of [undefined, null, 'text', 42, []]) {
    const r = parseSpec(raw);
    assert.equal(r.spec, undefined);
    assert.equal(r.problems.length, 1);
    assert.equal(r.problems[0]?.path, '');
  }
  assert.deepEqual(paths(withPatch({ hosts: 's3.example.com', tls: ['pem'], cluster: null })).sort(), ['cluster', 'hosts', 'tls']);
});

test('acme: default directory, staging directory, and contradictions', () => {
  const acme = (a: Record<string, unknown>) => parseSpec(withPatch({ proxy: 'traefik', tls: { mode: 'acme', acme: a } }));
  assert.deepEqual(acme({ email: 'ops@example.com' }).spec?.tls, { mode: 'acme', acme: { email: 'ops@example.com', directory: LETSENCRYPT_PRODUCTION, staging: false } });
  assert.deepEqual(acme({ email: 'ops@example.com', staging: true }).spec?.tls, { mode: 'acme', acme: { email: 'ops@example.com', directory: LETSENCRYPT_STAGING, staging: true } });
  assert.equal(acme({ email: 'ops@example.com', directory: 'https://pebble:14000/dir' }).spec?.tls.mode, 'acme');
  assert.deepEqual(acme({ email: 'ops@example.com', staging: true, directory: LETSENCRYPT_PRODUCTION }).problems.map((p) => p.path), ['tls.acme.directory']);
  assert.deepEqual(acme({ email: 'ops@example.com', staging: 'yes' }).problems.map((p) => p.path), ['tls.acme.staging']);
  assert.deepEqual(acme({}).problems.map((p) => p.path), ['tls.acme.email']);
  assert.deepEqual(paths(withPatch({ tls: { mode: 'acme' } })), ['tls.acme']);
  assert.deepEqual(paths(withPatch({ tls: { mode: 'pem', acme: { email: 'a@b.co' } } })), ['tls.acme']);
  assert.deepEqual(paths(withPatch({ tls: { mode: 'self' } })), ['tls.mode']);
});

test('pem file must stay inside the deployment directory, in a folder (the proxy mounts the folder)', () => {
  assert.equal(parseSpec(withPatch({ tls: { mode: 'pem', pem: { file: 'tls/both.pem' } } })).spec?.tls.mode, 'pem');
  for (const file of ['/etc/ssl/site.pem', '../site.pem', 'certs/my site.pem', '', 'site.pem', './site.pem']) {
    assert.deepEqual(paths(withPatch({ tls: { mode: 'pem', pem: { file } } })), ['tls.pem.file'], file);
  }
});

test('cluster: nodes and drives >= 1, parity within half the drives, EC:n accepted', () => {
  assert.deepEqual(parseSpec(withPatch({ cluster: { nodes: 4, drivesPerNode: 4, parity: 'EC:4' } })).spec?.cluster, { nodes: 4, drivesPerNode: 4, parity: 4 });
  assert.deepEqual(parseSpec(withPatch({ cluster: { nodes: 4, drivesPerNode: 4, parity: 8 } })).spec?.cluster.parity, 8);
  const tooHigh = parseSpec(withPatch({ cluster: { nodes: 4, drivesPerNode: 1, parity: 3 } })).problems;
  assert.deepEqual(tooHigh.map((p) => p.path), ['cluster.parity']);
  assert.match(tooHigh[0]?.hint ?? '', /between 0 and 2/);
  assert.deepEqual(paths(withPatch({ cluster: { nodes: 1, drivesPerNode: 1, parity: 1 } })), ['cluster.parity']);
  assert.deepEqual(paths(withPatch({ cluster: { nodes: 2.5, drivesPerNode: 0 } })), ['cluster.nodes', 'cluster.drivesPerNode']);
  assert.deepEqual(paths(withPatch({ cluster: { nodes: 2, drivesPerNode: 2, parity: 'two' } })), ['cluster.parity']);
});

test('images and health timings are validated', () => {
  const ok = parseSpec(withPatch({ images: { server: 'registry.local:5000/svc/server@sha256:' + 'a'.repeat(64), proxy: 'haproxy:2.6-bookworm' }, healthCheck: { intervalSeconds: 1, timeoutSeconds: 1, fall: 3, rise: 2 } }));
  assert.deepEqual(ok.problems, []);
  assert.deepEqual(paths(withPatch({ images: { proxy: 'HAProxy' } })), ['images.proxy']);
  assert.deepEqual(paths(withPatch({ healthCheck: { intervalSeconds: 0, fall: -1, rise: '2' } })).sort(), ['healthCheck.fall', 'healthCheck.intervalSeconds', 'healthCheck.rise']);
});

test('dockerProvider is a traefik-only boolean', () => {
  assert.equal(parseSpec(withPatch({ proxy: 'traefik', dockerProvider: true })).spec?.dockerProvider, true);
  assert.equal(parseSpec(withPatch({ proxy: 'traefik', dockerProvider: false })).spec?.dockerProvider, undefined);
  assert.deepEqual(paths(withPatch({ dockerProvider: true })), ['dockerProvider']);
  assert.deepEqual(paths(withPatch({ proxy: 'traefik', dockerProvider: 'yes' })), ['dockerProvider']);
});

test('images.base is optional, validated like the other image references, and kept', () => {
  const base = buildSpec({ s3Host: 's3.example.com', consoleHost: 'console.example.com', proxy: 'haproxy', tls: 'acme', acmeEmail: 'ops@example.com', nodes: 1, drivesPerNode: 1 }) as Record<string, any>;
  assert.equal(parseSpec(base).spec?.images.base, undefined);
  const withBase = { ...base, images: { base: 'local/debian:bookworm' } };
  assert.equal(parseSpec(withBase).spec?.images.base, 'local/debian:bookworm');
  const bad = parseSpec({ ...base, images: { base: 'Not An Image!' } });
  assert.equal(bad.spec, undefined);
  assert.ok(bad.problems.some((p) => p.path === 'images.base'), JSON.stringify(bad.problems));
});
