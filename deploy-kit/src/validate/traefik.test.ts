import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateTraefik } from './traefik.js';

// Tests may read the shared schemas ($DEPLOY_KIT_TRAEFIK_SCHEMAS, set by scripts/test.sh, else ../shared); validate/ itself never touches the file system.
const dir = process.env.DEPLOY_KIT_TRAEFIK_SCHEMAS || join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'schemas', 'traefik');
const schemas = {
  static: JSON.parse(readFileSync(join(dir, 'traefik-v3.json'), 'utf8')) as object,
  dynamic: JSON.parse(readFileSync(join(dir, 'traefik-v3-file-provider.json'), 'utf8')) as object,
};

function good(): { st: Record<string, any>; dy: Record<string, any> } {
  return {
    st: {
      api: { dashboard: false },
      entryPoints: { web: { address: ':80' }, websecure: { address: ':443', http: { sanitizePath: false } } },
      providers: { file: { filename: '/etc/traefik/dynamic.yml' } },
    },
    dy: {
      http: {
        routers: { s3: { rule: 'Host(`s3.example.com`)', entryPoints: ['websecure'], service: 's3', tls: {} } },
        services: { s3: { loadBalancer: { servers: [{ url: 'http://node1:9000' }], healthCheck: { path: '/health/ready', interval: '10s', timeout: '5s' } } } },
        middlewares: {},
      },
    },
  };
}

function errors(st: unknown, dy: unknown): string[] {
  return validateTraefik(st, dy, schemas).filter((f) => f.level === 'error').map((f) => `${f.path ?? ''} ${f.message}`);
}

test('a good pair has no findings (sanitizePath tolerated despite the schema snapshot)', () => {
  const { st, dy } = good();
  assert.deepEqual(validateTraefik(st, dy, schemas), []);
});

test('router naming a missing service', () => {
  const { st, dy } = good();
  dy.http.routers.s3.service = 's4';
  assert.deepEqual(errors(st, dy), ['dynamic.yml:http.routers.s3.service service "s4" is not defined']);
});

test('router naming a missing middleware, a missing entrypoint, a missing resolver', () => {
  const { st, dy } = good();
  dy.http.routers.s3.middlewares = ['nope', 'other@internal'];
  dy.http.routers.s3.entryPoints = ['websecur'];
  dy.http.routers.s3.tls = { certResolver: 'le' };
  assert.deepEqual(errors(st, dy).sort(), [
    'dynamic.yml:http.routers.s3.entryPoints entrypoint "websecur" is not defined in traefik.yml',
    'dynamic.yml:http.routers.s3.middlewares middleware "nope" is not defined',
    'dynamic.yml:http.routers.s3.tls.certResolver certificate resolver "le" is not defined in traefik.yml',
  ]);
});

test('unknown matcher and unbalanced rule', () => {
  const { st, dy } = good();
  dy.http.routers.s3.rule = 'Hots(`s3.example.com`)';
  assert.match(errors(st, dy).join('\n'), /invalid rule: unknown matcher "Hots"/);
  dy.http.routers.s3.rule = '(Host(`s3.example.com`)';
  assert.match(errors(st, dy).join('\n'), /invalid rule: missing "\)"/);
});

test('healthCheck fall: key is caught although the schema lets it through', () => {
  const { st, dy } = good();
  dy.http.services.s3.loadBalancer.healthCheck.fall = 3;
  const f = validateTraefik(st, dy, schemas);
  assert.deepEqual(f.map((x) => x.path), ['dynamic.yml:http.services.s3.loadBalancer.healthCheck.fall']);
  assert.match(f[0]!.hint, /no fall\/rise/);
});

test('schema typos: router key, loadBalancer key, entrypoint key, wrong type, unknown middleware type', () => {
  const { st, dy } = good();
  dy.http.routers.s3.servce = 's3';
  dy.http.services.s3.loadBalancer.stiky = {};
  dy.http.middlewares.r = { redirectSchema: { scheme: 'https' } };
  dy.http.routers.s3.priority = 'high';
  st.entryPoints.web.adress = ':80';
  const text = errors(st, dy).join('\n');
  for (const re of [/routers\.s3\.servce unknown key/, /loadBalancer\.stiky unknown key/, /entryPoints\.web\.adress unknown key/, /routers\.s3\.priority/, /middlewares\.r/]) assert.match(text, re);
});

test('top-level static typo, exposed dashboard, raw docker socket', () => {
  const { st, dy } = good();
  st.entrypoints = {};
  st.api = { dashboard: true, insecure: true };
  st.providers.docker = {};
  const f = validateTraefik(st, dy, schemas).filter((x) => x.level === 'error');
  assert.deepEqual(f.map((x) => x.path).sort(), ['traefik.yml:api', 'traefik.yml:entrypoints', 'traefik.yml:providers.docker']);
  assert.match(f.find((x) => x.path === 'traefik.yml:entrypoints')!.hint, /entryPoints/);
});

test('sanitizePath of the wrong type is still an error', () => {
  const { st, dy } = good();
  st.entryPoints.websecure.http.sanitizePath = 'no';
  assert.deepEqual(errors(st, dy), ['traefik.yml:entryPoints.websecure.http.sanitizePath must be a boolean']);
});

test('non-mapping documents are findings, not crashes', () => {
  assert.equal(validateTraefik(null, 'x', schemas).length, 2);
});
