/**
 * Where the proxy's ports 80/443 are published. The rendered compose.yaml publishes `80:80` and `443:443`
 * (SPEC rule 9); tests and hosts where those ports are taken or privileged override the host side only, through
 * `--publish-http/--publish-https` or DEPLOY_KIT_PUBLISH_HTTP/_HTTPS. compose merges `ports:` of override files
 * instead of replacing them (v1 has no `!reset`), so an override is a full copy of compose.yaml with the proxy's
 * ports replaced, written beside it (relative paths keep resolving against the same directory).
 */
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { DeployKitError } from '../errors.js';
import type { Fs } from '../io/index.js';
import { OUTPUT_FILES, PORTS } from '../providers/index.js';

/** The compose file `up` writes when ports are overridden; down/logs/status use it while it exists. */
export const PUBLISHED_COMPOSE_FILE = '.compose.published.yaml';

/** A host side of a published port: an optional address and a port. */
export interface HostBinding {
  readonly address: string | undefined;
  readonly port: number;
}

/** Host bindings of the proxy's 80 and 443; undefined keeps the rendered `80:80` / `443:443`. */
export interface PublishOverride {
  readonly http: HostBinding | undefined;
  readonly https: HostBinding | undefined;
}

/** Parses `[address:]port` (IPv4 address or a name); a bad value is a usage error. */
export function parseHostBinding(value: string, what: string): HostBinding {
  const m = /^(?:([A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(value.trim());
  const port = m === null ? NaN : Number(m[2]);
  if (m === null || port < 1 || port > 65535) {
    throw new DeployKitError('DK_ERR_USAGE', `${what}: "${value}" is not [address:]port`, { hint: 'e.g. 127.0.0.1:8443 or 8443' });
  }
  return { address: m[1], port };
}

/** The override from flags first, then DEPLOY_KIT_PUBLISH_HTTP / DEPLOY_KIT_PUBLISH_HTTPS. */
export function publishOverride(
  flags: { http: string | undefined; https: string | undefined },
  env: Readonly<Record<string, string | undefined>>,
): PublishOverride {
  const http = flags.http ?? env['DEPLOY_KIT_PUBLISH_HTTP'];
  const https = flags.https ?? env['DEPLOY_KIT_PUBLISH_HTTPS'];
  return {
    http: http === undefined || http === '' ? undefined : parseHostBinding(http, 'publish http'),
    https: https === undefined || https === '' ? undefined : parseHostBinding(https, 'publish https'),
  };
}

function bindingText(b: HostBinding, container: number): string {
  return `${b.address === undefined ? '' : `${b.address}:`}${b.port}:${container}`;
}

type ComposeDoc = { services?: Record<string, { ports?: unknown[] } | undefined> };

function parseCompose(text: string, path: string): ComposeDoc {
  try {
    const doc = load(text);
    if (doc !== null && typeof doc === 'object') return doc as ComposeDoc;
  } catch {
    // reported below
  }
  throw new DeployKitError('DK_ERR_IO', `${path} is not a compose file`, { hint: 'run `deploy-kit render` to write it again' });
}

/**
 * Writes the published-ports copy of compose.yaml when an override is given (and removes a stale one when not);
 * returns the absolute path of the compose file to run.
 */
export async function prepareComposeFile(fs: Fs, dir: string, override: PublishOverride, proxyService: string): Promise<string> {
  const base = join(dir, OUTPUT_FILES.compose);
  const published = join(dir, PUBLISHED_COMPOSE_FILE);
  if (override.http === undefined && override.https === undefined) {
    await fs.remove(published);
    return base;
  }
  const text = await fs.readText(base);
  if (text === undefined) throw new DeployKitError('DK_ERR_IO', `no ${OUTPUT_FILES.compose} in ${dir}`, { hint: 'run `deploy-kit render`' });
  const doc = parseCompose(text, base);
  const proxy = doc.services?.[proxyService];
  if (proxy === undefined) throw new DeployKitError('DK_ERR_IO', `${base} has no service "${proxyService}"`, { hint: 'run `deploy-kit render`' });
  proxy.ports = [
    override.http === undefined ? `${PORTS.http}:${PORTS.http}` : bindingText(override.http, PORTS.http),
    override.https === undefined ? `${PORTS.https}:${PORTS.https}` : bindingText(override.https, PORTS.https),
  ];
  const header = `# Written by \`deploy-kit up\` from ${OUTPUT_FILES.compose} with the proxy's published ports overridden; do not edit.\n`;
  await fs.writeAtomic(published, header + dump(doc, { lineWidth: -1, noRefs: true }), 0o644);
  return published;
}

/** The compose file a running deployment was started from: the published copy while it exists. */
export async function currentComposeFile(fs: Fs, dir: string): Promise<string> {
  const published = join(dir, PUBLISHED_COMPOSE_FILE);
  return (await fs.stat(published)) === undefined ? join(dir, OUTPUT_FILES.compose) : published;
}

/** Where a container port of `service` is published on the host, read from a compose file (`80:80` → port 80). */
export async function publishedBinding(fs: Fs, composeFile: string, service: string, containerPort: number): Promise<HostBinding | undefined> {
  const text = await fs.readText(composeFile);
  if (text === undefined) return undefined;
  const ports = parseCompose(text, composeFile).services?.[service]?.ports ?? [];
  for (const p of ports) {
    const m = typeof p === 'string' ? /^(?:(.+):)?(\d+):(\d+)$/.exec(p) : null;
    if (m !== null && Number(m[3]) === containerPort) return { address: m[1], port: Number(m[2]) };
  }
  return undefined;
}
