/**
 * `deploy-kit cert rotate`: day two (SPEC rule 13). Renew from ACME or take a new PEM, validate it, replace the file
 * the proxy reads (mode 600), load it into the running proxy with a zero-downtime reload (or `--recreate`), and
 * prove by a TLS handshake that the new certificate is what the proxy serves.
 */
import { join } from 'node:path';
import {
  defaultAcmeCa, deployKitAcme, leafFingerprint, loadIntoHaproxy, obtainForDeployment, pemMountOf, pemWriter,
} from '../../certs/acme/index.js';
import type { AcmeCa } from '../../certs/acme/index.js';
import { assembleCombinedPem, inspectCombinedPem } from '../../certs/index.js';
import { openDeployment, proxyAddress } from '../../compose/index.js';
import { DeployKitError } from '../../errors.js';
import type { Deps } from '../../io/index.js';
import { findProxyContainer, resolveDir } from '../shared.js';
import type { GlobalFlags } from '../shared.js';
import { certLayoutFor } from '../cert-layout.js';
import { readUserFile, toCertImportOptions } from './import.js';
import type { CertSource } from './import.js';
import { recreateProxy } from './rotate-load.js';
import { createFingerprintProbe, waitForServed } from './rotate-probe.js';
import type { FingerprintProbe } from './rotate-probe.js';

/** Options of `cert rotate`. */
export interface CertRotateOptions {
  readonly dir: string | undefined;
  readonly project: string | undefined;
  /** A new certificate from files; undefined: renew through ACME. */
  readonly source: CertSource | undefined;
  readonly recreate: boolean;
  /** HAProxy: the master-worker reload instead of the runtime API swap. */
  readonly reload: boolean;
  readonly force: boolean;
  readonly staging: boolean;
  /** Where the TLS check connects (default: the proxy's published 443). */
  readonly address: string | undefined;
  readonly httpsPort: number | undefined;
  readonly verifyTimeoutSeconds: number;
  readonly json: boolean;
}

/** Maps commander's parsed values to {@link CertRotateOptions}; `--pem` with `--cert/--key`, or half a pair, is a usage error. */
export function toCertRotateOptions(raw: Record<string, unknown>, globals: GlobalFlags): CertRotateOptions {
  const given = raw['pem'] !== undefined || raw['cert'] !== undefined || raw['key'] !== undefined;
  const s = (k: string): string | undefined => (typeof raw[k] === 'string' ? (raw[k] as string) : undefined);
  return {
    dir: s('dir'),
    project: s('project'),
    source: given ? toCertImportOptions(raw, globals).source : undefined,
    recreate: raw['recreate'] === true,
    reload: raw['reload'] === true,
    force: raw['force'] === true,
    staging: raw['staging'] === true,
    address: s('address'),
    httpsPort: raw['httpsPort'] as number | undefined,
    verifyTimeoutSeconds: (raw['verifyTimeout'] as number | undefined) ?? 30,
    json: globals.json,
  };
}

/** What `cert rotate` talks to besides Deps; tests pass fakes. */
export interface RotateTools {
  readonly ca: AcmeCa;
  readonly probe: FingerprintProbe;
  readonly sleep: (ms: number) => Promise<void>;
}

/** The real CA client (self-check per DEPLOY_KIT_ACME_SELF_CHECK) and TLS probe. */
export function defaultRotateTools(deps: Pick<Deps, 'env'>): RotateTools {
  return {
    ca: defaultAcmeCa(deps.env),
    probe: createFingerprintProbe(),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  };
}

/** Reads and validates a new certificate from files: key match, both names, in date (DK_ERR_CERT_INVALID, exit 2). */
async function certificateFromFiles(deps: Deps, source: CertSource, hosts: readonly string[]): Promise<string> {
  const texts = source.kind === 'pair'
    ? [await readUserFile(deps, source.cert), await readUserFile(deps, source.key)]
    : [await readUserFile(deps, source.pem)];
  const assembled = assembleCombinedPem(texts);
  if (!assembled.ok) {
    throw new DeployKitError('DK_ERR_CERT_INVALID', 'the new certificate cannot be used', {
      hint: 'give the certificate chain and its private key as PEM; nothing was replaced', details: assembled.problems,
    });
  }
  const report = inspectCombinedPem(assembled.text, { hosts, now: deps.clock.now() });
  const errors = report.findings.filter((f) => f.severity === 'error');
  if (errors.length > 0) {
    throw new DeployKitError('DK_ERR_CERT_INVALID', `the new certificate is not usable for ${hosts.join(' and ')}`, {
      hint: 'fix the problems below; nothing was replaced', details: errors.map((f) => `${f.message} (fix: ${f.hint})`),
    });
  }
  for (const w of report.findings.filter((f) => f.severity === 'warning')) deps.out.stderr(`warning: ${w.message}\n`);
  return assembled.text;
}

