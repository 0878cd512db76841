import type { ErrorObject } from 'ajv';
import type { Finding } from './finding.js';
import { validateAgainst } from './schema-validator.js';
import { parseTraefikRule } from './traefik-rule.js';

/** Keys Traefik accepts in `loadBalancer.healthCheck` (Traefik v3 service reference). */
export const HEALTHCHECK_KEYS = ['path', 'interval', 'timeout', 'status', 'method', 'hostname', 'port', 'headers', 'scheme', 'followRedirects'] as const;

/**
 * Keys real Traefik accepts that the SchemaStore snapshot does not list yet. `http.sanitizePath`
 * arrived in Traefik v2.11.24 / v3.3.6 (traefik/traefik#11684); the snapshot's staticHTTPConfig
 * predates it and has additionalProperties: false.
 */
const SCHEMA_LAG = [{ parent: /^\/entryPoints\/[^/]+\/http$/, key: 'sanitizePath', type: 'boolean' }] as const;

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function obj(v: unknown): Obj {
  return isObj(v) ? v : {};
}

function pointerToPath(file: string, pointer: string): string {
  return `${file}:${pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~')).join('.') || '(root)'}`;
}

function schemaFindings(file: string, errors: ErrorObject[]): Finding[] {
  const out: Finding[] = [];
  for (const e of errors) {
    if (e.keyword === 'additionalProperties') {
      const key = String((e.params as { additionalProperty?: string }).additionalProperty);
      if (SCHEMA_LAG.some((l) => l.key === key && l.parent.test(e.instancePath))) continue;
      out.push({ level: 'error', path: pointerToPath(file, `${e.instancePath}/${key}`), message: `unknown key "${key}"`, hint: 'check the spelling against the Traefik v3 reference; Traefik ignores or rejects unknown keys' });
      continue;
    }
    if (e.keyword === 'if' || e.keyword === 'anyOf' || e.keyword === 'oneOf') continue;
    out.push({ level: 'error', path: pointerToPath(file, e.instancePath), message: `${e.message ?? 'is invalid'}${e.keyword === 'required' ? '' : ` (${e.keyword})`}`, hint: 'fix the value to match the Traefik v3 schema' });
  }
  return out;
}

function checkSchemaLag(staticDoc: Obj, out: Finding[]): void {
  for (const [name, ep] of Object.entries(obj(staticDoc['entryPoints']))) {
    const http = obj(obj(ep)['http']);
    for (const lag of SCHEMA_LAG) {
      if (lag.key in http && typeof http[lag.key] !== lag.type) {
        out.push({ level: 'error', path: `traefik.yml:entryPoints.${name}.http.${lag.key}`, message: `must be a ${lag.type}`, hint: `set ${lag.key}: false` });
      }
    }
  }
}

function checkStatic(staticDoc: Obj, staticSchema: Obj, out: Finding[]): { entryPoints: Set<string>; resolvers: Set<string> } {
  const known = Object.keys(obj(staticSchema['properties']));
  for (const key of Object.keys(staticDoc)) {
    if (!known.includes(key)) {
      const near = known.find((k) => k.toLowerCase() === key.toLowerCase());
      out.push({ level: 'error', path: `traefik.yml:${key}`, message: `unknown top-level key "${key}"`, hint: near ? `did you mean "${near}"?` : `known keys: ${known.join(', ')}` });
    }
  }
  const api = obj(staticDoc['api']);
  if (api['dashboard'] === true || api['insecure'] === true) {
    out.push({ level: 'error', path: 'traefik.yml:api', message: 'the Traefik dashboard/API is enabled', hint: 'SPEC rule 14: set api.dashboard: false and never api.insecure' });
  }
  const docker = obj(staticDoc['providers'])['docker'];
  if (docker !== undefined) {
    const endpoint = String(obj(docker)['endpoint'] ?? 'unix:///var/run/docker.sock');
    out.push(
      endpoint.startsWith('unix:')
        ? { level: 'error', path: 'traefik.yml:providers.docker', message: 'reads the Docker socket directly', hint: 'SPEC rule 14: go through a read-only socket proxy (dockerProvider: true renders one)' }
        : { level: 'warning', path: 'traefik.yml:providers.docker', message: `docker provider enabled (${endpoint})`, hint: 'SPEC rule 14: whoever controls containers can add routes; prefer the file provider' },
    );
  }
  const entryPoints = new Set(Object.keys(obj(staticDoc['entryPoints'])));
  const resolvers = new Set<string>();
  for (const [name, r] of Object.entries(obj(staticDoc['certificatesResolvers']))) {
    resolvers.add(name);
    const ep = obj(obj(obj(r)['acme'])['httpChallenge'])['entryPoint'];
    if (typeof ep === 'string' && !entryPoints.has(ep)) {
      out.push({ level: 'error', path: `traefik.yml:certificatesResolvers.${name}.acme.httpChallenge.entryPoint`, message: `entrypoint "${ep}" is not defined`, hint: `define entryPoints.${ep} or use one of: ${[...entryPoints].join(', ')}` });
    }
  }
  return { entryPoints, resolvers };
}

/** A reference like `name`, `name@file` (checked) or `name@internal` (another provider: not checked). */
function refExists(ref: string, defined: Obj): boolean {
  const at = ref.indexOf('@');
  if (at < 0) return ref in defined;
  return ref.slice(at + 1) === 'file' ? ref.slice(0, at) in defined : true;
}

