/**
 * The ACME flow as a command runs it against a deployment whose proxy is up: shared by `up` (first issue, and the
 * "no re-issue while > 30 days left" check on every later run, SPEC rule 12) and `cert rotate` (day two, rule 13),
 * so both order with the same options and load a new certificate into HAProxy the same way.
 */
import type { AcmeSettings, DeploymentSpec } from '../../config/index.js';
import type { Clock, Exec, Fs } from '../../io/index.js';
import { createAcmeClientCa } from './acme-client-ca.js';
import type { AcmeCa } from './ca-port.js';
import { acmeOptionsFor } from './deployment-options.js';
import { ACME_ENV, readAcmeEnvironment } from './environment.js';
import { obtainAcmeCertificate } from './obtain.js';
import type { ObtainResult } from './obtain.js';
import { hotSwapHaproxy, reloadHaproxy } from './proxy-load.js';

/** The real CA client; acme-client's self-check follows DEPLOY_KIT_ACME_SELF_CHECK (environment.ts). */
export function defaultAcmeCa(env: Readonly<Record<string, string | undefined>>): AcmeCa {
  return createAcmeClientCa({ selfCheck: env[ACME_ENV.selfCheck] !== '0' });
}

/** What {@link obtainForDeployment} needs. */
export interface DeploymentAcmeDeps {
  readonly fs: Fs;
  readonly clock: Clock;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly ca: AcmeCa;
  /** One progress line (no newline). */
  readonly log: (line: string) => void;
  /** How the new PEM reaches the proxy's mount ({@link pemWriter}). */
  readonly writePem: (absPath: string, text: string) => Promise<void>;
}

/**
 * Reads the ACME environment (DEPLOY_KIT_ACME_CA_FILE, staging directory) and runs {@link obtainAcmeCertificate} for
 * the deployment in `dir`; `force` renews regardless of the days left, `staging` rehearses first.
 */
export async function obtainForDeployment(
  deps: DeploymentAcmeDeps, spec: DeploymentSpec, acme: AcmeSettings, dir: string, flags: { force: boolean; staging: boolean },
): Promise<ObtainResult> {
  const env = await readAcmeEnvironment(deps.fs, deps.env, deps.cwd);
  return obtainAcmeCertificate(
    { fs: deps.fs, clock: deps.clock, ca: deps.ca, log: deps.log, writePem: deps.writePem },
    acmeOptionsFor(spec, acme, dir, env, flags),
  );
}

/** How a certificate got into HAProxy. */
export type HaproxyLoad = 'runtime-api' | 'reload';

/**
 * Loads the PEM now on disk (`containerPem` inside the container) into the running HAProxy `container`: the runtime API swap (no connection closed), or the
 * master-worker reload when `reload` is asked for or the swap fails (proxy-load.ts explains both).
 */
export async function loadIntoHaproxy(
  exec: Exec, container: string, opts: { reload: boolean; containerPem: string; log: (line: string) => void },
): Promise<HaproxyLoad> {
  const swapped = opts.reload ? undefined : await hotSwapHaproxy(exec, container, opts.containerPem);
  if (swapped?.ok === true) {
    opts.log('loaded into HAProxy through its runtime API (set/commit ssl cert: no reload, no connection closed)');
    return 'runtime-api';
  }
  if (swapped !== undefined) opts.log(`the runtime API did not take the certificate (${swapped.error}); reloading instead`);
  opts.log(`reloading HAProxy (master-worker, USR2) in ${container.slice(0, 12)}`);
  await reloadHaproxy(exec, container);
  return 'reload';
}
