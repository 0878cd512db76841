/** `deploy-kit check`: parse-only commander factory (STYLE.md convention 10). */
import { Command } from 'commander';
import type { Deps } from '../../io/index.js';
import { globalFlags } from '../shared.js';
import { runCheck } from './run.js';
import type { CheckOptions } from './run.js';

/** Maps commander's parsed values to {@link CheckOptions}. */
export function toCheckOptions(raw: Record<string, unknown>, json: boolean): CheckOptions {
  return { dir: raw['dir'] as string | undefined, schemas: raw['schemas'] as string | undefined, templates: raw['templates'] as string | undefined, json };
}

/** The `check` command. */
export function checkCommand(deps: Deps, run: (opts: CheckOptions, deps: Deps) => Promise<void> = runCheck): Command {
  return new Command('check')
    .description('check a deployment before `up`: DNS, certificate, file modes, compose ports and secrets, haproxy -c / Traefik schemas, ports 80/443')
    .option('--dir <dir>', 'deployment directory', '.')
    .option('--schemas <dir>', 'Traefik JSON Schemas folder (default ../shared/schemas/traefik from the repository, or $DEPLOY_KIT_TRAEFIK_SCHEMAS)')
    .option('--templates <dir>', 'templates folder used to detect hand-edited files')
    .action(async (raw: Record<string, unknown>, cmd: Command) => {
      await run(toCheckOptions(raw, globalFlags(cmd).json), deps);
    });
}
