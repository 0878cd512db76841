/**
 * `deploy-kit status`: the deployment as clients and the proxy see it — each backend server UP/DOWN from HAProxy's
 * runtime API (SPEC §4 rule 7), readiness through the proxy over TLS, and the served certificate's names and days left.
 */
import {
  createTlsProbe,
  daysLeft,
  describeProbe,
  listContainers,
  openDeployment,
  proxyAddress,
  readDeploymentCa,
  readServerStates,
} from '../../compose/index.js';
import type { ContainerState, ProbeResult, ProxyProbe, ServerState } from '../../compose/index.js';
import { DeployKitError } from '../../errors.js';
import type { Deps } from '../../io/index.js';
import { HEALTH_PATHS, SERVICE_NAMES } from '../../providers/index.js';
import { paint, resolveDir } from '../shared.js';

/** Options of `status`. */
export interface StatusOptions {
  readonly dir: string | undefined;
  readonly project: string | undefined;
  readonly json: boolean;
}

/** The report `status` prints. */
export interface StatusReport {
  readonly project: string;
  readonly containers: readonly ContainerState[];
  /** Backend servers as the proxy sees them; `error` when the runtime API could not be read. */
  readonly backends: { readonly servers: readonly ServerState[]; readonly error: string | undefined };
  readonly ready: { readonly s3: string; readonly console: string };
  readonly certificate: { readonly names: readonly string[]; readonly notAfter: string; readonly daysLeft: number; readonly issuer: string } | undefined;
  /** True when every backend server is UP and both probes answered 200. */
  readonly healthy: boolean;
}

function verdict(r: ProbeResult): string {
  return r.ok && r.status === 200 ? 'ready' : `not ready (${describeProbe(r)})`;
}

/** Gathers the report (exported for tests and for `cert rotate`-style callers). */
export async function collectStatus(opts: StatusOptions, deps: Deps, probe: ProxyProbe): Promise<StatusReport> {
  const d = await openDeployment(deps, resolveDir(deps, opts.dir), opts.project);
  const containers = await listContainers(deps.exec, d.compose);
  if (containers.length === 0) {
    throw new DeployKitError('DK_ERR_EXTERNAL_TOOL', `project ${d.compose.project} has no containers`, { hint: 'start it with `deploy-kit up` (or pass the --project it was started with)' });
  }
  const proxy = containers.find((c) => c.service === SERVICE_NAMES.proxy && c.status === 'running');
  let backends: StatusReport['backends'] = { servers: [], error: 'the proxy container is not running' };
  if (proxy !== undefined && d.spec.proxy === 'haproxy') {
    const r = await readServerStates(deps.exec, proxy.id);
    backends = 'states' in r ? { servers: r.states, error: undefined } : { servers: [], error: r.error };
  } else if (proxy !== undefined) {
    backends = { servers: [], error: 'per-server state is read from HAProxy only (Traefik exposes no API here: SPEC rule 14)' };
  }
  const at = await proxyAddress(deps.fs, d);
  const ca = await readDeploymentCa(deps.fs, d.dir);
  const base = { address: at.address, port: at.httpsPort, ca, timeoutMs: 5000 };
  const s3 = await probe.get({ ...base, host: d.spec.hosts.s3, path: HEALTH_PATHS.s3Ready });
  const consoleProbe = await probe.get({ ...base, host: d.spec.hosts.console, path: HEALTH_PATHS.consoleHealth });
  const served = s3.ok ? s3.certificate : consoleProbe.ok ? consoleProbe.certificate : undefined;
  const now = deps.clock.now();
  const certificate = served === undefined ? undefined
    : { names: served.names, notAfter: served.notAfter.toISOString(), daysLeft: daysLeft(served.notAfter, now), issuer: served.issuer };
  const serversUp = backends.error === undefined && backends.servers.length > 0 && backends.servers.every((s) => s.status.startsWith('UP') || s.status === 'no check');
  return {
    project: d.compose.project,
    containers,
    backends,
    ready: { s3: verdict(s3), console: verdict(consoleProbe) },
    certificate,
    healthy: serversUp && verdict(s3) === 'ready' && verdict(consoleProbe) === 'ready',
  };
}

/** Prints the status; exit 0 also when something is down (the report says so; `check` is the gate). */
export async function runStatus(opts: StatusOptions, deps: Deps, probe: ProxyProbe = createTlsProbe()): Promise<void> {
  const r = await collectStatus(opts, deps, probe);
  if (opts.json) {
    deps.out.stdout(`${JSON.stringify(r, null, 2)}\n`);
    return;
  }
  const tone = (ok: boolean): 'green' | 'red' => (ok ? 'green' : 'red');
  const lines = [`project ${r.project}: ${paint(deps.out, tone(r.healthy), r.healthy ? 'healthy' : 'degraded')}`, 'containers:'];
  for (const c of r.containers) lines.push(`  ${c.service.padEnd(16)} ${c.status}${c.health === '' ? '' : ` (${c.health})`}`);
  lines.push('backend servers (as the proxy sees them):');
  if (r.backends.error !== undefined) lines.push(`  unknown: ${r.backends.error}`);
  for (const s of r.backends.servers) {
    lines.push(`  ${`${s.backend}/${s.server}`.padEnd(24)} ${paint(deps.out, tone(s.status.startsWith('UP')), s.status)}${s.check === '' ? '' : ` (last check ${s.check})`}`);
  }
  lines.push('through the proxy:');
  lines.push(`  S3 ${HEALTH_PATHS.s3Ready}`.padEnd(34) + r.ready.s3);
  lines.push(`  console ${HEALTH_PATHS.consoleHealth}`.padEnd(34) + r.ready.console);
  if (r.certificate === undefined) lines.push('certificate: not read (no TLS answer)');
  else {
    lines.push(`certificate: ${r.certificate.names.join(', ')}; issuer ${r.certificate.issuer}; expires ${r.certificate.notAfter} (${paint(deps.out, tone(r.certificate.daysLeft > 30), `${r.certificate.daysLeft} days left`)})`);
  }
  deps.out.stdout(`${lines.filter((l) => l !== '').join('\n')}\n`);
}
