/**
 * SPEC.md §4 rules 8-10, 12-14, SPEC §2 (volume at /data) and §5 (credentials) for compose.yaml,
 * asserted on the js-yaml parse of the rendered file, for both proxies.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeSpec, specMatrix } from './fixtures.js';
import { render } from './rendered.js';

const acme = { mode: 'acme', acme: { email: 'ops@example.com' } };
const single = render(makeSpec());
const cluster = render(makeSpec({ proxy: 'traefik', tls: acme, cluster: { nodes: 4, drivesPerNode: 4, parity: 4 } }));

function nodeServices(compose: Record<string, any>): [string, any][] {
  return Object.entries(compose.services).filter(([name]) => /^node\d+$/.test(name));
}

test('compose subset both v1 and v2 accept: no top-level name/include, no start_interval, no version key needed', () => {
  for (const { name, spec } of specMatrix()) {
    const r = render(spec);
    assert.deepEqual(Object.keys(r.compose).filter((k) => !['services', 'volumes', 'networks'].includes(k)), [], name);
    for (const svc of Object.values<any>(r.compose.services)) assert.equal(svc.healthcheck?.start_interval, undefined, name);
    assert.ok(!r.files['compose.yaml']!.includes('$'), `${name}: no $ (compose would interpolate it)`);
  }
});

test('rule 8: node health check runs both URLs with node (no curl), 10s/5s/5/30s', () => {
  for (const r of [single, cluster]) {
    for (const [name, svc] of nodeServices(r.compose)) {
      const hc = svc.healthcheck;
      assert.equal(hc.test[0], 'CMD', name);
      assert.equal(hc.test[1], 'node');
      assert.equal(hc.test[2], '-e');
      assert.match(hc.test[3], /http:\/\/127\.0\.0\.1:9000\/health\/ready/);
      assert.match(hc.test[3], /http:\/\/127\.0\.0\.1:9001\/svc\/console\/health/);
      assert.match(hc.test[3], /statusCode===200/);
      assert.ok(!JSON.stringify(hc.test).includes('curl'));
      assert.deepEqual([hc.interval, hc.timeout, hc.retries, hc.start_period], ['10s', '5s', 5, '30s']);
    }
  }
});

test('the health script itself is valid JavaScript', () => {
  const script = nodeServices(single.compose)[0]![1].healthcheck.test[3] as string;
  assert.doesNotThrow(() => new Function('require', 'process', script));
});

test('SPEC §2: single node keeps its data on a named volume at /data and runs server --console-address :9001 /data', () => {
  const [[name, node]] = nodeServices(single.compose) as [[string, any]];
  assert.equal(name, 'node1');
  assert.deepEqual(node.command, ['server', '--console-address', ':9001', '/data']);
  assert.deepEqual(node.volumes, ['node1-data:/data']);
  assert.deepEqual(single.compose.volumes, { 'node1-data': {} });
});

test('multi-node: /data1../dataM named volumes per node and one shared ellipsis endpoint list', () => {
  const nodes = nodeServices(cluster.compose);
  assert.equal(nodes.length, 4);
  for (const [name, svc] of nodes) {
    assert.deepEqual(svc.command, ['server', '--console-address', ':9001', 'http://node{1...4}:9000/data{1...4}']);
    assert.deepEqual(svc.volumes, [1, 2, 3, 4].map((j) => `${name}-data${j}:/data${j}`));
    assert.equal(svc.environment.SVC_STORAGE_CLASS_STANDARD, 'EC:4');
    // The node finds itself in the endpoint list by its service name (its container hostname is an id).
    assert.equal(svc.environment.SVC_HOSTNAME, name);
  }
  assert.equal(Object.keys(cluster.compose.volumes).length, 16);
  assert.equal(nodeServices(single.compose)[0]![1].environment, undefined, 'a single node needs no SVC_HOSTNAME');
});

test('rule 9: only the proxy publishes host ports, 80 and 443', () => {
  for (const { name, spec } of specMatrix()) {
    const services = render(spec).compose.services;
    for (const [svcName, svc] of Object.entries<any>(services)) {
      if (svcName === 'proxy') assert.deepEqual(svc.ports, ['80:80', '443:443'], name);
      else assert.equal(svc.ports, undefined, `${name}: ${svcName} publishes ports`);
      assert.equal(svc.expose, undefined);
    }
  }
});

test('rule 10: nodes and proxy share the internal network, so nodes reach each other on 9000', () => {
  for (const [, svc] of nodeServices(cluster.compose)) assert.deepEqual(svc.networks, ['backend']);
  assert.ok(cluster.compose.services.proxy.networks.includes('backend'));
  assert.deepEqual(Object.keys(cluster.compose.services.proxy.depends_on), ['node1', 'node2', 'node3', 'node4']);
  assert.ok(Object.values<any>(cluster.compose.services.proxy.depends_on).every((d) => d.condition === 'service_healthy'));
});

test('rules 12/13: certificates and ACME state are mounted where the proxy configs expect them', () => {
  // The certificate FOLDER is mounted, not the file: a rotation renames a new PEM into it, which a single-file
  // bind mount (pinned to the old inode) would never show to the running proxy.
  const hp = single.compose.services.proxy;
  assert.deepEqual(hp.volumes.map((v: any) => [v.source, v.target, v.read_only]), [
    ['./haproxy/haproxy.cfg', '/usr/local/etc/haproxy/haproxy.cfg', true],
    ['./certs', '/usr/local/etc/haproxy/certs', true],
  ]);
  assert.match(single.files['haproxy/haproxy.cfg']!, /bind :443 ssl crt \/usr\/local\/etc\/haproxy\/certs\/site\.pem /);
  const custom = render(makeSpec({ tls: { mode: 'pem', pem: { file: 'tls/both.pem' } } }));
  assert.deepEqual([custom.compose.services.proxy.volumes[1].source, custom.compose.services.proxy.volumes[1].target], ['./tls', '/usr/local/etc/haproxy/certs']);
  assert.match(custom.files['haproxy/haproxy.cfg']!, /bind :443 ssl crt \/usr\/local\/etc\/haproxy\/certs\/both\.pem /);
  const trPem = render(makeSpec({ proxy: 'traefik', tls: { mode: 'pem', pem: { file: './tls/both.pem' } } }));
  assert.deepEqual(trPem.compose.services.proxy.volumes.slice(2).map((v: any) => [v.source, v.target, v.read_only]), [['./tls', '/etc/traefik/certs', true]]);
  assert.match(trPem.files['traefik/dynamic.yml']!, /certFile: "\/etc\/traefik\/certs\/both\.pem"/);
  const tr = cluster.compose.services.proxy.volumes.map((v: any) => [v.source, v.target, v.read_only]);
  assert.deepEqual(tr[2], ['./acme', '/etc/traefik/acme', false]);
  const hpAcme = render(makeSpec({ tls: acme }));
  const responder = hpAcme.compose.services['acme-responder'];
  assert.deepEqual(responder.volumes.map((v: any) => [v.source, v.read_only]), [['./acme/responder.mjs', true], ['./acme/challenges', true]]);
  assert.ok(hpAcme.files['acme/responder.mjs']!.includes('/.well-known/acme-challenge/'));
  assert.equal(single.compose.services['acme-responder'], undefined);
});

test('rule 14: the docker socket only through a read-only socket proxy, and only when opted in', () => {
  for (const { name, spec } of specMatrix()) assert.ok(!render(spec).files['compose.yaml']!.includes('docker.sock'), name);
  const opted = render(makeSpec({ proxy: 'traefik', dockerProvider: true }));
  const sp = opted.compose.services['docker-socket-proxy'];
  assert.deepEqual(sp.volumes, ['/var/run/docker.sock:/var/run/docker.sock:ro']);
  assert.equal(sp.environment.POST, '0');
  assert.equal(opted.compose.networks.socket.internal, true);
  assert.equal(opted.compose.services.proxy.volumes.some((v: any) => String(v.source).includes('docker.sock')), false);
});

test('SPEC §5: credentials only through env_file .env, never inline', () => {
  for (const { name, spec } of specMatrix()) {
    const r = render(spec);
    for (const [, svc] of nodeServices(r.compose)) assert.deepEqual(svc.env_file, ['.env'], name);
    assert.ok(!/SVC_(ACCESS|SECRET)_KEY|SESSION_KEY|PASSWORD/i.test(r.files['compose.yaml']!), name);
  }
});
