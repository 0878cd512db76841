/**
 * Whether to ask the ACME CA for a certificate (SPEC rule 12: CAs rate-limit, so no re-issue while the current one
 * covers both names and has more than 30 days left). Pure: the current PEM, what deploy-kit recorded when it issued
 * it, the clock and the options in; a verdict with a sentence for the user out.
 */
import { X509Certificate } from 'node:crypto';
import { inspectCombinedPem, parseCombinedPem } from '../pem/index.js';

/** Renew when at most this many whole days are left (Let's Encrypt's own advice is renewing at 30 days). */
export const RENEW_BEFORE_DAYS = 30;

const DAY_MS = 86_400_000;

/** What deploy-kit writes beside the account key after each issuance (acme/certificate.json). */
export interface IssuanceRecord {
  /** Directory URL the certificate came from. */
  readonly directory: string;
  /** SHA-256 fingerprint of the leaf, as node prints it (`AB:CD:…`). */
  readonly fingerprint256: string;
  readonly hosts: readonly string[];
  readonly notAfter: string;
  readonly issuedAt: string;
}

/** Inputs of {@link decideRenewal}. */
export interface RenewalInput {
  /** Text of the combined PEM the proxy reads, undefined when absent. */
  readonly pemText: string | undefined;
  readonly record: IssuanceRecord | undefined;
  readonly directoryUrl: string;
  readonly hosts: readonly string[];
  readonly now: Date;
  /** `--force`: renew even a good certificate. */
  readonly force: boolean;
  readonly renewBeforeDays?: number;
}

/** The verdict: renew or keep, why, and the days left of the current leaf when it is usable. */
export interface RenewalDecision {
  readonly renew: boolean;
  readonly reason: string;
  readonly daysLeft: number | undefined;
}

/** SHA-256 fingerprint of the first certificate of a PEM text, or undefined when there is none readable. */
export function leafFingerprint(pemText: string): string | undefined {
  const first = parseCombinedPem(pemText).certificates[0];
  if (first === undefined) return undefined;
  try {
    return new X509Certificate(first).fingerprint256;
  } catch {
    return undefined;
  }
}

/** Decides whether the ACME flow must order a new certificate. */
export function decideRenewal(input: RenewalInput): RenewalDecision {
  const renewBefore = input.renewBeforeDays ?? RENEW_BEFORE_DAYS;
  if (input.pemText === undefined) return { renew: true, reason: 'no certificate yet', daysLeft: undefined };
  const report = inspectCombinedPem(input.pemText, { hosts: input.hosts, now: input.now, warnDays: 0 });
  const firstError = report.findings.find((f) => f.severity === 'error');
  if (firstError !== undefined || report.leaf === undefined) {
    return { renew: true, reason: `the current certificate is unusable: ${firstError?.message ?? 'no readable certificate'}`, daysLeft: undefined };
  }
  const daysLeft = Math.floor((report.leaf.notAfter.getTime() - input.now.getTime()) / DAY_MS);
  if (input.record === undefined || input.record.fingerprint256 !== leafFingerprint(input.pemText)) {
    return { renew: true, reason: 'the current certificate was not issued through ACME by deploy-kit (a placeholder or an imported one)', daysLeft };
  }
  if (input.record.directory !== input.directoryUrl) {
    return { renew: true, reason: `the current certificate came from another ACME directory (${input.record.directory})`, daysLeft };
  }
  if (daysLeft <= renewBefore) {
    return { renew: true, reason: `certificate valid for ${daysLeft} more days; renewing (at most ${renewBefore} left)`, daysLeft };
  }
  if (input.force) return { renew: true, reason: `certificate valid for ${daysLeft} more days; renewing because of --force`, daysLeft };
  return { renew: false, reason: `certificate valid for ${daysLeft} more days; not renewing (--force to override)`, daysLeft };
}
