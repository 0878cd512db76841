/**
 * One test per SPEC.md §4 rule (and §8 timeouts) for the HAProxy rendering: each reads haproxy.cfg
 * by sections and asserts the directive itself, not a snapshot.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeSpec, specMatrix } from './fixtures.js';
import { render, section } from './rendered.js';
import { haproxyCheck, unexpectedWarnings } from './haproxy-check.js';
import { validateHaproxyText } from '../../src/validate/index.js';

const acme = { mode: 'acme', acme: { email: 'ops@example.com' } };
const pem1 = render(makeSpec());
const acme4 = render(makeSpec({ tls: acme, cluster: { nodes: 4, drivesPerNode: 1 } }));

function servers(lines: string[]): string[][] {
  return lines.filter((l) => l.startsWith('server ')).map((l) => l.split(/\s+/));
}

test('haproxy -c accepts every HAProxy rendering, and the structural checks find nothing', () => {
  const haproxies = specMatrix().filter((m) => m.spec.proxy === 'haproxy');
  assert.ok(haproxies.length >= 6);
  for (const { name, spec } of haproxies) {
    const r = render(spec);
    const res = haproxyCheck(r.haproxyText);
    assert.equal(res.status, 0, `${name}: ${res.output}`);
    assert.match(res.output, /Configuration file is valid/, name);
    assert.deepEqual(unexpectedWarnings(res.output), [], name);
    assert.deepEqual(validateHaproxyText(r.haproxyText), [], name);
  }
});

test('haproxy -c really checks: a broken directive fails', () => {
  const res = haproxyCheck(pem1.haproxyText.replace('timeout tunnel 1h', 'timeout tunnel forever'));
  assert.notEqual(res.status, 0);
});

test('rule 1: S3 host -> every node :9000, console host -> every node :9001', () => {
  const https = section(acme4, 'frontend', 'https');
  assert.ok(https.includes('acl host_s3 req.hdr(host),field(1,:) -i s3.example.com'));
  assert.ok(https.includes('acl host_console req.hdr(host),field(1,:) -i console.example.com'));
  assert.ok(https.includes('use_backend s3 if host_s3'));
  assert.ok(https.includes('use_backend console if host_console'));
  assert.deepEqual(servers(section(acme4, 'backend', 's3')).map((s) => s[2]), ['node1:9000', 'node2:9000', 'node3:9000', 'node4:9000']);
  assert.deepEqual(servers(section(acme4, 'backend', 'console')).map((s) => s[2]), ['node1:9001', 'node2:9001', 'node3:9001', 'node4:9001']);
});

test('rule 2: one certificate file serves both names', () => {
  const binds = section(pem1, 'frontend', 'https').filter((l) => l.startsWith('bind '));
  assert.deepEqual(binds, ['bind :443 ssl crt /usr/local/etc/haproxy/certs/site.pem alpn h2,http/1.1']);
});

test('rule 3: S3 host from the root path, Host and path untouched, no buffering, no body limit', () => {
  const all = pem1.haproxy.flatMap((s) => s.lines);
  assert.ok(!all.some((l) => /http-buffer-request|set-path|replace-path|set-uri|replace-uri|set-header host|req\.body_size|req_body_size/i.test(l)), 'no rewrite, buffering or body limit');
  assert.ok(!section(pem1, 'frontend', 'https').some((l) => /path_beg \/s3|redirect .* if host_s3/.test(l)), 'S3 not under a prefix and never redirected');
});

test('rule 5: the console host opens at /svc/console/', () => {
  assert.ok(section(pem1, 'frontend', 'https').includes('http-request redirect location /svc/console/ code 302 if host_console { path / }'));
});

test('rule 6: port 80 redirects with 301 via redirect location, except the ACME path; unknown hosts get 404', () => {
  const http = section(acme4, 'frontend', 'http');
  assert.ok(http.includes('bind :80'));
  assert.ok(http.includes('acl acme_challenge path_beg /.well-known/acme-challenge/'));
  assert.ok(http.includes('http-request redirect location https://%[req.hdr(host),field(1,:)]%[capture.req.uri] code 301 if known_host !acme_challenge'));
  assert.ok(http.includes('use_backend acme_responder if acme_challenge known_host'));
  assert.ok(!http.some((l) => l.includes('redirect scheme')));
  for (const r of [pem1, acme4]) {
    assert.ok(section(r, 'frontend', 'http').includes('default_backend unknown_host'));
    assert.ok(section(r, 'frontend', 'https').includes('default_backend unknown_host'));
    assert.deepEqual(section(r, 'backend', 'unknown_host'), ['http-request return status 404 content-type text/plain string "unknown host"']);
  }
  assert.ok(section(pem1, 'frontend', 'http').includes('http-request redirect location https://%[req.hdr(host),field(1,:)]%[capture.req.uri] code 301 if known_host'));
});

test('rule 7: backend health checks GET /health/ready and /svc/console/health expecting 200, inter/fall/rise from the spec', () => {
  const s3 = section(pem1, 'backend', 's3');
  assert.ok(s3.includes('option httpchk GET /health/ready'));
  assert.ok(s3.includes('http-check expect status 200'));
  const con = section(pem1, 'backend', 'console');
  assert.ok(con.includes('option httpchk GET /svc/console/health'));
  assert.ok(con.includes('http-check expect status 200'));
  const defaults = section(pem1, 'defaults');
  assert.ok(defaults.includes('default-server inter 10s fall 3 rise 2'));
  assert.ok(defaults.includes('timeout check 5s'));
  assert.ok(defaults.includes('option redispatch 1'));
  assert.ok(defaults.some((l) => /^retries [1-9]$/.test(l)));
  assert.ok(servers(s3).every((s) => s.includes('check')));
  const fast = render(makeSpec({ healthCheck: { intervalSeconds: 1, timeoutSeconds: 1, fall: 3, rise: 2 } }));
  assert.ok(section(fast, 'defaults').includes('default-server inter 1s fall 3 rise 2'));
});

test('rule 10: every node is in both backends', () => {
  assert.deepEqual(servers(section(acme4, 'backend', 's3')).map((s) => s[1]), ['node1', 'node2', 'node3', 'node4']);
  assert.deepEqual(servers(section(acme4, 'backend', 'console')).map((s) => s[1]), ['node1', 'node2', 'node3', 'node4']);
});

test('rule 11: svc_console affinity cookie only on the console backend, per-node value', () => {
  const con = section(acme4, 'backend', 'console');
  assert.ok(con.includes('cookie svc_console insert indirect nocache httponly secure attr "SameSite=Lax"'));
  assert.deepEqual(servers(con).map((s) => s[s.indexOf('cookie') + 1]), ['node1', 'node2', 'node3', 'node4']);
  const elsewhere = acme4.haproxy.filter((s) => !(s.kind === 'backend' && s.name === 'console')).flatMap((s) => s.lines);
  assert.ok(!elsewhere.some((l) => /^cookie\s|\scookie\s/.test(l)));
});

test('rule 12/13: HAProxy + ACME routes the challenge to the responder and reads the combined PEM', () => {
  assert.deepEqual(section(acme4, 'backend', 'acme_responder'), ['server acme-responder acme-responder:8080 resolvers docker init-addr libc,none']);
  assert.ok(section(acme4, 'frontend', 'https').includes('bind :443 ssl crt /usr/local/etc/haproxy/certs/site.pem alpn h2,http/1.1'));
  assert.equal(pem1.haproxy.find((s) => s.name === 'acme_responder'), undefined);
});

test('rule 14: no statistics page; the runtime socket stays on loopback', () => {
  const all = pem1.haproxy.flatMap((s) => s.lines);
  assert.ok(!all.some((l) => /^stats (enable|uri)/.test(l)));
  assert.ok(section(pem1, 'global').includes('stats socket ipv4@127.0.0.1:9999 level admin'));
});

test('§8 timeouts and WebSocket: connect 10s, client/server/tunnel 1h, http-request 30s', () => {
  const defaults = section(pem1, 'defaults');
  for (const t of ['timeout connect 10s', 'timeout client 1h', 'timeout server 1h', 'timeout tunnel 1h', 'timeout http-request 30s']) assert.ok(defaults.includes(t), t);
  assert.ok(defaults.includes('mode http'));
  assert.ok(!pem1.haproxy.flatMap((s) => s.lines).some((l) => /upgrade|websocket/i.test(l) && /deny/.test(l)), 'no rule denies the WebSocket upgrade');
});

test('reload without failed requests: a soft-stopping worker keeps idle keep-alive connections (option idle-close-on-response)', () => {
  for (const { name, spec } of specMatrix().filter((m) => m.spec.proxy === 'haproxy')) {
    const defaults = section(render(spec), 'defaults');
    assert.ok(defaults.includes('option idle-close-on-response'), name);
    // Idle keep-alive connections then end after timeout http-request (no timeout http-keep-alive overrides it), so
    // an old worker is not held for timeout client (1 h) by an idle client.
    assert.ok(defaults.includes('timeout http-request 30s'), name);
    assert.ok(!defaults.some((l) => l.startsWith('timeout http-keep-alive')), name);
  }
});
