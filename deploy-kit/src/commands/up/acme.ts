/**
 * The ACME part of `up` for HAProxy with tls.mode acme (SPEC rule 12, HTTP-01 through the proxy's port 80): HAProxy
 * needs a certificate file to start, so a placeholder stands in before compose up; once the proxy runs, the flow
 * `cert rotate` uses decides (no re-issue while a valid certificate has more than 30 days left), orders, and a new
 * certificate is loaded into the running HAProxy before the readiness wait checks it over TLS.
 */
import {
  ensurePlaceholderCertificate, loadIntoHaproxy, obtainForDeployment, pemMountOf, pemWriter, PLACEHOLDER_DAYS,
} from '../../certs/acme/index.js';
import type { AcmeCa, ObtainResult } from '../../certs/acme/index.js';
import type { Deployment } from '../../compose/index.js';
import type { AcmeSettings, DeploymentSpec } from '../../config/index.js';
import { DeployKitError } from '../../errors.js';
import type { Deps } from '../../io/index.js';
import { certLayoutFor } from '../cert-layout.js';
import { findProxyContainer } from '../shared.js';

/** Before compose up: a self-signed stand-in when there is no certificate yet; returns the line to show, if any. */
export async function placeholderBeforeStart(deps: Deps, spec: DeploymentSpec, dir: string): Promise<string | undefined> {
  const pem = certLayoutFor(spec).combined;
  const wrote = await ensurePlaceholderCertificate(deps.fs, deps.clock, dir, pem, [spec.hosts.s3, spec.hosts.console]);
  return wrote ? `wrote a self-signed placeholder ${pem} (${PLACEHOLDER_DAYS} days) so HAProxy can start and answer the ACME challenge` : undefined;
}

/** After compose up: runs the ACME flow against the running proxy and loads a newly issued certificate into it. */
export async function obtainAfterStart(
  deps: Deps, d: Deployment, acme: AcmeSettings, ca: AcmeCa, flags: { force: boolean; staging: boolean }, log: (line: string) => void,
): Promise<ObtainResult> {
  const container = await findProxyContainer(deps.exec, d.compose);
  if (container === undefined) {
    throw new DeployKitError('DK_ERR_EXTERNAL_TOOL', `the proxy of project ${d.compose.project} is not running: the ACME challenge cannot be answered`, {
      hint: `\`deploy-kit logs proxy --dir ${d.dir}\` shows why it stopped`,
    });
  }
  const pem = await pemMountOf(deps.exec, container, d.spec.proxy, certLayoutFor(d.spec).combined);
  const writePem = pemWriter(deps.fs, deps.exec, pem.mount);
  const result = await obtainForDeployment(
    { fs: deps.fs, clock: deps.clock, env: deps.env, cwd: deps.cwd, ca, log, writePem }, d.spec, acme, d.dir, flags,
  );
  if (result.action === 'issued') await loadIntoHaproxy(deps.exec, container, { reload: false, containerPem: pem.path, log });
  return result;
}
