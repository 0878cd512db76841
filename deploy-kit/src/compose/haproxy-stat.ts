/**
 * HAProxy's runtime API as the proxy sees its servers (SPEC §4 rule 7): `show stat` over the stats socket that
 * haproxy.cfg binds on the container's loopback (rule 14: never published), reached with `docker exec` and bash's
 * /dev/tcp (DOCKER.md §2).
 */
import type { Exec } from '../io/index.js';

/** One backend server's state. */
export interface ServerState {
  readonly backend: string;
  readonly server: string;
  /** `UP`, `DOWN`, `MAINT`, `UP 1/3`, `DOWN 1/2`, `no check`… as HAProxy reports it. */
  readonly status: string;
  /** Last check result, e.g. `L7OK`, `L4TOUT`. */
  readonly check: string;
}

/** Parses `show stat` CSV (header line `# pxname,svname,…`); frontends and BACKEND summary rows are left out. */
export function parseShowStat(csv: string): ServerState[] {
  const lines = csv.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const header = lines.find((l) => l.startsWith('# '));
  if (header === undefined) return [];
  const cols = header.slice(2).split(',');
  const at = (name: string): number => cols.indexOf(name);
  const [px, sv, st, ck] = [at('pxname'), at('svname'), at('status'), at('check_status')];
  if (px < 0 || sv < 0 || st < 0) return [];
  const out: ServerState[] = [];
  for (const line of lines) {
    if (line.startsWith('#')) continue;
    const f = line.split(',');
    const server = f[sv] ?? '';
    if (server === 'FRONTEND' || server === 'BACKEND' || server === '') continue;
    out.push({ backend: f[px] ?? '', server, status: f[st] ?? '', check: ck < 0 ? '' : (f[ck] ?? '').replace(/^\* /, '') });
  }
  return out;
}

/** The shell line that asks the runtime API inside the proxy container. */
export const SHOW_STAT_SCRIPT = 'exec 3<>/dev/tcp/127.0.0.1/9999; echo "show stat" >&3; cat <&3';

/** Reads the server states of a running HAProxy container; the error is returned as text when it cannot. */
export async function readServerStates(exec: Exec, container: string): Promise<{ states: ServerState[] } | { error: string }> {
  const r = await exec.run('docker', ['exec', container, 'bash', '-c', SHOW_STAT_SCRIPT], { timeoutMs: 15_000 });
  if (r.notFound) return { error: 'docker is not installed' };
  if (r.exitCode !== 0) return { error: (r.stderr.trim().split('\n').pop() ?? '') || `docker exec exited ${r.exitCode}` };
  return { states: parseShowStat(r.stdout) };
}
