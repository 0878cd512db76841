/**
 * ACME settings that come from the environment rather than the spec: a CA for the directory's own TLS (a test CA
 * such as pebble; verification is never switched off instead), the staging directory `--staging` rehearses against,
 * and acme-client's self-check.
 */
import { resolve } from 'node:path';
import { LETSENCRYPT_STAGING } from '../../config/index.js';
import { DeployKitError } from '../../errors.js';
import type { Fs } from '../../io/index.js';
import { parseCombinedPem } from '../pem/index.js';

/** Environment variables read by the ACME flow. */
export const ACME_ENV = {
  caFile: 'DEPLOY_KIT_ACME_CA_FILE',
  stagingDirectory: 'DEPLOY_KIT_ACME_STAGING_DIRECTORY',
  selfCheck: 'DEPLOY_KIT_ACME_SELF_CHECK',
} as const;

/** The resolved environment settings. */
export interface AcmeEnvironment {
  /** PEM of the CA(s) trusted for the directory's TLS in addition to the system roots. */
  readonly directoryCaPem: string | undefined;
  /** The directory `--staging` rehearses against (Let's Encrypt staging unless overridden). */
  readonly stagingDirectoryUrl: string;
  /** acme-client's reachability pre-check; `DEPLOY_KIT_ACME_SELF_CHECK=0` turns it off (test names this host cannot resolve). */
  readonly selfCheck: boolean;
}

/** Reads the ACME environment; a CA file that is missing or holds no certificate is a DK_ERR_CERT_INVALID. */
export async function readAcmeEnvironment(fs: Fs, env: Readonly<Record<string, string | undefined>>, cwd: string): Promise<AcmeEnvironment> {
  const caFile = env[ACME_ENV.caFile];
  let directoryCaPem: string | undefined;
  if (caFile !== undefined && caFile !== '') {
    const text = await fs.readText(resolve(cwd, caFile));
    if (text === undefined || parseCombinedPem(text).certificates.length === 0) {
      throw new DeployKitError('DK_ERR_CERT_INVALID', `${ACME_ENV.caFile}=${caFile} is not a readable PEM certificate file`, {
        hint: 'point it at the PEM certificate of the CA that signed the ACME directory\'s TLS certificate',
      });
    }
    directoryCaPem = text;
  }
  const staging = env[ACME_ENV.stagingDirectory];
  return {
    directoryCaPem,
    stagingDirectoryUrl: staging !== undefined && staging !== '' ? staging : LETSENCRYPT_STAGING,
    selfCheck: env[ACME_ENV.selfCheck] !== '0',
  };
}
