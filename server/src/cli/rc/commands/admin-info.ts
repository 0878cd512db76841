/** `rc admin info cluster|server|disk`: the cluster information report (SPEC §2), human or `--json`. */
import { Command } from 'commander';
import { adminClientFor } from '../admin-client.js';
import type { RcContext } from '../context.js';
import { parseInfoReport, type InfoReport } from '../info-report.js';
import { driveOnline, renderCluster, renderDisks, renderServers, renderStorage } from '../info-render.js';
import { println } from '../io.js';
import { parseRemote } from '../paths.js';

/** Fetches the raw report of `aliasName` (`GET /svc/admin/v3/info`). */
export async function fetchInfo(ctx: RcContext, aliasName: string): Promise<unknown> {
  const alias = parseRemote(ctx.config(), aliasName).alias;
  return adminClientFor(alias).call<unknown>({ method: 'GET', path: 'info' });
}

type View = (r: InfoReport, ctx: RcContext, opts: Record<string, unknown>) => string;

function infoSub(ctx: RcContext, name: string, description: string, view: View, extra?: (c: Command) => Command): Command {
  let c = new Command(name)
    .description(description)
    .argument('<alias>', 'alias of any node of the deployment')
    .option('--json', 'print the server\'s report as JSON (format in docs/rc.md; sizes in bytes, durations in seconds)');
  if (extra) c = extra(c);
  return c.action(async (aliasName: string, opts: { json?: boolean } & Record<string, unknown>) => {
    const raw = await fetchInfo(ctx, aliasName);
    // --json passes the server's report through unchanged, so its `version` and every field stay as documented.
    if (opts.json) { println(ctx.io, JSON.stringify(raw, null, 2)); return; }
    println(ctx.io, view(parseInfoReport(raw), ctx, opts));
  });
}

/** `rc admin info`. */
export function adminInfoCommand(ctx: RcContext): Command {
  return new Command('info')
    .description('show the deployment\'s state: nodes, drives, capacity')
    .addCommand(infoSub(ctx, 'cluster', 'Overview, node list, disk list and Storage summary', (r, c) => renderCluster(r, c.color)))
    .addCommand(infoSub(ctx, 'server', 'per-node view: uptime, version, network peers, drives, pools', (r, c) => renderServers(r, c.color, true).join('\n')))
    .addCommand(infoSub(ctx, 'disk', 'per-drive view: state, pool, set, position, used/total/available',
      (r, c, o) => [...renderDisks(r, c.color, (d) => (o['offline'] ? !driveOnline(d) : true) && (o['healing'] ? d.healing : true)), '', ...renderStorage(r, c.color)].join('\n'),
      (cmd) => cmd.option('--offline', 'only drives that are not online').option('--healing', 'only drives being healed')));
}
