/** A local CA and a leaf certificate for trying a deployment out (`deploy-kit cert self-signed`); pure. */
import { createCertificate, generateRsaKeyPair } from './forge.js';

/** Options of {@link generateSelfSigned}. */
export interface SelfSignedOptions {
  /** DNS names of the leaf; the first is also its CN. */
  readonly hosts: readonly string[];
  readonly now: Date;
  /** Leaf validity in days. */
  readonly days: number;
}

/** A CA and the leaf it signed, as PEM. */
export interface SelfSignedBundle {
  readonly caCertPem: string;
  readonly leafCertPem: string;
  readonly leafKeyPem: string;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * Creates a throw-away CA (valid a little longer than the leaf) and a leaf for every host. The start date is backdated
 * one hour so a client whose clock is slightly behind still accepts it.
 */
export function generateSelfSigned(opts: SelfSignedOptions): SelfSignedBundle {
  if (opts.hosts.length === 0) throw new Error('at least one hostname is needed');
  const notBefore = new Date(opts.now.getTime() - HOUR_MS);
  const ca = generateRsaKeyPair();
  const caCertPem = createCertificate({
    commonName: `deploy-kit local CA for ${opts.hosts[0] as string}`,
    dnsNames: [],
    notBefore,
    notAfter: new Date(opts.now.getTime() + (opts.days + 1) * DAY_MS),
    isCA: true,
    publicKeyPem: ca.publicKeyPem,
    selfKeyPem: ca.privateKeyPem,
  });
  const leaf = generateRsaKeyPair();
  const leafCertPem = createCertificate({
    commonName: opts.hosts[0] as string,
    dnsNames: opts.hosts,
    notBefore,
    notAfter: new Date(opts.now.getTime() + opts.days * DAY_MS),
    isCA: false,
    publicKeyPem: leaf.publicKeyPem,
    issuer: { certPem: caCertPem, keyPem: ca.privateKeyPem },
  });
  return { caCertPem, leafCertPem, leafKeyPem: leaf.privateKeyPem };
}
