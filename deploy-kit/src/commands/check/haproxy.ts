/**
 * haproxy.cfg: deploy-kit's structural SPEC checks (RENDER's validateHaproxyText), then the real `haproxy -c`:
 * Debian's haproxy on the host, else the proxy image through docker, else a warning (DOCKER.md §2 verified both).
 */
import { join } from 'node:path';
import { combinePem, generateSelfSigned } from '../../certs/index.js';
import type { Deps } from '../../io/index.js';
import { CONTAINER_PATHS, OUTPUT_FILES, proxyPemPaths } from '../../providers/index.js';
import { validateHaproxyText } from '../../validate/index.js';
import { finding } from './finding.js';
import type { CheckFinding } from './finding.js';
import type { CheckView } from './context.js';

const DEFAULT_HAPROXY_IMAGE = 'haproxy:2.6';

/** `haproxy -c` output → one finding per [ALERT] line; "could not resolve" warnings are expected (nodes resolve only inside compose). */
export function haproxyAlerts(output: string): string[] {
  const alerts = output.split('\n').filter((l) => l.includes('[ALERT]')).map((l) => l.replace(/^.*\[ALERT\]\s*(\(\d+\)\s*:\s*)?/, '').trim());
  return alerts.filter((a) => a !== '' && !/^Fatal errors found in configuration\.?$/.test(a));
}

async function pemForCheck(dir: string, view: CheckView, deps: Pick<Deps, 'fs' | 'clock'>): Promise<string> {
  const own = await deps.fs.readText(join(dir, view.pemFile));
  if (own !== undefined && own.includes('PRIVATE KEY')) return own;
  // No certificate yet (ACME before the first issuance): a throw-away one lets haproxy check the rest of the config.
  const b = generateSelfSigned({ hosts: view.hosts.length > 0 ? view.hosts : ['deploy-kit.invalid'], now: deps.clock.now(), days: 1 });
  return combinePem([b.leafCertPem], b.leafKeyPem);
}

/** Runs every HAProxy check of the deployment. */
export async function checkHaproxy(dir: string, view: CheckView, deps: Pick<Deps, 'fs' | 'exec' | 'clock'>): Promise<CheckFinding[]> {
  const cfg = await deps.fs.readText(join(dir, OUTPUT_FILES.haproxyConfig));
  if (cfg === undefined) return [finding.error('haproxy', `${OUTPUT_FILES.haproxyConfig} is missing`, 'run deploy-kit render')];
  const out: CheckFinding[] = validateHaproxyText(cfg).map((f) => (f.level === 'error'
    ? finding.error('haproxy', `${f.path === undefined ? '' : `${f.path}: `}${f.message}`, f.hint)
    : finding.warning('haproxy', `${f.path === undefined ? '' : `${f.path}: `}${f.message}`, f.hint)));

  const tmp = await deps.fs.makeTempDir('dk-check-');
  try {
    const pem = await pemForCheck(dir, view, deps);
    // haproxy.cfg names the PEM inside the container's certs folder; the docker variant mounts tmp where its parent is.
    const inContainer = proxyPemPaths('haproxy', view.pemFile).containerPem;
    const copy = join(tmp, 'certs', inContainer.slice(inContainer.lastIndexOf('/') + 1));
    await deps.fs.mkdirp(join(tmp, 'certs'), 0o700);
    await deps.fs.writeAtomic(copy, pem, 0o600);
    // On the host the container path of the PEM does not exist: point the copy at the temp one.
    await deps.fs.writeAtomic(join(tmp, 'host.cfg'), cfg.split(inContainer).join(copy), 0o600);
    let r = await deps.exec.run('haproxy', ['-c', '-f', join(tmp, 'host.cfg')]);
    let how = 'haproxy -c';
    if (r.notFound) {
      await deps.fs.writeAtomic(join(tmp, 'haproxy.cfg'), cfg, 0o644);
      const image = view.proxyImage ?? DEFAULT_HAPROXY_IMAGE;
      const mountAt = CONTAINER_PATHS.haproxyConfig.slice(0, CONTAINER_PATHS.haproxyConfig.lastIndexOf('/'));
      r = await deps.exec.run('docker', ['run', '--rm', '--network', 'none', '-v', `${tmp}:${mountAt}:ro`, image, 'haproxy', '-c', '-f', CONTAINER_PATHS.haproxyConfig], { timeoutMs: 120_000 });
      how = `haproxy -c (in ${image})`;
      // 125-127: docker itself failed (no daemon, no image), so nothing was checked.
      if (r.notFound || r.exitCode >= 125) {
        out.push(finding.warning('haproxy', `haproxy -c could not run: no haproxy on this host${r.notFound ? ' and no docker' : `, and docker failed: ${(r.stderr.trim().split('\n').pop() ?? '').slice(0, 200)}`}`,
          'apt-get install haproxy (Debian) so check can validate the configuration'));
        return out;
      }
    }
    if (r.exitCode !== 0) {
      const alerts = haproxyAlerts(`${r.stdout}\n${r.stderr}`);
      const lines = alerts.length > 0 ? alerts : [(`${r.stdout}\n${r.stderr}`).trim().split('\n').pop() ?? `exit ${r.exitCode}`];
      for (const a of lines) out.push(finding.error('haproxy', `${how} rejects ${OUTPUT_FILES.haproxyConfig}: ${a}`, 'run deploy-kit render --diff to see local edits, or deploy-kit render to restore it'));
    }
    return out;
  } finally {
    await deps.fs.remove(tmp);
  }
}
