/** `deploy-kit up`: parse-only commander factory (STYLE.md convention 10). */
import { Command } from 'commander';
import type { Deps } from '../../io/index.js';
import { globalFlags, intInRange } from '../shared.js';
import { runUp } from './run.js';
import type { UpOptions } from './run.js';

/** Maps commander's parsed values to {@link UpOptions}. */
export function toUpOptions(raw: Record<string, unknown>, json: boolean): UpOptions {
  const s = (k: string): string | undefined => (typeof raw[k] === 'string' ? (raw[k] as string) : undefined);
  return {
    dir: s('dir'), project: s('project'), image: s('image'), proxyImage: s('proxyImage'), baseImage: s('baseImage'),
    publishHttp: s('publishHttp'), publishHttps: s('publishHttps'),
    timeoutSeconds: (raw['timeout'] as number | undefined) ?? 180, templates: s('templates'), noRender: raw['render'] === false,
    force: raw['force'] === true, staging: raw['staging'] === true, json,
  };
}

/** The `up` command. */
export function upCommand(deps: Deps, run: (opts: UpOptions, deps: Deps) => Promise<void> = runUp): Command {
  return new Command('up')
    .description('render if needed, start the deployment with docker compose and wait until it serves through the proxy over TLS')
    .option('--dir <dir>', 'deployment directory', '.')
    .option('-p, --project <name>', 'compose project name (default: the directory name)')
    .option('--image <image>', 'server image (written to deploy-kit.yaml)')
    .option('--proxy-image <image>', 'proxy image (written to deploy-kit.yaml)')
    .option('--base-image <image>', 'build the server image from this repository on this base when it is not present locally')
    .option('--publish-http <[addr:]port>', 'host side of the proxy\'s port 80 (default 80; env DEPLOY_KIT_PUBLISH_HTTP)')
    .option('--publish-https <[addr:]port>', 'host side of the proxy\'s port 443 (default 443; env DEPLOY_KIT_PUBLISH_HTTPS)')
    .option('--timeout <seconds>', 'how long to wait for readiness through the proxy', intInRange(1, 3600), 180)
    .option('--no-render', 'start compose.yaml as it is on disk (hand edits kept) instead of rendering it from the spec')
    .option('--force', 'ACME (HAProxy): renew even when the certificate has more than 30 days left', false)
    .option('--staging', 'ACME (HAProxy): rehearse the order against the staging directory first', false)
    .option('--templates <dir>', 'templates folder (default: the templates/ folder beside deploy-kit)')
    .action(async (raw: Record<string, unknown>, cmd: Command) => {
      await run(toUpOptions(raw, globalFlags(cmd).json), deps);
    });
}
