import type { DeploymentSpec } from '../../config/index.js';
import {
  ACME_CHALLENGE_PREFIX,
  CONSOLE_PATH,
  CONTAINER_PATHS,
  COOKIES,
  HEALTH_PATHS,
  PORTS,
  SERVICE_NAMES,
  TIMEOUTS,
  proxyPemPaths,
} from '../layout.js';
import { buildTopology } from '../topology.js';

/** Name of the Traefik ACME certificate resolver. */
export const TRAEFIK_RESOLVER = 'letsencrypt';

/** Entrypoint names. */
export const TRAEFIK_ENTRYPOINTS = { web: 'web', websecure: 'websecure' } as const;

/** The traefik.yml (static) view model. */
export interface TraefikStaticView {
  entryPoints: typeof TRAEFIK_ENTRYPOINTS;
  timeouts: { webRead: string; read: string; write: string; idle: string; dial: string; responseHeader: string };
  dynamicFile: string;
  acme: { resolver: string; email: string; caServer: string; storage: string } | null;
  docker: { endpoint: string } | null;
}

/** The dynamic.yml (file provider) view model. */
export interface TraefikDynamicView {
  entryPoints: typeof TRAEFIK_ENTRYPOINTS;
  hosts: { s3: string; console: string };
  acmePrefix: string;
  consolePath: string;
  tls: { resolver: string } | null;
  certFile: string | null;
  s3Servers: string[];
  consoleServers: string[];
  health: { interval: string; timeout: string; s3Path: string; consolePath: string };
  cookieName: string;
}

/**
 * Static view: entrypoint timeouts sized for multipart and WebSocket (SPEC §8, REFERENCE.md §3.3:
 * readTimeout defaults to 60 s and covers the whole body), ACME resolver only in ACME mode.
 */
export function traefikStaticViewModel(spec: DeploymentSpec): TraefikStaticView {
  return {
    entryPoints: TRAEFIK_ENTRYPOINTS,
    timeouts: {
      webRead: TIMEOUTS.httpRequest,
      read: TIMEOUTS.client,
      write: TIMEOUTS.server,
      idle: TIMEOUTS.client,
      dial: TIMEOUTS.connect,
      responseHeader: TIMEOUTS.server,
    },
    dynamicFile: CONTAINER_PATHS.traefikDynamic,
    acme:
      spec.tls.mode === 'acme'
        ? { resolver: TRAEFIK_RESOLVER, email: spec.tls.acme.email, caServer: spec.tls.acme.directory, storage: CONTAINER_PATHS.traefikAcmeStorage }
        : null,
    docker: spec.dockerProvider === true ? { endpoint: `tcp://${SERVICE_NAMES.socketProxy}:${PORTS.socketProxy}` } : null,
  };
}

/** Dynamic view: routers by hostname, every node in both services, console-only sticky cookie. */
export function traefikDynamicViewModel(spec: DeploymentSpec): TraefikDynamicView {
  const topo = buildTopology(spec);
  const hc = spec.healthCheck;
  return {
    entryPoints: TRAEFIK_ENTRYPOINTS,
    hosts: { ...spec.hosts },
    acmePrefix: ACME_CHALLENGE_PREFIX,
    consolePath: CONSOLE_PATH,
    tls: spec.tls.mode === 'acme' ? { resolver: TRAEFIK_RESOLVER } : null,
    certFile: spec.tls.mode === 'pem' ? proxyPemPaths('traefik', spec.tls.pem.file).containerPem : null,
    s3Servers: topo.nodes.map((n) => `http://${n.name}:${PORTS.s3}`),
    consoleServers: topo.nodes.map((n) => `http://${n.name}:${PORTS.console}`),
    health: { interval: `${hc.intervalSeconds}s`, timeout: `${hc.timeoutSeconds}s`, s3Path: HEALTH_PATHS.s3Ready, consolePath: HEALTH_PATHS.consoleHealth },
    cookieName: COOKIES.traefik,
  };
}
