/**
 * Validation of a combined PEM against the deployment (SPEC.md §4 rules 2 and 13): the key matches the leaf,
 * the leaf covers both hostnames, dates hold, chain before key and leaf first. Pure; findings, never throws.
 */
import { readCertificate, privateKeyId } from './forge.js';
import type { CertFacts } from './forge.js';
import { parseCombinedPem } from './parse.js';

/** One problem (or warning) about a certificate, with what to do about it. */
export interface CertFinding {
  readonly severity: 'error' | 'warning';
  /** Stable id, e.g. `cert.name-missing`. */
  readonly id: string;
  readonly message: string;
  readonly hint: string;
}

/** What {@link inspectCombinedPem} learnt. */
export interface PemReport {
  /** The first certificate of the file, when readable. */
  readonly leaf: CertFacts | undefined;
  readonly chain: readonly CertFacts[];
  readonly findings: readonly CertFinding[];
}

/** Options of {@link inspectCombinedPem}. */
export interface InspectOptions {
  /** Names the certificate must cover (both hostnames, SPEC rule 2). */
  readonly hosts: readonly string[];
  readonly now: Date;
  /** Warn when the leaf expires within this many days (default 30). */
  readonly warnDays?: number;
}

const DAY_MS = 86_400_000;

/**
 * RFC 6125 §6.4.3: a wildcard matches exactly one left-most label, so `*.example.com` covers `a.example.com`
 * but neither `example.com` nor `a.b.example.com`. Only subjectAltName counts (RFC 6125 §6.4.4: clients ignore CN when SANs exist).
 */
export function nameCovered(host: string, dnsNames: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return dnsNames.some((n) => {
    const name = n.toLowerCase().replace(/\.$/, '');
    if (name === h) return true;
    if (!name.startsWith('*.')) return false;
    const dot = h.indexOf('.');
    return dot > 0 && h.slice(dot + 1) === name.slice(2);
  });
}

function err(id: string, message: string, hint: string): CertFinding {
  return { severity: 'error', id, message, hint };
}

function warn(id: string, message: string, hint: string): CertFinding {
  return { severity: 'warning', id, message, hint };
}

/** Inspects the text of a combined PEM (leaf, intermediates, then key) for the given hostnames and date. */
export function inspectCombinedPem(text: string, opts: InspectOptions): PemReport {
  const findings: CertFinding[] = [];
  const parts = parseCombinedPem(text);
  if (parts.certificates.length === 0) {
    findings.push(err('cert.no-certificate', 'no certificate in the PEM', 'the file must hold the certificate chain, then the private key'));
  }
  if (parts.keys.length === 0) {
    findings.push(err('cert.no-key', 'no private key in the PEM', 'append the private key after the chain (deploy-kit cert import --cert --key does it)'));
  } else if (parts.keys.length > 1) {
    findings.push(err('cert.many-keys', `${parts.keys.length} private keys in the PEM`, 'keep exactly one key, the leaf certificate\'s'));
  }
  const firstKey = parts.order.indexOf('key');
  if (firstKey !== -1 && parts.order.lastIndexOf('certificate') > firstKey) {
    findings.push(err('cert.key-before-chain', 'the private key comes before (part of) the certificate chain',
      'write the chain first, then the key (SPEC rule 13); deploy-kit cert import reorders it'));
  }

  const chain: CertFacts[] = [];
  parts.certificates.forEach((pem, i) => {
    try {
      chain.push(readCertificate(pem));
    } catch (e) {
      findings.push(err('cert.unreadable', `certificate #${i + 1}: ${e instanceof Error ? e.message : String(e)}`, 'replace it with a valid PEM certificate'));
    }
  });
  const leaf = chain.length === parts.certificates.length ? chain[0] : undefined;

  let keyId: string | undefined;
  if (parts.keys.length >= 1) {
    try {
      keyId = privateKeyId(parts.keys[0] as string);
    } catch (e) {
      findings.push(err('cert.key-unreadable', e instanceof Error ? e.message : String(e), 'use an unencrypted PEM private key'));
    }
  }
  if (leaf !== undefined && keyId !== undefined && leaf.publicKeyId !== keyId) {
    const other = chain.findIndex((c) => c.publicKeyId === keyId);
    findings.push(other > 0
      ? err('cert.leaf-not-first', `the certificate matching the key is #${other + 1} of the chain, not the first`,
        'put the leaf (server) certificate first, then its intermediates')
      : err('cert.key-mismatch', 'the private key does not match the certificate', 'use the key the certificate was issued for'));
  }

  if (leaf !== undefined) {
    for (const host of opts.hosts) {
      if (!nameCovered(host, leaf.dnsNames)) {
        findings.push(err('cert.name-missing', `certificate does not cover ${host} (names: ${leaf.dnsNames.join(', ') || 'none'})`,
          'get one certificate whose subjectAltName lists both hostnames (SPEC rule 2)'));
      }
    }
    const now = opts.now.getTime();
    if (now < leaf.notBefore.getTime()) {
      findings.push(err('cert.not-yet-valid', `certificate is not valid before ${leaf.notBefore.toISOString()}`, 'check the host clock or wait until the start date'));
    } else if (now > leaf.notAfter.getTime()) {
      findings.push(err('cert.expired', `certificate expired on ${leaf.notAfter.toISOString()}`, 'renew it, or switch to tls.mode acme'));
    } else {
      const daysLeft = Math.floor((leaf.notAfter.getTime() - now) / DAY_MS);
      if (daysLeft < (opts.warnDays ?? 30)) {
        findings.push(warn('cert.expires-soon', `certificate expires in ${daysLeft} days (${leaf.notAfter.toISOString()})`, 'renew it before it expires'));
      }
    }
    if (leaf.isCA) {
      findings.push(warn('cert.leaf-is-ca', 'the first certificate is a CA certificate', 'put the server (leaf) certificate first'));
    }
    for (let i = 0; i + 1 < chain.length; i++) {
      if ((chain[i] as CertFacts).issuer !== (chain[i + 1] as CertFacts).subject) {
        findings.push(warn('cert.chain-order', `certificate #${i + 2} did not issue certificate #${i + 1}`,
          'order the chain leaf, intermediate(s), root; drop certificates that do not belong'));
        break;
      }
    }
  }
  return { leaf, chain, findings };
}
