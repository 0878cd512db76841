/**
 * HAProxy will not start without the certificate file its `bind :443 ssl crt` names, yet the ACME challenge must be
 * answered through that same proxy's port 80. So before the first order a short-lived self-signed certificate stands
 * in; the ACME flow never mistakes it for an issued one (it is not in acme/certificate.json).
 */
import { join } from 'node:path';
import type { Clock, Fs } from '../../io/index.js';
import { generateSelfSigned } from '../pem/index.js';
import { storeCertificate } from '../store.js';

/** Validity of the stand-in, in days. */
export const PLACEHOLDER_DAYS = 7;

/** Writes a self-signed stand-in at `pemPath` (mode 600) when no file is there; returns whether it wrote one. */
export async function ensurePlaceholderCertificate(fs: Fs, clock: Clock, dir: string, pemPath: string, hosts: readonly string[]): Promise<boolean> {
  if ((await fs.readText(join(dir, pemPath))) !== undefined) return false;
  const bundle = generateSelfSigned({ hosts, now: clock.now(), days: PLACEHOLDER_DAYS });
  await storeCertificate(fs, dir, { combined: pemPath }, { chainPem: bundle.leafCertPem, keyPem: bundle.leafKeyPem });
  return true;
}
