/**
 * Where things live: files in the deployment directory, paths inside the containers, ports and
 * fixed SPEC values. One table, so templates, COMMANDS (cert import, check) and tests agree.
 */

/** Rendered files, relative to the deployment directory. */
export const OUTPUT_FILES = {
  compose: 'compose.yaml',
  haproxyConfig: 'haproxy/haproxy.cfg',
  traefikStatic: 'traefik/traefik.yml',
  traefikDynamic: 'traefik/dynamic.yml',
  acmeResponder: 'acme/responder.mjs',
} as const;

/**
 * Certificate and ACME state files, relative to the deployment directory. Both proxies read the one
 * combined PEM (chain first, then key; SPEC rule 13): HAProxy as `crt`, Traefik as certFile AND keyFile
 * (Go's crypto/tls.X509KeyPair skips PEM blocks of the other kind, so one file serves both).
 */
export const CERT_PATHS = {
  combinedPem: 'certs/site.pem',
  acmeStorageDir: 'acme',
  traefikAcmeStorage: 'acme/acme.json',
  acmeChallengeDir: 'acme/challenges',
  env: '.env',
} as const;

/** Listener ports of a node (SPEC §1). */
export const PORTS = { s3: 9000, console: 9001, http: 80, https: 443, acmeResponder: 8080, socketProxy: 2375 } as const;

/** Health endpoints the proxies and the container health check probe (SPEC §4 rules 7, 8). */
export const HEALTH_PATHS = { s3Ready: '/health/ready', consoleHealth: '/svc/console/health' } as const;

/** Console base path (SPEC rule 5). */
export const CONSOLE_PATH = '/svc/console/';

/** ACME HTTP-01 challenge prefix (RFC 8555 §8.3) that the port-80 redirect exempts. */
export const ACME_CHALLENGE_PREFIX = '/.well-known/acme-challenge/';

/** SPEC §8 recommended proxy timeouts. */
export const TIMEOUTS = { connect: '10s', client: '1h', server: '1h', tunnel: '1h', httpRequest: '30s' } as const;

/** SPEC rule 8: node container health check timings (fixed, not taken from spec.healthCheck). */
export const CONTAINER_HEALTH = { interval: '10s', timeout: '5s', retries: 5, startPeriod: '30s' } as const;

/** Console affinity cookie names (SPEC rule 11). */
export const COOKIES = { traefik: 'SVC_CONSOLE', haproxy: 'svc_console' } as const;

/** Container-side paths. */
export const CONTAINER_PATHS = {
  haproxyConfig: '/usr/local/etc/haproxy/haproxy.cfg',
  /** Where the folder holding the combined PEM is mounted (read-only) in the HAProxy container. */
  haproxyCertsDir: '/usr/local/etc/haproxy/certs',
  /** The default PEM (certs/site.pem) as HAProxy sees it; {@link proxyPemPaths} gives it for any tls.pem.file. */
  haproxyPem: '/usr/local/etc/haproxy/certs/site.pem',
  traefikStatic: '/etc/traefik/traefik.yml',
  traefikDynamic: '/etc/traefik/dynamic.yml',
  traefikCertsDir: '/etc/traefik/certs',
  traefikPem: '/etc/traefik/certs/site.pem',
  traefikAcmeDir: '/etc/traefik/acme',
  traefikAcmeStorage: '/etc/traefik/acme/acme.json',
  responderScript: '/opt/acme-responder/responder.mjs',
  responderWebroot: '/srv/acme-challenges',
  singleDrive: '/data',
} as const;

/** Read-only Docker API proxy used only when spec.dockerProvider is set (SPEC rule 14). */
export const SOCKET_PROXY_IMAGE = 'tecnativa/docker-socket-proxy:0.3';

/** Service names in compose.yaml (besides node1..nodeN). */
export const SERVICE_NAMES = { proxy: 'proxy', acmeResponder: 'acme-responder', socketProxy: 'docker-socket-proxy' } as const;

/** The combined PEM's folder on the host and in the proxy container, and the PEM's path in the container. */
export interface ProxyPemPaths {
  /** The folder holding the PEM, relative to the deployment directory (e.g. `certs`). */
  readonly hostDir: string;
  /** Where that folder is mounted in the proxy container. */
  readonly containerDir: string;
  /** The PEM as the proxy reads it. */
  readonly containerPem: string;
}

/**
 * The proxy mounts the FOLDER of the combined PEM, not the file: a bind mount of a single file pins its inode, so a
 * new certificate renamed over it (the atomic replace rotation needs: never half a file) would stay invisible to
 * the container until it is recreated. `pemFile` is relative to the deployment directory and inside a folder
 * (config rule: tls.pem.file); the folder holds only certificate material (the PEM, the public ca.crt).
 */
export function proxyPemPaths(proxy: 'haproxy' | 'traefik', pemFile: string): ProxyPemPaths {
  const parts = pemFile.split(/[\\/]/).filter((p) => p !== '' && p !== '.');
  const name = parts.pop() ?? '';
  const containerDir = proxy === 'haproxy' ? CONTAINER_PATHS.haproxyCertsDir : CONTAINER_PATHS.traefikCertsDir;
  return { hostDir: parts.join('/'), containerDir, containerPem: `${containerDir}/${name}` };
}