function checkDynamic(dynamicDoc: Obj, ctx: { entryPoints: Set<string>; resolvers: Set<string> }, out: Finding[]): void {
  const http = obj(dynamicDoc['http']);
  const services = obj(http['services']);
  const middlewares = obj(http['middlewares']);
  for (const [name, r] of Object.entries(obj(http['routers']))) {
    const router = obj(r);
    const at = `dynamic.yml:http.routers.${name}`;
    const service = router['service'];
    if (typeof service !== 'string') {
      out.push({ level: 'error', path: at, message: 'router has no service', hint: 'name a service from http.services' });
    } else if (!refExists(service, services)) {
      out.push({ level: 'error', path: `${at}.service`, message: `service "${service}" is not defined`, hint: `define http.services.${service} or use one of: ${Object.keys(services).join(', ')}` });
    }
    for (const m of Array.isArray(router['middlewares']) ? router['middlewares'] : []) {
      if (typeof m === 'string' && !refExists(m, middlewares)) {
        out.push({ level: 'error', path: `${at}.middlewares`, message: `middleware "${m}" is not defined`, hint: `define http.middlewares.${m} or use one of: ${Object.keys(middlewares).join(', ')}` });
      }
    }
    for (const ep of Array.isArray(router['entryPoints']) ? router['entryPoints'] : []) {
      if (typeof ep === 'string' && !ctx.entryPoints.has(ep)) {
        out.push({ level: 'error', path: `${at}.entryPoints`, message: `entrypoint "${ep}" is not defined in traefik.yml`, hint: `use one of: ${[...ctx.entryPoints].join(', ')}` });
      }
    }
    const resolver = obj(router['tls'])['certResolver'];
    if (typeof resolver === 'string' && !ctx.resolvers.has(resolver)) {
      out.push({ level: 'error', path: `${at}.tls.certResolver`, message: `certificate resolver "${resolver}" is not defined in traefik.yml`, hint: 'define certificatesResolvers.<name> or remove tls.certResolver' });
    }
    if (typeof router['rule'] !== 'string') {
      out.push({ level: 'error', path: `${at}.rule`, message: 'router has no rule', hint: 'e.g. rule: "Host(`s3.example.com`)"' });
    } else {
      const parsed = parseTraefikRule(router['rule']);
      if (!parsed.ok) out.push({ level: 'error', path: `${at}.rule`, message: `invalid rule: ${parsed.error}`, hint: 'matchers look like Host(`a`) && PathPrefix(`/x`), with balanced parentheses' });
    }
  }
  for (const [name, mw] of Object.entries(middlewares)) {
    for (const ref of Array.isArray(obj(obj(mw)['chain'])['middlewares']) ? (obj(obj(mw)['chain'])['middlewares'] as unknown[]) : []) {
      if (typeof ref === 'string' && !refExists(ref, middlewares)) {
        out.push({ level: 'error', path: `dynamic.yml:http.middlewares.${name}.chain`, message: `middleware "${ref}" is not defined`, hint: 'define it under http.middlewares' });
      }
    }
  }
  for (const [name, s] of Object.entries(services)) {
    const hc = obj(obj(s)['loadBalancer'])['healthCheck'];
    if (!isObj(hc)) continue;
    for (const key of Object.keys(hc)) {
      if (!(HEALTHCHECK_KEYS as readonly string[]).includes(key)) {
        const hint = key === 'fall' || key === 'rise' ? 'Traefik has no fall/rise: one failed check removes a server, one success restores it (DOCKER.md §6)' : `allowed keys: ${HEALTHCHECK_KEYS.join(', ')}`;
        out.push({ level: 'error', path: `dynamic.yml:http.services.${name}.loadBalancer.healthCheck.${key}`, message: `unknown healthCheck key "${key}"`, hint });
      }
    }
  }
}

/**
 * Validates a Traefik static (traefik.yml) and dynamic (file provider) document: the SchemaStore JSON
 * Schemas, plus what they miss (DOCKER.md §6): top-level typos, router → service / middleware /
 * entrypoint / resolver references, rule syntax, healthCheck keys, dashboard and docker socket exposure.
 */
export function validateTraefik(staticDoc: unknown, dynamicDoc: unknown, schemas: { static: object; dynamic: object }): Finding[] {
  const out: Finding[] = [];
  if (!isObj(staticDoc)) out.push({ level: 'error', path: 'traefik.yml', message: 'is not a YAML mapping', hint: 'render it again with `deploy-kit render`' });
  if (!isObj(dynamicDoc)) out.push({ level: 'error', path: 'dynamic.yml', message: 'is not a YAML mapping', hint: 'render it again with `deploy-kit render`' });
  if (!isObj(staticDoc) || !isObj(dynamicDoc)) return out;
  out.push(...schemaFindings('traefik.yml', validateAgainst(schemas.static, staticDoc)));
  out.push(...schemaFindings('dynamic.yml', validateAgainst(schemas.dynamic, dynamicDoc)));
  checkSchemaLag(staticDoc, out);
  const ctx = checkStatic(staticDoc, obj(schemas.static), out);
  checkDynamic(dynamicDoc, ctx, out);
  return out;
}
