/** `deploy-kit images …`: parse-only commander factories (STYLE.md convention 10). */
import { Command } from 'commander';
import type { Deps } from '../../io/index.js';
import { globalFlags } from '../shared.js';
import { runImagesBuild } from './run.js';
import type { ImagesBuildOptions } from './run.js';

/** Maps commander's parsed values to {@link ImagesBuildOptions}. */
export function toImagesBuildOptions(raw: Record<string, unknown>, json: boolean): ImagesBuildOptions {
  const s = (k: string): string | undefined => (typeof raw[k] === 'string' ? (raw[k] as string) : undefined);
  return { tag: s('tag'), baseImage: s('baseImage'), repo: s('repo'), json };
}

/** The `images` command with its `build` subcommand. */
export function imagesCommand(deps: Deps, run: (opts: ImagesBuildOptions, deps: Deps) => Promise<void> = runImagesBuild): Command {
  const build = new Command('build')
    .description('build the server image from the repository (run `npm run build` first); nothing is pulled when the base exists locally')
    .option('--tag <image>', 'image tag (default svc/server:latest)')
    .option('--base-image <image>', 'base image providing node 20 on glibc (default node:20-bookworm-slim)')
    .option('--repo <dir>', 'repository root (default: the checkout deploy-kit runs from)')
    .action(async (raw: Record<string, unknown>, cmd: Command) => {
      await run(toImagesBuildOptions(raw, globalFlags(cmd).json), deps);
    });
  return new Command('images').description('build the images a deployment runs').addCommand(build);
}
