/** `deploy-kit render`: parse-only commander factory (STYLE.md convention 10). */
import { Command } from 'commander';
import type { Deps } from '../../io/index.js';
import { globalFlags } from '../shared.js';
import { runRender } from './run.js';
import type { RenderOptions } from './run.js';

/** Maps commander's parsed values to {@link RenderOptions}; --diff wins over --dry-run (both write nothing). */
export function toRenderOptions(raw: Record<string, unknown>, json: boolean): RenderOptions {
  const mode = raw['diff'] === true ? 'diff' : raw['dryRun'] === true ? 'dry-run' : 'write';
  return { dir: raw['dir'] as string | undefined, mode, templates: raw['templates'] as string | undefined, json };
}

/** The `render` command. */
export function renderCommand(deps: Deps, run: (opts: RenderOptions, deps: Deps) => Promise<void> = runRender): Command {
  return new Command('render')
    .description('render compose.yaml and the proxy configuration from deploy-kit.yaml')
    .option('--dir <dir>', 'deployment directory', '.')
    .option('--dry-run', 'print what would be written (paths, modes, sizes) and write nothing', false)
    .option('--diff', 'print a unified diff against the files on disk and write nothing', false)
    .option('--templates <dir>', 'templates folder (default: the templates/ folder beside deploy-kit)')
    .action(async (raw: Record<string, unknown>, cmd: Command) => {
      await run(toRenderOptions(raw, globalFlags(cmd).json), deps);
    });
}
