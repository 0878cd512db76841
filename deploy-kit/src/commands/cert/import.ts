/** `deploy-kit cert import`: a certificate and key from files, validated, stored as the combined PEM (SPEC rule 13). */
import { resolve } from 'node:path';
import { assembleCombinedPem, inspectCombinedPem, parseCombinedPem, storeCertificate } from '../../certs/index.js';
import { loadSpec } from '../../config/load.js';
import { DeployKitError } from '../../errors.js';
import type { Deps } from '../../io/index.js';
import { octal, resolveDir } from '../shared.js';
import type { GlobalFlags } from '../shared.js';
import { certLayoutFor } from '../cert-layout.js';

/** Where the certificate comes from: a chain file plus a key file, or one combined PEM. */
export type CertSource =
  | { readonly kind: 'pair'; readonly cert: string; readonly key: string }
  | { readonly kind: 'combined'; readonly pem: string };

/** Options of `cert import`. */
export interface CertImportOptions {
  readonly dir: string | undefined;
  readonly source: CertSource;
  readonly json: boolean;
}

/** Maps commander's parsed values to {@link CertImportOptions}; the flag combination is checked here (exit 2). */
export function toCertImportOptions(raw: Record<string, unknown>, globals: GlobalFlags): CertImportOptions {
  const cert = raw['cert'] as string | undefined;
  const key = raw['key'] as string | undefined;
  const pem = raw['pem'] as string | undefined;
  const dir = raw['dir'] as string | undefined;
  if (pem !== undefined && (cert !== undefined || key !== undefined)) {
    throw new DeployKitError('DK_ERR_USAGE', '--pem cannot be combined with --cert/--key', { hint: 'give either --cert and --key, or --pem' });
  }
  if (pem !== undefined) return { dir, source: { kind: 'combined', pem }, json: globals.json };
  if (cert === undefined || key === undefined) {
    throw new DeployKitError('DK_ERR_USAGE', `missing ${cert === undefined ? '--cert' : '--key'}`, {
      hint: 'give --cert <chain.pem> --key <key.pem>, or --pem <combined.pem>',
    });
  }
  return { dir, source: { kind: 'pair', cert, key }, json: globals.json };
}

/** Reads a file the user named; absent is a DK_ERR_CERT_INVALID naming it. */
export async function readUserFile(deps: Deps, path: string): Promise<string> {
  const text = await deps.fs.readText(resolve(deps.cwd, path));
  if (text === undefined) throw new DeployKitError('DK_ERR_CERT_INVALID', `cannot read ${path}`, { hint: 'check the path' });
  return text;
}

/** Validates the certificate against the spec's hostnames and the clock, then stores it (mode 600). */
export async function runCertImport(opts: CertImportOptions, deps: Deps): Promise<void> {
  const dir = resolveDir(deps, opts.dir);
  const { spec } = await loadSpec(deps.fs, dir);
  const texts = opts.source.kind === 'pair'
    ? [await readUserFile(deps, opts.source.cert), await readUserFile(deps, opts.source.key)]
    : [await readUserFile(deps, opts.source.pem)];
  const assembled = assembleCombinedPem(texts);
  if (!assembled.ok) {
    throw new DeployKitError('DK_ERR_CERT_INVALID', 'the certificate cannot be imported', {
      hint: 'give the certificate chain and its private key as PEM', details: assembled.problems,
    });
  }
  const hosts = [spec.hosts.s3, spec.hosts.console];
  const report = inspectCombinedPem(assembled.text, { hosts, now: deps.clock.now() });
  const errors = report.findings.filter((f) => f.severity === 'error');
  if (errors.length > 0) {
    throw new DeployKitError('DK_ERR_CERT_INVALID', `the certificate is not usable for ${hosts.join(' and ')}`, {
      hint: 'fix the problems listed below and import again',
      details: errors.map((f) => `${f.message} (fix: ${f.hint})`),
    });
  }
  for (const w of report.findings.filter((f) => f.severity === 'warning')) {
    deps.out.stderr(`warning: ${w.message} (fix: ${w.hint})\n`);
  }
  const parts = parseCombinedPem(assembled.text);
  const files = await storeCertificate(deps.fs, dir, certLayoutFor(spec), {
    chainPem: parts.certificates.join(''),
    keyPem: parts.keys[0] as string,
  });
  if (opts.json) {
    deps.out.stdout(`${JSON.stringify({ hosts, notAfter: report.leaf?.notAfter.toISOString(), files }, null, 2)}\n`);
  } else {
    for (const f of files) deps.out.stdout(`wrote ${f.path} (mode ${octal(f.mode)})\n`);
    deps.out.stdout(`certificate for ${report.leaf?.dnsNames.join(', ') ?? ''} valid until ${report.leaf?.notAfter.toISOString() ?? '?'}\n`);
  }
  if (spec.tls.mode !== 'pem') {
    deps.out.stderr(`warning: tls.mode is ${spec.tls.mode}; the proxy uses this certificate only with tls.mode: pem\n`);
  }
}
