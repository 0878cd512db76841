/** The ACME flow's options for one deployment: hosts, e-mail and directory from the spec, paths from CERT_PATHS. */
import type { AcmeSettings, DeploymentSpec } from '../../config/index.js';
import { CERT_PATHS } from '../../render/index.js';
import type { AcmeEnvironment } from './environment.js';
import type { ObtainOptions } from './obtain.js';

/** The spec's ACME settings, or undefined when deploy-kit does not run ACME for it (PEM mode, or Traefik's own resolver). */
export function deployKitAcme(spec: DeploymentSpec): AcmeSettings | undefined {
  return spec.tls.mode === 'acme' && spec.proxy === 'haproxy' ? spec.tls.acme : undefined;
}

/** {@link ObtainOptions} for `dir`; `staging` is the `--staging` flag (rehearse first). */
export function acmeOptionsFor(
  spec: DeploymentSpec, acme: AcmeSettings, dir: string, env: AcmeEnvironment, flags: { force: boolean; staging: boolean },
): ObtainOptions {
  return {
    dir,
    hosts: [spec.hosts.s3, spec.hosts.console],
    email: acme.email,
    directoryUrl: acme.directory,
    pemPath: CERT_PATHS.combinedPem,
    challengeDir: CERT_PATHS.acmeChallengeDir,
    force: flags.force,
    rehearsalDirectoryUrl: flags.staging ? env.stagingDirectoryUrl : undefined,
    directoryCaPem: env.directoryCaPem,
  };
}
