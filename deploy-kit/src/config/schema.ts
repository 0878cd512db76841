/**
 * The one deployment spec (`deploy-kit.yaml`) that every rendered file is derived from.
 * Shape fixed by the deploy-kit contract; SPEC.md §4 "Deployment behind a reverse proxy" is what it encodes.
 */

/** File name of the spec inside a deployment directory. */
export const SPEC_FILE_NAME = 'deploy-kit.yaml';

/** Proxies deploy-kit can render. */
export const PROXIES = ['traefik', 'haproxy'] as const;

/** One of {@link PROXIES}. */
export type ProxyKind = (typeof PROXIES)[number];

/** Certificate modes: ACME HTTP-01 (SPEC rule 12) or a combined PEM file (SPEC rule 13). */
export const TLS_MODES = ['acme', 'pem'] as const;

/** One of {@link TLS_MODES}. */
export type TlsMode = (typeof TLS_MODES)[number];

/** ACME settings (SPEC rule 12). */
export interface AcmeSettings {
  email: string;
  directory: string;
  staging: boolean;
}

/** Certificates obtained through ACME HTTP-01. */
export interface AcmeTls {
  mode: 'acme';
  acme: AcmeSettings;
}

/** Certificate read from a combined PEM (chain first, then key), path relative to the spec's directory. */
export interface PemTls {
  mode: 'pem';
  pem: { file: string };
}

/** TLS section of the spec. */
export type TlsSpec = AcmeTls | PemTls;

/** Cluster shape: nodes × drives per node, optional parity (EC:n as the number n). */
export interface ClusterSpec {
  nodes: number;
  drivesPerNode: number;
  parity?: number;
}

/** Proxy backend health-check timings (SPEC rule 7). */
export interface HealthCheckSpec {
  intervalSeconds: number;
  timeoutSeconds: number;
  fall: number;
  rise: number;
}

/** The validated, defaults-filled deployment spec. */
export interface DeploymentSpec {
  version: 1;
  hosts: { s3: string; console: string };
  proxy: ProxyKind;
  tls: TlsSpec;
  cluster: ClusterSpec;
  /** `base`: the image the server image is built on when it is missing locally (air-gapped hosts; issue 7). */
  images: { server: string; proxy: string; base?: string };
  healthCheck: HealthCheckSpec;
  dockerProvider?: boolean;
}

/** One problem found in a raw spec; `path` is the dotted key (e.g. `hosts.console`). */
export interface Problem {
  path: string;
  message: string;
  hint?: string;
}

/** Result of {@link parseSpec}: a spec only when there are no problems. */
export interface ParseSpecResult {
  spec?: DeploymentSpec;
  problems: Problem[];
}
