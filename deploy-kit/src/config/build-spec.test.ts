import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'js-yaml';
import { buildSpec, formatSpec } from './build-spec.js';
import { parseSpec } from './parse-spec.js';

test('flat answers become a spec that parses', () => {
  const raw = buildSpec({ s3Host: 's3.example.com', consoleHost: 'console.example.com', proxy: 'traefik', tls: 'acme', acmeEmail: 'ops@example.com', staging: true, nodes: 4, drivesPerNode: 4, parity: 'EC:2' });
  const { spec, problems } = parseSpec(raw);
  assert.deepEqual(problems, []);
  assert.equal(spec?.tls.mode, 'acme');
  assert.equal(spec?.cluster.parity, 2);
});

test('missing answers surface as parseSpec problems, not exceptions', () => {
  const { problems } = parseSpec(buildSpec({ proxy: 'haproxy' }));
  assert.deepEqual(problems.map((p) => p.path).sort(), ['cluster.drivesPerNode', 'cluster.nodes', 'hosts.console', 'hosts.s3', 'tls.mode']);
});

test('formatSpec round-trips through YAML', () => {
  const { spec } = parseSpec(buildSpec({ s3Host: 's3.example.com', consoleHost: 'console.example.com', proxy: 'haproxy', tls: 'pem', nodes: 1, drivesPerNode: 1 }));
  assert.ok(spec);
  const text = formatSpec(spec);
  assert.match(text, /^# deploy-kit/);
  assert.deepEqual(parseSpec(load(text)).spec, spec);
});
