import type { HealthCheckSpec, ProxyKind } from './schema.js';

/** Let's Encrypt production directory, the default ACME CA. */
export const LETSENCRYPT_PRODUCTION = 'https://acme-v02.api.letsencrypt.org/directory';

/** Let's Encrypt staging directory, used when `tls.acme.staging` is true and no directory is given. */
export const LETSENCRYPT_STAGING = 'https://acme-staging-v02.api.letsencrypt.org/directory';

/** Default combined PEM path, relative to the deployment directory (SPEC rule 13). */
export const DEFAULT_PEM_FILE = 'certs/site.pem';

/** Default server image. */
export const DEFAULT_SERVER_IMAGE = 'svc/server:latest';

/** Default proxy image per proxy (HAProxy 2.6 is the version verified in DOCKER.md §2). */
export const DEFAULT_PROXY_IMAGES: Readonly<Record<ProxyKind, string>> = {
  haproxy: 'haproxy:2.6',
  traefik: 'traefik:v3.4',
};

/** SPEC rule 7: interval 10 s, timeout 5 s, down after 3 failures, up after 2 successes. */
export const DEFAULT_HEALTH_CHECK: Readonly<HealthCheckSpec> = {
  intervalSeconds: 10,
  timeoutSeconds: 5,
  fall: 3,
  rise: 2,
};

/** Upper bounds that keep a rendering sane; not server limits. */
export const LIMITS = {
  maxNodes: 64,
  maxDrivesPerNode: 64,
  maxHealthSeconds: 3600,
  maxFallRise: 100,
} as const;
