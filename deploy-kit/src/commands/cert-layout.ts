/** Which files a deployment's certificate goes to; the proxy configs rendered from the same spec point at them. */
import type { DeploymentSpec } from '../config/index.js';
import type { CertLayout } from '../certs/index.js';
import { CERT_PATHS } from '../render/index.js';

/** Public CA certificate written by `cert self-signed`, for clients to trust. */
export const CA_CERT_FILE = 'certs/ca.crt';

/** The combined PEM of the spec (tls.pem.file, or the default certs/site.pem when the spec uses ACME). */
export function certLayoutFor(spec: DeploymentSpec): CertLayout {
  return { combined: spec.tls.mode === 'pem' ? spec.tls.pem.file : CERT_PATHS.combinedPem };
}
