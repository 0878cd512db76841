import type { DeploymentSpec } from '../../config/index.js';
import { ACME_CHALLENGE_PREFIX, CERT_PATHS, CONSOLE_PATH, COOKIES, HEALTH_PATHS, PORTS, SERVICE_NAMES, TIMEOUTS, proxyPemPaths } from '../layout.js';
import { buildTopology } from '../topology.js';

/** The haproxy.cfg view model; templates see nothing else. */
export interface HaproxyView {
  hosts: { s3: string; console: string };
  timeouts: { connect: string; client: string; server: string; tunnel: string; httpRequest: string; check: string };
  health: { inter: string; fall: number; rise: number; s3Path: string; consolePath: string };
  retries: number;
  certFile: string;
  consolePath: string;
  cookieName: string;
  servers: { name: string; host: string }[];
  ports: { s3: number; console: number };
  acme: { prefix: string; server: string; port: number } | null;
}

/**
 * Builds the HAProxy view model. `retries` + `option redispatch` make a request that hits a dying
 * node retry on another one (DOCKER.md §2); retries = nodes - 1, at least 1, at most 3.
 */
export function haproxyViewModel(spec: DeploymentSpec): HaproxyView {
  const topo = buildTopology(spec);
  const hc = spec.healthCheck;
  return {
    hosts: { ...spec.hosts },
    timeouts: { ...TIMEOUTS, check: `${hc.timeoutSeconds}s` },
    health: { inter: `${hc.intervalSeconds}s`, fall: hc.fall, rise: hc.rise, s3Path: HEALTH_PATHS.s3Ready, consolePath: HEALTH_PATHS.consoleHealth },
    retries: Math.min(3, Math.max(1, topo.nodes.length - 1)),
    certFile: proxyPemPaths('haproxy', spec.tls.mode === 'pem' ? spec.tls.pem.file : CERT_PATHS.combinedPem).containerPem,
    consolePath: CONSOLE_PATH,
    cookieName: COOKIES.haproxy,
    servers: topo.nodes.map((n) => ({ name: n.name, host: n.name })),
    ports: { s3: PORTS.s3, console: PORTS.console },
    acme: spec.tls.mode === 'acme' ? { prefix: ACME_CHALLENGE_PREFIX, server: SERVICE_NAMES.acmeResponder, port: PORTS.acmeResponder } : null,
  };
}
