/** `deploy-kit init`: parse-only commander factory (STYLE.md convention 10). */
import { Command } from 'commander';
import type { Deps } from '../../io/index.js';
import { globalFlags } from '../shared.js';
import type { InitOptions } from './answers.js';
import { runInit } from './run.js';

/** Maps commander's parsed values to {@link InitOptions}. */
export function toInitOptions(raw: Record<string, unknown>, json: boolean): InitOptions {
  const s = (k: string): string | undefined => (typeof raw[k] === 'string' ? (raw[k] as string) : undefined);
  return {
    dir: s('dir'), s3Host: s('s3Host'), consoleHost: s('consoleHost'), proxy: s('proxy'), tls: s('tls'),
    acmeEmail: s('acmeEmail'), acmeDirectory: s('acmeDirectory'), staging: raw['staging'] === true ? true : undefined,
    cert: s('cert'), key: s('key'), pem: s('pem'), nodes: s('nodes'), drivesPerNode: s('drivesPerNode'), parity: s('parity'),
    image: s('image'), proxyImage: s('proxyImage'), baseImage: s('baseImage'), templates: s('templates'), json,
  };
}

/** The `init` command. */
export function initCommand(deps: Deps, run: (opts: InitOptions, deps: Deps) => Promise<void> = runInit): Command {
  return new Command('init')
    .description('create deploy-kit.yaml, .env secrets (mode 600) and .gitignore, then render; prompts on a terminal for what is missing')
    .option('--dir <dir>', 'deployment directory (created when missing)', '.')
    .option('--s3-host <hostname>', 'public hostname of the S3 API')
    .option('--console-host <hostname>', 'public hostname of the console')
    // No commander .choices(): a bad value must be reported together with every other problem, not alone.
    .option('--proxy <proxy>', 'reverse proxy: traefik or haproxy')
    .option('--tls <mode>', 'acme (automatic certificates, HTTP-01) or pem (your own combined PEM)')
    .option('--acme-email <address>', 'ACME account e-mail (tls acme)')
    .option('--acme-directory <url>', 'ACME directory URL (default: Let\'s Encrypt production)')
    .option('--staging', 'use the Let\'s Encrypt staging CA')
    .option('--cert <chain.pem>', 'certificate chain to import (tls pem), leaf first')
    .option('--key <key.pem>', 'private key of --cert')
    .option('--pem <combined.pem>', 'combined PEM (chain and key) to import (tls pem)')
    .option('--nodes <n>', 'number of server nodes (default 1)')
    .option('--drives-per-node <m>', 'drives per node (default 1)')
    .option('--parity <EC:n>', 'erasure-code parity, e.g. EC:2 (default: chosen by the server)')
    .option('--image <image>', 'server image (default svc/server:latest)')
    .option('--proxy-image <image>', 'proxy image (default haproxy:2.6 or traefik:v3.4)')
    .option('--base-image <image>', 'base image to build the server image on when it is missing locally (air-gapped hosts)')
    .option('--templates <dir>', 'templates folder (default: the templates/ folder beside deploy-kit)')
    .action(async (raw: Record<string, unknown>, cmd: Command) => {
      await run(toInitOptions(raw, globalFlags(cmd).json), deps);
    });
}
