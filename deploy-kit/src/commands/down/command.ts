/** `deploy-kit down`: parse-only commander factory (STYLE.md convention 10). */
import { Command } from 'commander';
import type { Deps } from '../../io/index.js';
import { runDown } from './run.js';
import type { DownOptions } from './run.js';

/** Maps commander's parsed values to {@link DownOptions}. */
export function toDownOptions(raw: Record<string, unknown>): DownOptions {
  return { dir: raw['dir'] as string | undefined, project: raw['project'] as string | undefined, volumes: raw['volumes'] === true };
}

/** The `down` command. */
export function downCommand(deps: Deps, run: (opts: DownOptions, deps: Deps) => Promise<void> = runDown): Command {
  return new Command('down')
    .description('stop and remove the deployment\'s containers (data volumes are kept unless --volumes)')
    .option('--dir <dir>', 'deployment directory', '.')
    .option('-p, --project <name>', 'compose project name (default: the directory name)')
    .option('--volumes', 'also remove the data volumes (deletes every stored object)', false)
    .action(async (raw: Record<string, unknown>) => {
      await run(toDownOptions(raw), deps);
    });
}
