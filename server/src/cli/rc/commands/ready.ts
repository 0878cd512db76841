/** `rc ready`: waits for a server's readiness probe (SPEC §4 probe endpoints, no authentication). */
import { Command } from 'commander';
import type { RcContext } from '../context.js';
import { EXIT, RcError, UsageError } from '../errors.js';
import { parseDuration } from '../format.js';
import { println } from '../io.js';
import { parseRemote } from '../paths.js';
import { networkCode } from '../s3.js';

/** Which probe `rc ready` polls. */
export const PROBES = { ready: '/health/ready', cluster: '/compat/health/cluster', clusterRead: '/compat/health/cluster/read' } as const;

async function probeOnce(url: string): Promise<{ ok: boolean; state: string }> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    const text = await res.text();
    if (res.status === 200) return { ok: true, state: 'ready' };
    let reasons = '';
    try {
      const body = JSON.parse(text) as { degradedReasons?: unknown };
      if (Array.isArray(body.degradedReasons) && body.degradedReasons.length > 0) reasons = ` (${body.degradedReasons.join(', ')})`;
    } catch { /* bodies of the cluster probes are empty (REFERENCE.md §1.1) */ }
    return { ok: false, state: `HTTP ${res.status}${reasons}` };
  } catch (err) {
    return { ok: false, state: `unreachable (${networkCode(err) ?? (err as Error).message})` };
  }
}

/** `rc ready <alias> [--cluster|--cluster-read] [--timeout 30s]`. */
export function readyCommand(ctx: RcContext): Command {
  return new Command('ready')
    .description('wait until the server (or cluster) is ready; exit 0 when ready, 8 on timeout')
    .argument('<alias>', 'alias of the server')
    .option('--cluster', 'wait for cluster write health (/compat/health/cluster)')
    .option('--cluster-read', 'wait for cluster read health (/compat/health/cluster/read)')
    .option('--timeout <duration>', 'give up after this long (e.g. 30s, 2m)', '30s')
    .action(async (aliasName: string, opts: { cluster?: boolean; clusterRead?: boolean; timeout: string }) => {
      if (opts.cluster && opts.clusterRead) throw new UsageError('--cluster and --cluster-read exclude each other');
      const seconds = parseDuration(opts.timeout);
      if (seconds === undefined) throw new UsageError(`--timeout "${opts.timeout}" is not a duration`, 'e.g. --timeout 30s');
      const alias = parseRemote(ctx.config(), aliasName).alias;
      const path = opts.cluster ? PROBES.cluster : opts.clusterRead ? PROBES.clusterRead : PROBES.ready;
      const url = new URL(path, `${alias.url}/`).toString();
      const deadline = Date.now() + seconds * 1000;
      for (;;) {
        const r = await probeOnce(url);
        if (r.ok) { println(ctx.io, `${aliasName} is ready.`); return; }
        if (Date.now() >= deadline) {
          throw new RcError(EXIT.notReady, `${aliasName} is not ready after ${opts.timeout}: ${path} answered ${r.state}`, { hint: 'see "rc admin info cluster" for the drives and nodes that are down' });
        }
        await new Promise((res) => setTimeout(res, 500));
      }
    });
}
