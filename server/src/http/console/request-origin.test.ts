import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyRequest } from 'fastify';
import { browserOrigin, cookie, parseCookies, sameOrigin, trustedProxies, DEFAULT_TRUSTED_PROXIES } from './request-origin.js';

function request(remoteAddress: string, headers: Record<string, string>): FastifyRequest {
  return { headers, raw: { socket: { remoteAddress, encrypted: false } } } as unknown as FastifyRequest;
}

test('X-Forwarded-Proto and -Host are believed from a trusted proxy only', () => {
  const trusted = trustedProxies(DEFAULT_TRUSTED_PROXIES);
  const fwd = { host: 'node1:9001', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'console.example.net' };
  assert.deepEqual(browserOrigin(request('10.1.2.3', fwd), trusted), { secure: true, host: 'console.example.net' });
  assert.deepEqual(browserOrigin(request('::ffff:127.0.0.1', fwd), trusted), { secure: true, host: 'console.example.net' });
  assert.deepEqual(browserOrigin(request('203.0.113.9', fwd), trusted), { secure: false, host: 'node1:9001' });
  const only = trustedProxies(['203.0.113.0/24']);
  assert.equal(browserOrigin(request('203.0.113.9', fwd), only).secure, true);
  assert.equal(browserOrigin(request('10.1.2.3', fwd), only).secure, false);
  assert.throws(() => trustedProxies(['nonsense']), /not an address/);
  assert.throws(() => trustedProxies(['10.0.0.0/40']), /prefix length/);
});

test('cookies: parsed leniently, written HttpOnly SameSite=Lax and Secure over HTTPS', () => {
  const c = parseCookies(request('127.0.0.1', { cookie: 'a=1; svc_session=v1.x.y; bad=%E0%A4%A' }));
  assert.equal(c.get('svc_session'), 'v1.x.y');
  assert.equal(c.has('bad'), false);
  assert.equal(cookie('n', 'v', { path: '/svc/console', maxAge: 60, secure: true }), 'n=v; Path=/svc/console; Max-Age=60; HttpOnly; SameSite=Lax; Secure');
  assert.ok(!cookie('n', 'v', { path: '/', maxAge: 1, secure: false }).includes('Secure'));
});

test('a request whose Origin names another host is not same-origin', () => {
  const origin = { secure: true, host: 'console.example.net' };
  assert.equal(sameOrigin(request('1.1.1.1', { origin: 'https://console.example.net' }), origin), true);
  assert.equal(sameOrigin(request('1.1.1.1', {}), origin), true);
  assert.equal(sameOrigin(request('1.1.1.1', { origin: 'https://evil.example' }), origin), false);
  assert.equal(sameOrigin(request('1.1.1.1', { origin: 'null' }), origin), false);
});
