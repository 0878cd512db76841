/**
 * `deploy-kit status`: the deployment as clients and the proxy see it — each backend server UP/DOWN from HAProxy's
 * runtime API (SPEC §4 rule 7), readiness through the proxy over TLS, the served certificate's names and days left,
 * and a short cluster summary from the admin API's information report (docs/admin-api.md), signed with .env's keys.
 */
import { join } from 'node:path';
import {
  createAdminInfoSource,
  createTlsProbe,
  describeClusterFigures,
  summarizeClusterInfo,
  daysLeft,
  describeProbe,
  listContainers,
  openDeployment,
  proxyAddress,
  readDeploymentCa,
  readServerStates,
} from '../../compose/index.js';
import type { AdminInfoSource, ClusterSummary, ContainerState, ProbeResult, ProxyProbe, ServerState } from '../../compose/index.js';
import { DeployKitError } from '../../errors.js';
import type { Deps } from '../../io/index.js';
import { CERT_PATHS, HEALTH_PATHS, SERVICE_NAMES } from '../../providers/index.js';
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
  /** The admin API's cluster summary through the proxy; `error` when it could not be had. */
  readonly cluster: { readonly summary: ClusterSummary | undefined; readonly error: string | undefined };
  /** True when every backend server is UP and both probes answered 200. */
  readonly healthy: boolean;
}

function verdict(r: ProbeResult): string {
  return r.ok && r.status === 200 ? 'ready' : `not ready (${describeProbe(r)})`;
}

/**
 * How long `status` waits for the information report. The answering node asks every peer (3 s deadline each) and
 * reads its drives; with a frozen peer a drive call can wait out its 10 s RPC deadline, so this is generous.
 */
const ADMIN_INFO_TIMEOUT_MS = 30_000;

/** KEY=value lines of a .env file (quotes around a value are dropped; comments and other lines ignored). */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (m !== null) out[m[1]!] = m[2]!.trim().replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1');
  }
  return out;
}

/** The admin API's information report, summarized; never throws (the reason goes into the report). */
async function clusterSummary(
  deps: Deps, dir: string, target: { address: string; port: number; host: string; ca: string | undefined }, admin: AdminInfoSource,
): Promise<StatusReport['cluster']> {
  const envText = await deps.fs.readText(join(dir, CERT_PATHS.env));
  const env = envText === undefined ? {} : parseEnvFile(envText);
  const accessKey = env['SVC_ACCESS_KEY'];
  const secretKey = env['SVC_SECRET_KEY'];
  if (accessKey === undefined || accessKey === '' || secretKey === undefined || secretKey === '') {
    return { summary: undefined, error: `no SVC_ACCESS_KEY/SVC_SECRET_KEY in ${CERT_PATHS.env}` };
  }
  // The server's region (SVC_REGION, default us-east-1) is part of the SigV4 scope.
  const region = env['SVC_REGION'] !== undefined && env['SVC_REGION'] !== '' ? env['SVC_REGION'] : 'us-east-1';
  const answer = await admin.info({ ...target, accessKey, secretKey, region, timeoutMs: ADMIN_INFO_TIMEOUT_MS });
  if (!answer.ok) return { summary: undefined, error: answer.error };
  const read = summarizeClusterInfo(answer.report);
  return read.ok ? { summary: read.summary, error: undefined } : { summary: undefined, error: read.error };
}

/** Gathers the report (exported for tests and for `cert rotate`-style callers). */
export async function collectStatus(opts: StatusOptions, deps: Deps, probe: ProxyProbe, admin: AdminInfoSource = createAdminInfoSource()): Promise<StatusReport> {
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
  const cluster = await clusterSummary(deps, d.dir, { address: at.address, port: at.httpsPort, host: d.spec.hosts.s3, ca }, admin);
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
    cluster,
    healthy: serversUp && verdict(s3) === 'ready' && verdict(consoleProbe) === 'ready',
  };
}

/** Prints the status; exit 0 also when something is down (the report says so; `check` is the gate). */
export async function runStatus(
  opts: StatusOptions, deps: Deps, probe: ProxyProbe = createTlsProbe(), admin: AdminInfoSource = createAdminInfoSource(),
): Promise<void> {
  const r = await collectStatus(opts, deps, probe, admin);
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
  if (r.cluster.summary !== undefined) {
    const c = r.cluster.summary;
    lines.push(`cluster: ${paint(deps.out, tone(c.status === 'online'), c.status)}, ${describeClusterFigures(c)}`);
  } else {
    lines.push(`cluster: unknown (admin API: ${r.cluster.error ?? 'no answer'})`);
  }
  deps.out.stdout(`${lines.filter((l) => l !== '').join('\n')}\n`);
}
