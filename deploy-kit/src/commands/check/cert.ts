/** SPEC §4 rules 2 and 13: the certificate matches its key, covers both hostnames, is in date, chain before key. */
import { join } from 'node:path';
import { inspectCombinedPem } from '../../certs/index.js';
import type { Clock, Fs } from '../../io/index.js';
import { CERT_PATHS } from '../../render/index.js';
import { finding } from './finding.js';
import type { CheckFinding } from './finding.js';
import type { CheckView } from './context.js';

/** Inspects the combined PEM the proxy will read (or, for Traefik + ACME, that its storage exists). */
export async function checkCertificate(dir: string, view: CheckView, deps: { fs: Fs; clock: Clock }): Promise<CheckFinding[]> {
  if (view.tlsMode === undefined) return [];
  if (view.tlsMode === 'acme' && view.proxy === 'traefik') {
    return (await deps.fs.stat(join(dir, CERT_PATHS.traefikAcmeStorage))) === undefined
      ? [finding.error('cert', `${CERT_PATHS.traefikAcmeStorage} is missing`, 'run deploy-kit render: it creates the ACME storage file with mode 600 (SPEC rule 12)')]
      : [];
  }
  const text = await deps.fs.readText(join(dir, view.pemFile));
  if (text === undefined) {
    return view.tlsMode === 'acme'
      ? [finding.warning('cert', `no certificate at ${view.pemFile} yet`, 'it is obtained over ACME HTTP-01 when the deployment starts')]
      : [finding.error('cert', `no certificate at ${view.pemFile}`, 'deploy-kit cert import --cert <chain.pem> --key <key.pem> (or deploy-kit cert self-signed to try things out)')];
  }
  const report = inspectCombinedPem(text, { hosts: view.hosts, now: deps.clock.now() });
  return report.findings.map((f) => (f.severity === 'error'
    ? finding.error('cert', `${view.pemFile}: ${f.message}`, f.hint)
    : finding.warning('cert', `${view.pemFile}: ${f.message}`, f.hint)));
}
