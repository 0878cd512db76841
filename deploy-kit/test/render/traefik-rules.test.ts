/**
 * One test per SPEC.md §4 rule (and §8 timeouts) for the Traefik rendering, asserted on the js-yaml
 * parse of traefik.yml / dynamic.yml; plus schema + cross-reference validation of every rendering.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LETSENCRYPT_STAGING } from '../../src/config/index.js';
import { parseTraefikRule, validateTraefik } from '../../src/validate/index.js';
import { loadTraefikSchemas, makeSpec, specMatrix } from './fixtures.js';
import { render } from './rendered.js';

const schemas = loadTraefikSchemas();
const acme = { mode: 'acme', acme: { email: 'ops@example.com' } };
const pem = render(makeSpec({ proxy: 'traefik' }));
const cl = render(makeSpec({ proxy: 'traefik', tls: acme, cluster: { nodes: 4, drivesPerNode: 4 } }));
const routers = (r: typeof pem) => r.traefikDynamic.http.routers as Record<string, any>;
const services = (r: typeof pem) => r.traefikDynamic.http.services as Record<string, any>;

test('every Traefik rendering passes the JSON Schemas and the cross-reference checks', () => {
  const traefiks = specMatrix().filter((m) => m.spec.proxy === 'traefik');
  assert.ok(traefiks.length >= 6);
  for (const { name, spec } of [...traefiks, { name: 'docker', spec: makeSpec({ proxy: 'traefik', dockerProvider: true }) }]) {
    const r = render(spec);
    const findings = validateTraefik(r.traefikStatic, r.traefikDynamic, schemas);
    assert.deepEqual(findings.filter((f) => f.level === 'error'), [], name);
  }
});

test('rule 1: S3 host -> every node :9000, console host -> every node :9001', () => {
  assert.equal(routers(cl).s3.rule, 'Host(`s3.example.com`)');
  assert.equal(routers(cl).s3.service, 's3');
  assert.equal(routers(cl).console.rule, 'Host(`console.example.com`)');
  assert.equal(routers(cl).console.service, 'console');
  assert.deepEqual(services(cl).s3.loadBalancer.servers, [1, 2, 3, 4].map((i) => ({ url: `http://node${i}:9000` })));
  assert.deepEqual(services(cl).console.loadBalancer.servers, [1, 2, 3, 4].map((i) => ({ url: `http://node${i}:9001` })));
});

test('rule 2: one certificate for both names (ACME domains main+sans; PEM one certificate)', () => {
  for (const name of ['s3', 'console', 'console-root']) {
    assert.deepEqual(routers(cl)[name].tls, { certResolver: 'letsencrypt', domains: [{ main: 's3.example.com', sans: ['console.example.com'] }] });
    assert.deepEqual(routers(pem)[name].tls, {});
  }
  const tls = pem.traefikDynamic.tls;
  assert.deepEqual(tls.certificates, [{ certFile: '/etc/traefik/certs/site.pem', keyFile: '/etc/traefik/certs/site.pem' }]);
  assert.deepEqual(tls.stores.default.defaultCertificate, { certFile: '/etc/traefik/certs/site.pem', keyFile: '/etc/traefik/certs/site.pem' });
  assert.equal(cl.traefikDynamic.tls.certificates, undefined);
});

test('rule 3: root path, Host passed, no rewriting or buffering middleware, sanitizePath false, long readTimeout', () => {
  assert.equal(routers(pem).s3.middlewares, undefined);
  assert.equal(services(pem).s3.loadBalancer.passHostHeader, true);
  const types = Object.values<any>(pem.traefikDynamic.http.middlewares).flatMap((m) => Object.keys(m));
  assert.deepEqual(types.filter((t) => /buffering|stripPrefix|replacePath|addPrefix|headers/.test(t)), []);
  const ws = pem.traefikStatic.entryPoints.websecure;
  assert.equal(ws.http.sanitizePath, false);
  assert.equal(ws.transport.respondingTimeouts.readTimeout, '1h');
});

test('rule 5: / on the console host redirects to /svc/console/', () => {
  const root = routers(pem)['console-root'];
  assert.equal(root.rule, 'Host(`console.example.com`) && Path(`/`)');
  assert.deepEqual(root.middlewares, ['console-root-redirect']);
  const rr = pem.traefikDynamic.http.middlewares['console-root-redirect'].redirectRegex;
  assert.equal('https://console.example.com/'.replace(new RegExp(rr.regex), rr.replacement.replace('${1}', '$1')), 'https://console.example.com/svc/console/');
});

test('rule 6: port 80 redirects to https (permanent; 308 for non-GET), ACME path exempt; unknown hosts match no router', () => {
  const r = routers(cl)['http-to-https'];
  assert.deepEqual(r.entryPoints, ['web']);
  assert.equal(r.rule, '(Host(`s3.example.com`) || Host(`console.example.com`)) && !PathPrefix(`/.well-known/acme-challenge/`)');
  assert.deepEqual(cl.traefikDynamic.http.middlewares['redirect-to-https'], { redirectScheme: { scheme: 'https', permanent: true } });
  for (const [name, router] of Object.entries(routers(cl))) {
    const parsed = parseTraefikRule(router.rule);
    assert.ok(parsed.ok, name);
    const hosts = parsed.ok ? parsed.matchers.filter((m) => m.name === 'Host').flatMap((m) => m.args) : [];
    assert.ok(hosts.length > 0 && hosts.every((h) => h === 's3.example.com' || h === 'console.example.com'), `${name} is host-bound`);
    assert.ok(parsed.ok && !parsed.matchers.some((m) => m.name === 'HostRegexp'), name);
  }
});

test('rule 7: healthCheck GET /health/ready and /svc/console/health, 200, interval/timeout from the spec', () => {
  assert.deepEqual(services(pem).s3.loadBalancer.healthCheck, { path: '/health/ready', interval: '10s', timeout: '5s', status: 200 });
  assert.deepEqual(services(pem).console.loadBalancer.healthCheck, { path: '/svc/console/health', interval: '10s', timeout: '5s', status: 200 });
  const fast = render(makeSpec({ proxy: 'traefik', healthCheck: { intervalSeconds: 2, timeoutSeconds: 1, fall: 3, rise: 2 } }));
  assert.deepEqual(services(fast).s3.loadBalancer.healthCheck, { path: '/health/ready', interval: '2s', timeout: '1s', status: 200 });
});

test('rule 11: SVC_CONSOLE sticky cookie only on the console service, secure/httpOnly/lax', () => {
  assert.deepEqual(services(cl).console.loadBalancer.sticky, { cookie: { name: 'SVC_CONSOLE', secure: true, httpOnly: true, sameSite: 'lax' } });
  assert.equal(services(cl).s3.loadBalancer.sticky, undefined);
  assert.equal(routers(cl).console.middlewares, undefined, 'no middleware in the way of the WebSocket upgrade');
});

test('rule 12: certificatesResolvers with HTTP-01 on web, caServer from the spec, storage acme/acme.json', () => {
  const resolver = cl.traefikStatic.certificatesResolvers.letsencrypt.acme;
  assert.deepEqual(resolver.httpChallenge, { entryPoint: 'web' });
  assert.equal(resolver.email, 'ops@example.com');
  assert.equal(resolver.caServer, 'https://acme-v02.api.letsencrypt.org/directory');
  assert.match(resolver.storage, /\/acme\/acme\.json$/);
  const staging = render(makeSpec({ proxy: 'traefik', tls: { mode: 'acme', acme: { email: 'ops@example.com', staging: true } } }));
  assert.equal(staging.traefikStatic.certificatesResolvers.letsencrypt.acme.caServer, LETSENCRYPT_STAGING);
  assert.equal(pem.traefikStatic.certificatesResolvers, undefined);
});

test('rule 14: dashboard off, file provider only; docker provider only through the socket proxy when opted in', () => {
  assert.deepEqual(pem.traefikStatic.api, { dashboard: false, insecure: false });
  assert.deepEqual(Object.keys(pem.traefikStatic.providers), ['file']);
  assert.equal(pem.traefikStatic.providers.file.filename, '/etc/traefik/dynamic.yml');
  const opted = render(makeSpec({ proxy: 'traefik', dockerProvider: true }));
  assert.deepEqual(opted.traefikStatic.providers.docker, { endpoint: 'tcp://docker-socket-proxy:2375', exposedByDefault: false });
  const findings = validateTraefik(opted.traefikStatic, opted.traefikDynamic, schemas);
  assert.deepEqual(findings.map((f) => [f.level, f.path]), [['warning', 'traefik.yml:providers.docker']]);
});

test('§8 timeouts: dial 10s, response header 1h, read/write/idle 1h on 443, 30s request read on 80', () => {
  assert.deepEqual(pem.traefikStatic.serversTransport.forwardingTimeouts, { dialTimeout: '10s', responseHeaderTimeout: '1h' });
  assert.deepEqual(pem.traefikStatic.entryPoints.websecure.transport.respondingTimeouts, { readTimeout: '1h', writeTimeout: '1h', idleTimeout: '1h' });
  assert.deepEqual(pem.traefikStatic.entryPoints.web.transport.respondingTimeouts, { readTimeout: '30s' });
});
