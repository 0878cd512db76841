import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateHaproxyText } from './haproxy.js';

const good = `global
    log stdout format raw local0 info
defaults
    mode http
frontend http
    bind :80
    http-request redirect location https://%[req.hdr(host),field(1,:)]%[capture.req.uri] code 301 if known
    default_backend unknown_host
frontend https
    bind :443 ssl crt /x.pem
    default_backend unknown_host
backend unknown_host
    http-request return status 404
backend s3
    option httpchk GET /health/ready
    http-check expect status 200
    server node1 node1:9000 check
backend console
    cookie svc_console insert indirect nocache httponly secure attr "SameSite=Lax"
    option httpchk GET /svc/console/health
    http-check expect status 200
    server node1 node1:9001 check cookie node1
`;

test('a conforming config has no findings', () => {
  assert.deepEqual(validateHaproxyText(good), []);
});

test('cookie on the S3 backend, buffering, path rewrite, stats page, redirect scheme', () => {
  const bad = good
    .replace('backend s3\n', 'backend s3\n    cookie svc_console insert\n    option http-buffer-request\n    http-request set-path /x\n')
    .replace('frontend https\n', 'frontend https\n    stats enable\n')
    .replace('http-request redirect location https://%[req.hdr(host),field(1,:)]%[capture.req.uri] code 301 if known', 'http-request redirect scheme https');
  const f = validateHaproxyText(bad);
  assert.deepEqual(f.map((x) => `${x.level} ${x.path}`), ['warning frontend http', 'error frontend https', 'error backend s3', 'error backend s3', 'error backend s3']);
  assert.match(f[2]!.message, /cookie outside the console backend/);
});

test('missing health check, cookie attributes, per-node value, default_backend', () => {
  const bad = good
    .replace('    http-check expect status 200\n    server node1 node1:9000', '    server node1 node1:9000')
    .replace(' attr "SameSite=Lax"', '')
    .replace('check cookie node1', 'check')
    .replace('    bind :80\n    http-request redirect location https://%[req.hdr(host),field(1,:)]%[capture.req.uri] code 301 if known\n    default_backend unknown_host', '    bind :80');
  assert.deepEqual(validateHaproxyText(bad).map((x) => x.message), [
    'no "http-check expect status 200"',
    'no secure, HttpOnly, SameSite=Lax svc_console cookie',
    'a console server has no per-node cookie value',
    'no default_backend for unknown hosts',
  ]);
});
