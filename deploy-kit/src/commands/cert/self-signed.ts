/** `deploy-kit cert self-signed`: a local CA and a leaf for both hostnames, for trying a deployment out. */
import { generateSelfSigned, storeCertificate } from '../../certs/index.js';
import { loadSpec } from '../../config/load.js';
import type { Deps } from '../../io/index.js';
import { octal, resolveDir } from '../shared.js';
import type { GlobalFlags } from '../shared.js';
import { CA_CERT_FILE, certLayoutFor } from '../cert-layout.js';

/** Options of `cert self-signed`. */
export interface CertSelfSignedOptions {
  readonly dir: string | undefined;
  readonly days: number;
  readonly json: boolean;
}

/** Maps commander's parsed values to {@link CertSelfSignedOptions}. */
export function toCertSelfSignedOptions(raw: Record<string, unknown>, globals: GlobalFlags): CertSelfSignedOptions {
  return { dir: raw['dir'] as string | undefined, days: (raw['days'] as number | undefined) ?? 90, json: globals.json };
}

/** Generates and stores the certificate; the combined PEM is leaf, CA, key (mode 600), plus ca.crt (644). */
export async function runCertSelfSigned(opts: CertSelfSignedOptions, deps: Deps): Promise<void> {
  const dir = resolveDir(deps, opts.dir);
  const { spec } = await loadSpec(deps.fs, dir);
  const hosts = [spec.hosts.s3, spec.hosts.console];
  const now = deps.clock.now();
  const bundle = generateSelfSigned({ hosts, now, days: opts.days });
  const layout = { ...certLayoutFor(spec), ca: CA_CERT_FILE };
  const files = await storeCertificate(deps.fs, dir, layout, {
    chainPem: bundle.leafCertPem + bundle.caCertPem,
    keyPem: bundle.leafKeyPem,
    caPem: bundle.caCertPem,
  });
  const notAfter = new Date(now.getTime() + opts.days * 86_400_000).toISOString();
  if (opts.json) {
    deps.out.stdout(`${JSON.stringify({ hosts, notAfter, files }, null, 2)}\n`);
  } else {
    for (const f of files) deps.out.stdout(`wrote ${f.path} (mode ${octal(f.mode)})\n`);
    deps.out.stdout(`self-signed certificate for ${hosts.join(', ')}, valid until ${notAfter}\n`);
    deps.out.stdout(`clients must trust ${CA_CERT_FILE} (e.g. curl --cacert ${CA_CERT_FILE}, aws --ca-bundle ${CA_CERT_FILE})\n`);
  }
  if (spec.tls.mode !== 'pem') {
    deps.out.stderr(`warning: tls.mode is ${spec.tls.mode}; the proxy uses this certificate only with tls.mode: pem\n`);
  }
}
