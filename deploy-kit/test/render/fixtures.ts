/**
 * Test-only helpers: read templates and schemas from the repository, make specs. Lives under
 * deploy-kit/test/ because render/ itself never touches the file system.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSpec } from '../../src/config/index.js';
import type { DeploymentSpec } from '../../src/config/index.js';
import type { TemplateSet } from '../../src/render/index.js';

/** Repository root (/work/main). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * Where the Traefik JSON Schemas live: $DEPLOY_KIT_TRAEFIK_SCHEMAS (scripts/test.sh sets it), else
 * ../shared/schemas/traefik from the repository root.
 */
export const TRAEFIK_SCHEMA_DIR = process.env.DEPLOY_KIT_TRAEFIK_SCHEMAS || join(REPO_ROOT, '..', 'shared', 'schemas', 'traefik');

/** Every *.hbs under templates/, keyed by its path relative to templates/. */
export function loadTemplateSet(root = join(REPO_ROOT, 'templates')): TemplateSet {
  const out: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.hbs')) out[relative(root, p).split(sep).join('/')] = readFileSync(p, 'utf8');
    }
  };
  walk(root);
  return out;
}

/** The two SchemaStore schemas the `check` command and the tests validate against. */
export function loadTraefikSchemas(): { static: object; dynamic: object } {
  return {
    static: JSON.parse(readFileSync(join(TRAEFIK_SCHEMA_DIR, 'traefik-v3.json'), 'utf8')) as object,
    dynamic: JSON.parse(readFileSync(join(TRAEFIK_SCHEMA_DIR, 'traefik-v3-file-provider.json'), 'utf8')) as object,
  };
}

/** Builds a valid spec from a few overrides, failing loudly on problems. */
export function makeSpec(overrides: Record<string, unknown> = {}): DeploymentSpec {
  const raw = {
    version: 1,
    hosts: { s3: 's3.example.com', console: 'console.example.com' },
    proxy: 'haproxy',
    tls: { mode: 'pem' },
    cluster: { nodes: 1, drivesPerNode: 1 },
    ...overrides,
  };
  const { spec, problems } = parseSpec(raw);
  if (!spec) throw new Error(`test spec invalid: ${JSON.stringify(problems)}`);
  return spec;
}

/** The spec matrix every rule test runs over: both proxies, both TLS modes, one and several nodes. */
export function specMatrix(): { name: string; spec: DeploymentSpec }[] {
  const acme = { mode: 'acme', acme: { email: 'ops@example.com' } };
  const out: { name: string; spec: DeploymentSpec }[] = [];
  for (const proxy of ['haproxy', 'traefik']) {
    for (const [tlsName, tls] of [['pem', { mode: 'pem' }], ['acme', acme]] as const) {
      for (const [clName, cluster] of [['1x1', { nodes: 1, drivesPerNode: 1 }], ['4x4', { nodes: 4, drivesPerNode: 4, parity: 2 }], ['3x1', { nodes: 3, drivesPerNode: 1 }]] as const) {
        out.push({ name: `${proxy}/${tlsName}/${clName}`, spec: makeSpec({ proxy, tls, cluster }) });
      }
    }
  }
  return out;
}
