/** `rc cp`: local → remote, remote → local, remote → remote (server-side when on one alias), with --recursive. */
import { Command } from 'commander';
import type { RcContext } from '../context.js';
import { UsageError } from '../errors.js';
import { humanBytes } from '../format.js';
import { println } from '../io.js';
import { createProgress } from '../progress.js';
import { type CpOptions, planCopy } from './cp-plan.js';
import { ClientPool, runTransfer } from './cp-transfer.js';

/** Runs `rc cp`: plans every transfer, then copies them in order with one progress bar for the total. */
export async function runCp(ctx: RcContext, o: CpOptions & { quiet: boolean }): Promise<void> {
  const plan = await planCopy(ctx, o);
  const total = plan.reduce((n, t) => n + t.size, 0);
  const progress = createProgress(ctx.io.stderr, total, !o.quiet);
  const clients = new ClientPool();
  try {
    for (const t of plan) await runTransfer(t, clients, progress);
  } finally {
    clients.close();
    progress.done();
  }
  if (!o.quiet) println(ctx.io, `Copied ${plan.length} file${plan.length === 1 ? '' : 's'} (${humanBytes(total)}).`);
}

/** `rc cp [--recursive] <source...> <target>`. */
export function cpCommand(ctx: RcContext): Command {
  return new Command('cp')
    .description('copy files and objects (local <-> remote, remote -> remote); progress bar on a terminal')
    .argument('<paths...>', 'one or more sources, then the target. Each is a local path or alias/bucket/key;\n'
      + 'several sources need a folder target; a trailing "/" means "into this folder"')
    .option('-r, --recursive', 'copy folders and prefixes with everything under them')
    .option('-q, --quiet', 'no progress bar and no summary line')
    .action((paths: string[], opts: { recursive?: boolean; quiet?: boolean }) => {
      const target = paths.at(-1);
      if (paths.length < 2 || target === undefined) throw new UsageError('rc cp needs a source and a target', 'e.g. rc cp ./file.txt alias/bucket/');
      return runCp(ctx, { sources: paths.slice(0, -1), target, recursive: opts.recursive === true, quiet: opts.quiet === true });
    });
}
