/**
 * The ACME flow of a deployment (SPEC rule 12, HTTP-01): decide whether a certificate is needed, optionally rehearse
 * the order against the staging directory, order from the spec's directory, validate what the CA returned, and write
 * the combined PEM (chain, then key; mode 600, atomically) where the proxy reads it.
 */
import { join } from 'node:path';
import { DeployKitError } from '../../errors.js';
import type { Clock, Fs } from '../../io/index.js';
import { combinePem, inspectCombinedPem, parseCombinedPem, readCertificate } from '../pem/index.js';
import { CERT_MODES, storeCertificate } from '../store.js';
import { loadOrCreateAccountKey } from './account.js';
import type { AcmeCa, IssuedCertificate } from './ca-port.js';
import { decideRenewal, leafFingerprint } from './decision.js';
import type { IssuanceRecord, RenewalDecision } from './decision.js';
import { createFsWebroot } from './webroot.js';

/** deploy-kit's record of the certificate it last issued, relative to the deployment directory. */
export const ISSUANCE_RECORD_FILE = 'acme/certificate.json';

/** What the flow needs from the outside. */
export interface AcmeFlowDeps {
  readonly fs: Fs;
  readonly clock: Clock;
  readonly ca: AcmeCa;
  /** One progress line (no newline). */
  readonly log: (line: string) => void;
  /**
   * Writes the new combined PEM (absolute path) instead of the default atomic replace with mode 600; `cert rotate`
   * passes one that keeps the file's inode when the proxy bind-mounts that single file.
   */
  readonly writePem?: (absPath: string, text: string) => Promise<void>;
}

/** Options of {@link obtainAcmeCertificate}. */
export interface ObtainOptions {
  /** Absolute deployment directory. */
  readonly dir: string;
  /** Both hostnames (SPEC rule 2), S3 first. */
  readonly hosts: readonly string[];
  readonly email: string;
  /** The spec's tls.acme.directory. */
  readonly directoryUrl: string;
  /** Combined PEM path relative to `dir` (CERT_PATHS.combinedPem). */
  readonly pemPath: string;
  /** HTTP-01 webroot relative to `dir` (CERT_PATHS.acmeChallengeDir). */
  readonly challengeDir: string;
  readonly force: boolean;
  /** `--staging`: order from this directory first and go on only when that works; undefined: no rehearsal. */
  readonly rehearsalDirectoryUrl: string | undefined;
  /** CA trusted for the directories' TLS besides the system roots (DEPLOY_KIT_ACME_CA_FILE). */
  readonly directoryCaPem: string | undefined;
}

/** What happened. */
export interface ObtainResult {
  readonly action: 'kept' | 'issued';
  readonly decision: RenewalDecision;
  /** True when a staging rehearsal ran and succeeded. */
  readonly rehearsed: boolean;
  /** The leaf now at `pemPath`. */
  readonly fingerprint256: string | undefined;
  readonly notAfter: Date | undefined;
}

async function readRecord(fs: Fs, dir: string): Promise<IssuanceRecord | undefined> {
  const text = await fs.readText(join(dir, ISSUANCE_RECORD_FILE));
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text) as Partial<IssuanceRecord>;
    return typeof v.directory === 'string' && typeof v.fingerprint256 === 'string' ? (v as IssuanceRecord) : undefined;
  } catch {
    return undefined;
  }
}

/** The CA's answer as one combined PEM, refused unless it is usable for every host right now. */
function checkIssued(issued: IssuedCertificate, hosts: readonly string[], now: Date, directoryUrl: string): { text: string; notAfter: Date } {
  const text = combinePem(parseCombinedPem(issued.chainPem).certificates, issued.keyPem);
  const report = inspectCombinedPem(text, { hosts, now, warnDays: 0 });
  const errors = report.findings.filter((f) => f.severity === 'error');
  if (errors.length > 0 || report.leaf === undefined) {
    throw new DeployKitError('DK_ERR_CERT_INVALID', `the certificate issued by ${directoryUrl} is not usable`, {
      hint: 'nothing was replaced; check the CA', details: errors.map((f) => f.message),
    });
  }
  return { text, notAfter: report.leaf.notAfter };
}

/** Runs the flow; throws DeployKitError on any failure and leaves the current certificate untouched then. */
export async function obtainAcmeCertificate(deps: AcmeFlowDeps, opts: ObtainOptions): Promise<ObtainResult> {
  const pemAbs = join(opts.dir, opts.pemPath);
  const pemText = await deps.fs.readText(pemAbs);
  const record = await readRecord(deps.fs, opts.dir);
  const decision = decideRenewal({
    pemText, record, directoryUrl: opts.directoryUrl, hosts: opts.hosts, now: deps.clock.now(), force: opts.force,
  });
  deps.log(decision.reason);
  if (!decision.renew) {
    const leaf = parseCombinedPem(pemText ?? '').certificates[0];
    return {
      action: 'kept', decision, rehearsed: false,
      fingerprint256: pemText === undefined ? undefined : leafFingerprint(pemText),
      notAfter: leaf === undefined ? undefined : readCertificate(leaf).notAfter,
    };
  }

  const account = await loadOrCreateAccountKey(deps.fs, opts.dir, deps.ca);
  if (account.created) deps.log('created the ACME account key acme/account.key (mode 600)');
  const base = {
    accountKeyPem: account.pem,
    email: opts.email,
    hosts: opts.hosts,
    webroot: createFsWebroot(deps.fs, join(opts.dir, opts.challengeDir)),
    ...(opts.directoryCaPem === undefined ? {} : { directoryCaPem: opts.directoryCaPem }),
  };

  let rehearsed = false;
  if (opts.rehearsalDirectoryUrl !== undefined && opts.rehearsalDirectoryUrl !== opts.directoryUrl) {
    deps.log(`rehearsing the order against the staging directory ${opts.rehearsalDirectoryUrl}`);
    const staged = await deps.ca.order({ ...base, directoryUrl: opts.rehearsalDirectoryUrl });
    checkIssued(staged, opts.hosts, deps.clock.now(), opts.rehearsalDirectoryUrl);
    rehearsed = true;
    deps.log('staging rehearsal passed (its certificate is discarded)');
  }

  deps.log(`ordering a certificate for ${opts.hosts.join(', ')} from ${opts.directoryUrl} (HTTP-01)`);
  const issued = await deps.ca.order({ ...base, directoryUrl: opts.directoryUrl });
  const { text, notAfter } = checkIssued(issued, opts.hosts, deps.clock.now(), opts.directoryUrl);
  if (deps.writePem !== undefined) {
    await deps.writePem(pemAbs, text);
  } else {
    const parts = parseCombinedPem(text);
    await storeCertificate(deps.fs, opts.dir, { combined: opts.pemPath }, { chainPem: parts.certificates.join(''), keyPem: parts.keys[0] as string });
  }
  const fingerprint256 = leafFingerprint(text) as string;
  const newRecord: IssuanceRecord = {
    directory: opts.directoryUrl, fingerprint256, hosts: [...opts.hosts], notAfter: notAfter.toISOString(), issuedAt: deps.clock.now().toISOString(),
  };
  await deps.fs.writeAtomic(join(opts.dir, ISSUANCE_RECORD_FILE), `${JSON.stringify(newRecord, null, 2)}\n`, CERT_MODES.secret);
  deps.log(`wrote ${opts.pemPath} (mode 600), valid until ${notAfter.toISOString()}`);
  return { action: 'issued', decision, rehearsed, fingerprint256, notAfter };
}
