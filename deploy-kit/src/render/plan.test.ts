import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseSpec } from '../config/index.js';
import type { DeploymentSpec } from '../config/index.js';
import { listTemplateFiles, planRender } from './plan.js';
import { RenderError } from './render-error.js';

const root = join(import.meta.dirname, '..', '..', '..', 'templates');
function allTemplates(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (n.endsWith('.hbs')) out[relative(root, p)] = readFileSync(p, 'utf8');
    }
  };
  walk(root);
  return out;
}

function spec(proxy: string, tls: object = { mode: 'pem' }): DeploymentSpec {
  const r = parseSpec({ version: 1, hosts: { s3: 's3.example.com', console: 'console.example.com' }, proxy, tls, cluster: { nodes: 1, drivesPerNode: 1 } });
  assert.ok(r.spec);
  return r.spec;
}

test('file lists per proxy and TLS mode', () => {
  const t = allTemplates();
  assert.deepEqual(planRender(spec('haproxy'), t).files.map((f) => [f.path, f.mode]), [['compose.yaml', 0o644], ['haproxy/haproxy.cfg', 0o644]]);
  assert.deepEqual(planRender(spec('haproxy', { mode: 'acme', acme: { email: 'a@example.com' } }), t).files.map((f) => f.path), ['compose.yaml', 'haproxy/haproxy.cfg', 'acme/responder.mjs']);
  assert.deepEqual(planRender(spec('traefik'), t).files.map((f) => f.path), ['compose.yaml', 'traefik/traefik.yml', 'traefik/dynamic.yml']);
});

test('listTemplateFiles names exactly what planRender needs', () => {
  const t = allTemplates();
  for (const proxy of ['haproxy', 'traefik'] as const) {
    const only = Object.fromEntries(listTemplateFiles(proxy).map((p) => [p, t[p]!]));
    for (const tls of [{ mode: 'pem' }, { mode: 'acme', acme: { email: 'a@example.com' } }]) assert.doesNotThrow(() => planRender(spec(proxy, tls), only));
  }
});

test('a missing template is a typed RenderError', () => {
  const t = allTemplates();
  delete t['haproxy/haproxy.cfg.hbs'];
  assert.throws(() => planRender(spec('haproxy'), t), (e: unknown) => e instanceof RenderError && e.code === 'RENDER_TEMPLATE_MISSING' && e.file === 'haproxy/haproxy.cfg');
});

test('a template naming an unknown field fails in strict mode', () => {
  const t = { ...allTemplates(), 'compose/compose.yaml.hbs': 'services: {{nope}}\n' };
  assert.throws(() => planRender(spec('haproxy'), t), (e: unknown) => e instanceof RenderError && e.code === 'RENDER_TEMPLATE_FAILED');
});

test('YAML output is parsed back: invalid YAML or a non-mapping is rejected', () => {
  for (const bad of ['services:\n  a: [1,\n', '- just\n- a list\n', 'a: 1\na: 2\n']) {
    const t = { ...allTemplates(), 'compose/compose.yaml.hbs': bad };
    assert.throws(() => planRender(spec('haproxy'), t), (e: unknown) => e instanceof RenderError && e.code === 'RENDER_OUTPUT_INVALID', bad);
  }
});

test('rendering is deterministic', () => {
  const t = allTemplates();
  assert.deepEqual(planRender(spec('traefik'), t), planRender(spec('traefik'), t));
});
