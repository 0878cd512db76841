/** `deploy-kit logs`: parse-only commander factory (STYLE.md convention 10). */
import { Command } from 'commander';
import type { Deps } from '../../io/index.js';
import { intInRange } from '../shared.js';
import { runLogs } from './run.js';
import type { LogsOptions } from './run.js';

/** Maps commander's parsed values to {@link LogsOptions}. */
export function toLogsOptions(service: string | undefined, raw: Record<string, unknown>): LogsOptions {
  return { dir: raw['dir'] as string | undefined, project: raw['project'] as string | undefined, service, tail: (raw['tail'] as number | undefined) ?? 100 };
}

/** The `logs` command. */
export function logsCommand(deps: Deps, run: (opts: LogsOptions, deps: Deps) => Promise<void> = runLogs): Command {
  return new Command('logs')
    .description('print the last log lines of the deployment, or of one service (node1, proxy, …)')
    .argument('[service]', 'compose service')
    .option('--dir <dir>', 'deployment directory', '.')
    .option('-p, --project <name>', 'compose project name (default: the directory name)')
    .option('--tail <n>', 'lines per service', intInRange(1, 100_000), 100)
    .action(async (service: string | undefined, raw: Record<string, unknown>) => {
      await run(toLogsOptions(service, raw), deps);
    });
}
