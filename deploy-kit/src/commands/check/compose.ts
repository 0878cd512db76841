/**
 * compose.yaml: only the proxy publishes host ports, and only 80/443 (SPEC rule 9); credentials reach containers
 * through env_file .env only, never inline (SPEC §5); the Docker socket is never mounted into the proxy (rule 14).
 */
import { join } from 'node:path';
import { load } from 'js-yaml';
import type { Fs } from '../../io/index.js';
import { OUTPUT_FILES, SERVICE_NAMES } from '../../providers/index.js';
import { finding } from './finding.js';
import type { CheckFinding } from './finding.js';
import type { CheckView } from './context.js';

const CREDENTIAL_NAME = /SECRET|PASSWORD|PASSWD|ACCESS_KEY|SESSION_KEY|TOKEN|PRIVATE/i;
const INTERPOLATION = /^\$\{?[A-Za-z_]/;
const ALLOWED_PROXY_PORTS = new Set(['80', '443']);

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The host port of one compose `ports:` entry ('random' when docker picks one), and how it was written. */
export function publishedPort(entry: unknown): { host: string; text: string } {
  if (isObj(entry)) {
    const text = JSON.stringify(entry);
    return { host: entry['published'] === undefined ? 'random' : String(entry['published']), text };
  }
  const text = String(entry);
  const parts = text.replace(/\/(tcp|udp)$/, '').split(':');
  // "C" publishes C on a random host port; "H:C"; "IP:H:C" (IPv6 addresses come bracketed, so split on the last two).
  const host = parts.length === 1 ? 'random' : (parts[parts.length - 2] as string);
  return { host: host === '' ? 'random' : host, text };
}

function environmentEntries(env: unknown): [string, string][] {
  if (Array.isArray(env)) {
    return env.map((e) => String(e)).filter((e) => e.includes('=')).map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]);
  }
  if (isObj(env)) return Object.entries(env).map(([k, v]) => [k, v === null || v === undefined ? '' : String(v)]);
  return [];
}

/** Secret values from .env (long enough not to match by accident). */
export function secretValues(envText: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of (envText ?? '').split('\n')) {
    const m = /^\s*(?:export\s+)?([A-Za-z_]\w*)\s*=\s*(.*?)\s*$/.exec(line);
    if (m !== null && (m[2] as string).length >= 8) out.set(m[1] as string, (m[2] as string).replace(/^["']|["']$/g, ''));
  }
  return out;
}

/** Checks compose.yaml of the deployment. */
export async function checkCompose(dir: string, view: CheckView, fs: Fs): Promise<CheckFinding[]> {
  const text = await fs.readText(join(dir, OUTPUT_FILES.compose));
  if (text === undefined) return [finding.error('compose', `${OUTPUT_FILES.compose} is missing`, 'run deploy-kit render')];
  let doc: unknown;
  try {
    doc = load(text);
  } catch (err) {
    return [finding.error('compose', `${OUTPUT_FILES.compose} is not valid YAML: ${(err as Error).message.split('\n')[0]}`, 'run deploy-kit render to regenerate it')];
  }
  const services = isObj(doc) && isObj(doc['services']) ? doc['services'] : undefined;
  if (services === undefined) return [finding.error('compose', `${OUTPUT_FILES.compose} has no services`, 'run deploy-kit render to regenerate it')];
  const out: CheckFinding[] = [];
  for (const [name, svc] of Object.entries(services)) {
    if (!isObj(svc)) continue;
    const ports = Array.isArray(svc['ports']) ? svc['ports'] : [];
    for (const p of ports) {
      const { host, text: written } = publishedPort(p);
      if (name !== SERVICE_NAMES.proxy) {
        out.push(finding.error('compose', `service ${name} publishes port ${written} on the host`,
          `remove the ports: entry from ${name}; only the proxy publishes host ports, 9000/9001 stay internal, SPEC rule 9`));
      } else if (!ALLOWED_PROXY_PORTS.has(host)) {
        out.push(finding.error('compose', `the proxy publishes port ${written}, not 80 or 443`, 'publish only 80 and 443 (SPEC rule 9); the dashboard is never exposed (rule 14)'));
      }
    }
    for (const [key, value] of environmentEntries(svc['environment'])) {
      if (CREDENTIAL_NAME.test(key) && value !== '' && !INTERPOLATION.test(value)) {
        out.push(finding.error('compose', `service ${name} sets ${key} inline`, 'move it to .env (mode 600); compose.yaml refers to secrets only through env_file: .env (SPEC §5)'));
      }
    }
    const volumes = Array.isArray(svc['volumes']) ? svc['volumes'] : [];
    if (name === SERVICE_NAMES.proxy && volumes.some((v) => JSON.stringify(v).includes('docker.sock'))) {
      out.push(finding.error('compose', 'the proxy mounts the Docker socket', 'use the file provider, or the read-only socket proxy (dockerProvider: true); SPEC rule 14'));
    }
  }
  for (const [key, value] of secretValues(await fs.readText(join(dir, '.env')))) {
    if (text.includes(value)) {
      out.push(finding.error('compose', `${OUTPUT_FILES.compose} contains the value of ${key} from .env`, 'remove it; containers get secrets through env_file: .env only (SPEC §5)'));
    }
  }
  if (view.dockerProvider) {
    out.push(finding.warning('compose', 'the Traefik docker provider is enabled (through the read-only socket proxy)',
      'whoever controls containers on this host can add routes (SPEC rule 14); prefer the file provider unless you need it'));
  }
  return out;
}
