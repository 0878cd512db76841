/** `deploy-kit status`: parse-only commander factory (STYLE.md convention 10). */
import { Command } from 'commander';
import type { Deps } from '../../io/index.js';
import { globalFlags } from '../shared.js';
import { runStatus } from './run.js';
import type { StatusOptions } from './run.js';

/** Maps commander's parsed values to {@link StatusOptions}. */
export function toStatusOptions(raw: Record<string, unknown>, json: boolean): StatusOptions {
  return { dir: raw['dir'] as string | undefined, project: raw['project'] as string | undefined, json };
}

/** The `status` command. */
export function statusCommand(deps: Deps, run: (opts: StatusOptions, deps: Deps) => Promise<void> = (o, d) => runStatus(o, d)): Command {
  return new Command('status')
    .description('backend servers UP/DOWN as the proxy sees them, readiness through the proxy, the served certificate and its days left')
    .option('--dir <dir>', 'deployment directory', '.')
    .option('-p, --project <name>', 'compose project name (default: the directory name)')
    .action(async (raw: Record<string, unknown>, cmd: Command) => {
      await run(toStatusOptions(raw, globalFlags(cmd).json), deps);
    });
}
