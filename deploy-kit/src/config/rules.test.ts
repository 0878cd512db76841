import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkDirectoryUrl, checkEmail, checkHostname, checkImageRef, checkPemInFolder, maxParity } from './rules.js';

test('hostnames', () => {
  for (const ok of ['s3.example.com', 'a.b', 'x-1.example.co.uk', `${'a'.repeat(63)}.com`]) assert.equal(checkHostname(ok), undefined, ok);
  for (const bad of ['', 'localhost', 'a..b', 'a_b.com', '-a.com', 'a-.com', `${'a'.repeat(64)}.com`, '1.2.3.4', 'a.123', '*.a.com', 'a.com:80', 'A.com']) {
    assert.notEqual(checkHostname(bad), undefined, bad);
  }
});

test('emails, directory URLs, image refs, parity', () => {
  assert.equal(checkEmail('ops@example.com'), undefined);
  assert.notEqual(checkEmail('ops@localhost'), undefined);
  assert.equal(checkDirectoryUrl('https://pebble:14000/dir'), undefined);
  assert.notEqual(checkDirectoryUrl('ftp://x'), undefined);
  assert.notEqual(checkDirectoryUrl('not a url'), undefined);
  for (const ok of ['svc/server:latest', 'haproxy:2.6', 'traefik:v3.4', 'localhost:5000/a/b:1.0', 'proj/node']) assert.equal(checkImageRef(ok), undefined, ok);
  for (const bad of ['', 'Svc/server', 'svc server', 'svc/server:', ':tag']) assert.notEqual(checkImageRef(bad), undefined, bad);
  assert.equal(maxParity(4, 4), 8);
  assert.equal(maxParity(1, 1), 0);
});

test('the combined PEM sits in a folder of its own (never the deployment directory, which holds .env)', () => {
  for (const ok of ['certs/site.pem', './certs/site.pem', 'a/b/c.pem']) assert.equal(checkPemInFolder(ok), undefined, ok);
  for (const bad of ['site.pem', './site.pem']) assert.match(checkPemInFolder(bad)?.message ?? '', /not inside a folder/, bad);
});
