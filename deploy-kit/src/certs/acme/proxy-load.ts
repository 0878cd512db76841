/**
 * Getting a new certificate file into a running proxy container (SPEC rule 13); used by `cert rotate`, and by
 * anything that loads a freshly issued ACME certificate into HAProxy.
 *
 * - HAProxy, default: the runtime API's `set ssl cert` + `commit ssl cert` (HAProxy ≥ 2.2) swaps the certificate in
 *   the running worker: no new process, no connection closed. The payload is read by the container from its own
 *   mounted file, so the private key never appears on a command line. Measured here under a keep-alive PUT/GET loop:
 *   the master-worker reload below lost one request in one run of four (the old worker closed idle keep-alive
 *   connections at soft-stop, racing the client's next request) until haproxy.cfg rendered
 *   `option idle-close-on-response`; the runtime API lost none.
 * - HAProxy, fallback or `--reload`: the master-worker reload (`docker kill -s USR2`): the master re-reads its
 *   configuration and certificates, starts new workers and lets the old ones finish (DOCKER.md §2).
 * - Traefik: its file provider watches the dynamic configuration, not the certificate files it names
 *   (traefik/traefik#5495, still open), so a new file is loaded by recreating the proxy.
 * - `--recreate`: `compose up -d --force-recreate --no-deps proxy` for either proxy.
 *
 * A Docker bind mount of a single file pins that file's inode: an atomic replace (a new file renamed over the old
 * one) is invisible inside the container until it is recreated. Verified here with HAProxy 2.6: rename + USR2 kept
 * serving the old certificate; the same with the certs directory mounted served the new one. So deploy-kit renders
 * a mount of the PEM's FOLDER (providers `proxyPemPaths`) and a rotation renames a complete new file into it. A
 * proxy still running from an older rendering that mounts the PEM as a single file is handled too: the new content
 * is first written completely beside it (`.<name>.next`, mode 600, atomically), then copied over the mounted file
 * in place (same inode), then the copy is removed; the proxy reads the file only when told to, after the copy.
 */
import { basename, dirname, join } from 'node:path';
import type { ProxyKind } from '../../config/index.js';
import { DeployKitError } from '../../errors.js';
import type { Exec, Fs } from '../../io/index.js';
import { CONTAINER_PATHS, proxyPemPaths } from '../../providers/index.js';
import { CERT_MODES } from '../store.js';

function tail(text: string): string[] {
  return text.split('\n').map((l) => l.trimEnd()).filter((l) => l !== '').slice(-10);
}

/** How the proxy container sees the PEM. */
export type PemMount = 'file' | 'directory';

/** The PEM as the running proxy container sees it: how it is mounted, and its path inside the container. */
export interface PemInContainer {
  readonly mount: PemMount;
  readonly path: string;
}

/**
 * Whether the container bind-mounts the PEM file itself (the single-file mount of older renderings, always at the
 * fixed `certs/site.pem` container path) or the folder holding it (today's rendering), and where it reads the PEM.
 * `pemFile` is the PEM relative to the deployment directory.
 */
export async function pemMountOf(exec: Exec, container: string, proxy: ProxyKind, pemFile: string): Promise<PemInContainer> {
  const legacy = proxy === 'haproxy' ? CONTAINER_PATHS.haproxyPem : CONTAINER_PATHS.traefikPem;
  const r = await exec.run('docker', ['inspect', '-f', '{{json .Mounts}}', container], { timeoutMs: 30_000 });
  if (r.notFound || r.exitCode !== 0) {
    throw new DeployKitError('DK_ERR_EXTERNAL_TOOL', `docker inspect ${container} failed (exit ${r.exitCode})`, { details: tail(r.stderr) });
  }
  let mounts: { Destination?: unknown }[] = [];
  try {
    const parsed = JSON.parse(r.stdout) as unknown;
    if (Array.isArray(parsed)) mounts = parsed as { Destination?: unknown }[];
  } catch {
    // treated as no file mount
  }
  if (mounts.some((m) => m.Destination === legacy)) return { mount: 'file', path: legacy };
  return { mount: 'directory', path: proxyPemPaths(proxy, pemFile).containerPem };
}

/** Writes `text` to `absPath` so that a proxy with the given mount sees it; always mode 600, never half a file on the host path's readers' reload. */
export function pemWriter(fs: Fs, exec: Exec, mount: PemMount): (absPath: string, text: string) => Promise<void> {
  return async (absPath, text) => {
    await fs.mkdirp(dirname(absPath), CERT_MODES.dir);
    const exists = (await fs.stat(absPath)) !== undefined;
    if (mount === 'directory' || !exists) {
      await fs.writeAtomic(absPath, text, CERT_MODES.secret);
      return;
    }
    const staged = join(dirname(absPath), `.${basename(absPath)}.next`);
    await fs.writeAtomic(staged, text, CERT_MODES.secret);
    const r = await exec.run('cp', [staged, absPath], { timeoutMs: 30_000 });
    if (r.notFound || r.exitCode !== 0) {
      throw new DeployKitError('DK_ERR_IO', `cannot write ${absPath} in place: ${r.stderr.trim() || `cp exit ${r.exitCode}`}`, {
        hint: `the complete new certificate is in ${staged}`,
      });
    }
    await fs.chmod(absPath, CERT_MODES.secret);
    await fs.remove(staged);
  };
}

/** The runtime API address haproxy.cfg binds on the container's loopback (rule 14: never published). */
const RUNTIME_API = '/dev/tcp/127.0.0.1/9999';

/** bash inside the proxy: a `set ssl cert` transaction fed from the mounted PEM, then its commit. */
export function hotSwapScript(containerPem: string): string {
  return `P='${containerPem}'; exec 3<>${RUNTIME_API}; { printf 'set ssl cert %s <<\n' "$P"; cat "$P"; printf '\n'; } >&3; cat <&3; exec 3<&-; `
    + `exec 3<>${RUNTIME_API}; printf 'commit ssl cert %s\n' "$P" >&3; cat <&3`;
}

/** Swaps the certificate `containerPem` (as haproxy.cfg names it) in the running HAProxy through its runtime API; the reason is returned when it cannot. */
export async function hotSwapHaproxy(exec: Exec, container: string, containerPem: string): Promise<{ ok: true } | { ok: false; error: string }> {
  const r = await exec.run('docker', ['exec', container, 'bash', '-c', hotSwapScript(containerPem)], { timeoutMs: 30_000 });
  if (!r.notFound && r.exitCode === 0 && /Success!/.test(r.stdout)) return { ok: true };
  const said = `${r.stdout}\n${r.stderr}`.split('\n').map((l) => l.trim()).filter((l) => l !== '').pop();
  return { ok: false, error: said ?? `docker exec exited ${r.exitCode}` };
}

/** HAProxy's zero-downtime reload: USR2 to the master process (PID 1 of the container). */
export async function reloadHaproxy(exec: Exec, container: string): Promise<void> {
  const r = await exec.run('docker', ['kill', '-s', 'USR2', container], { timeoutMs: 30_000 });
  if (r.notFound || r.exitCode !== 0) {
    throw new DeployKitError('DK_ERR_EXTERNAL_TOOL', `docker kill -s USR2 ${container} failed (exit ${r.exitCode})`, {
      hint: 'is the proxy running? `deploy-kit status` shows it', details: tail(r.stderr),
    });
  }
}