/** Runs the rotation. */
export async function runCertRotate(opts: CertRotateOptions, deps: Deps, tools: RotateTools = defaultRotateTools(deps)): Promise<void> {
  const dir = resolveDir(deps, opts.dir);
  const d = await openDeployment(deps, dir, opts.project);
  const { spec } = d;
  const hosts = [spec.hosts.s3, spec.hosts.console];
  const say = (line: string): void => { if (!opts.json) deps.out.stdout(`${line}\n`); };

  const acme = deployKitAcme(spec);
  if (opts.source === undefined && acme === undefined) {
    throw spec.tls.mode === 'acme'
      ? new DeployKitError('DK_ERR_USAGE', 'Traefik obtains and renews its ACME certificate itself; deploy-kit has nothing to rotate', {
        hint: 'Traefik renews 30 days before expiry (acme/acme.json); use tls.mode pem to manage the certificate with deploy-kit',
      })
      : new DeployKitError('DK_ERR_USAGE', 'tls.mode is pem: give the new certificate', { hint: 'deploy-kit cert rotate --pem <combined.pem>, or --cert <chain.pem> --key <key.pem>' });
  }
  if (opts.source !== undefined && spec.proxy === 'traefik' && spec.tls.mode === 'acme') {
    throw new DeployKitError('DK_ERR_USAGE', 'with tls.mode acme Traefik serves its own ACME certificate and never reads a PEM file', {
      hint: 'set tls.mode: pem in deploy-kit.yaml and run `deploy-kit up` to serve your own certificate',
    });
  }

  const container = await findProxyContainer(deps.exec, d.compose);
  const pemRel = certLayoutFor(spec).combined;
  const pem = container === undefined ? undefined : await pemMountOf(deps.exec, container, spec.proxy, pemRel);
  const writePem = pemWriter(deps.fs, deps.exec, pem?.mount ?? 'directory');
  const pemAbs = join(dir, pemRel);

  let fingerprint: string;
  let changed: boolean;
  if (opts.source !== undefined) {
    const text = await certificateFromFiles(deps, opts.source, hosts);
    if (acme !== undefined) deps.out.stderr('warning: tls.mode is acme; the next `deploy-kit up` replaces this certificate with an ACME one\n');
    await writePem(pemAbs, text);
    say(`replaced ${pemRel} (mode 600)`);
    fingerprint = leafFingerprint(text) as string;
    changed = true;
  } else {
    const result = await obtainForDeployment(
      { fs: deps.fs, clock: deps.clock, env: deps.env, cwd: deps.cwd, ca: tools.ca, log: say, writePem },
      spec, acme!, dir, { force: opts.force, staging: opts.staging },
    );
    if (result.fingerprint256 === undefined) throw new DeployKitError('DK_ERR_INTERNAL', `no certificate at ${pemRel} after the ACME flow`);
    fingerprint = result.fingerprint256;
    changed = result.action === 'issued';
  }

  const report = (loadedBy: string, verified: boolean): void => {
    if (opts.json) deps.out.stdout(`${JSON.stringify({ file: pemRel, fingerprint256: fingerprint, changed, loadedBy, verified }, null, 2)}\n`);
  };
  if (container === undefined || pem === undefined) {
    deps.out.stderr(`warning: the proxy of project ${d.compose.project} is not running; \`deploy-kit up\` will load the new certificate\n`);
    report('none', false);
    return;
  }

  const at = await proxyAddress(deps.fs, d);
  const wait = {
    address: opts.address ?? at.address, port: opts.httpsPort ?? at.httpsPort, hosts, fingerprint256: fingerprint,
    timeoutMs: opts.verifyTimeoutSeconds * 1000, intervalMs: 200, sleep: tools.sleep,
  };
  if (!changed && !opts.recreate) {
    const already = await waitForServed(tools.probe, { ...wait, timeoutMs: wait.intervalMs });
    if (already.ok) {
      say('the proxy already serves this certificate');
      report('none', true);
      return;
    }
  }

  let loadedBy: 'runtime-api' | 'reload' | 'recreate';
  if (opts.recreate || spec.proxy === 'traefik') {
    if (!opts.recreate) say('Traefik does not watch certificate files (traefik/traefik#5495): recreating the proxy');
    say(`recreating the proxy of project ${d.compose.project}`);
    await recreateProxy(deps.exec, d.compose);
    loadedBy = 'recreate';
  } else {
    loadedBy = await loadIntoHaproxy(deps.exec, container, { reload: opts.reload, containerPem: pem.path, log: say });
  }

  const served = await waitForServed(tools.probe, wait);
  if (!served.ok) {
    throw new DeployKitError('DK_ERR_EXTERNAL_TOOL', `the proxy does not serve the new certificate after ${opts.verifyTimeoutSeconds} s`, {
      hint: loadedBy !== 'recreate' ? 'try `deploy-kit cert rotate --recreate`; `deploy-kit logs proxy` shows why the reload failed' : '`deploy-kit logs proxy` shows why',
      details: [`expected ${fingerprint}`, ...served.seen],
    });
  }
  say(`the proxy serves the new certificate (${fingerprint.slice(0, 23)}…) on ${hosts.join(' and ')}`);
  report(loadedBy, true);
}
