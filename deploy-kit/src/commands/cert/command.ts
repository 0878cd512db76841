/** `deploy-kit cert …`: parse-only commander factories (STYLE.md convention 10); the work is in the run functions. */
import { Command } from 'commander';
import type { Deps } from '../../io/index.js';
import { globalFlags, intInRange } from '../shared.js';
import { runCertImport, toCertImportOptions } from './import.js';
import type { CertImportOptions } from './import.js';
import { runCertRotate, toCertRotateOptions } from './rotate.js';
import type { CertRotateOptions } from './rotate.js';
import { runCertSelfSigned, toCertSelfSignedOptions } from './self-signed.js';
import type { CertSelfSignedOptions } from './self-signed.js';

/** The run functions behind `cert`; tests pass recording ones. */
export interface CertRunners {
  readonly selfSigned: (opts: CertSelfSignedOptions, deps: Deps) => Promise<void>;
  readonly import: (opts: CertImportOptions, deps: Deps) => Promise<void>;
  readonly rotate?: (opts: CertRotateOptions, deps: Deps) => Promise<void>;
}

const DEFAULT_RUNNERS: CertRunners = { selfSigned: runCertSelfSigned, import: runCertImport, rotate: runCertRotate };

/** The `cert` command with its `self-signed` and `import` subcommands. */
export function certCommand(deps: Deps, runners: CertRunners = DEFAULT_RUNNERS): Command {
  const selfSigned = new Command('self-signed')
    .description('create a local CA and a certificate for both hostnames (for trying things out)')
    .option('--dir <dir>', 'deployment directory', '.')
    .option('--days <n>', 'validity of the certificate in days', intInRange(1, 3650), 90)
    .action(async (raw: Record<string, unknown>, cmd: Command) => {
      await runners.selfSigned(toCertSelfSignedOptions(raw, globalFlags(cmd)), deps);
    });
  const importCmd = new Command('import')
    .description('validate a certificate and key and store them as the combined PEM (chain first, then key; mode 600)')
    .option('--dir <dir>', 'deployment directory', '.')
    .option('--cert <chain.pem>', 'certificate chain, leaf first')
    .option('--key <key.pem>', 'private key of the leaf certificate')
    .option('--pem <combined.pem>', 'combined PEM holding the chain and the key')
    .action(async (raw: Record<string, unknown>, cmd: Command) => {
      await runners.import(toCertImportOptions(raw, globalFlags(cmd)), deps);
    });
  const rotate = new Command('rotate')
    .description('renew from ACME or take a new PEM, replace the file (mode 600), reload the proxy and verify it serves the new certificate')
    .option('--dir <dir>', 'deployment directory', '.')
    .option('-p, --project <name>', 'compose project name (default: the directory name)')
    .option('--pem <combined.pem>', 'new combined PEM (chain, then key)')
    .option('--cert <chain.pem>', 'new certificate chain, leaf first')
    .option('--key <key.pem>', 'private key of the new leaf')
    .option('--recreate', 'recreate the proxy container instead of loading the certificate into the running one', false)
    .option('--reload', 'HAProxy: master-worker reload (USR2) instead of the runtime API swap', false)
    .option('--force', 'ACME: renew even when the certificate has more than 30 days left', false)
    .option('--staging', 'ACME: rehearse the order against the staging directory first', false)
    .option('--address <addr>', 'address for the TLS check (default: where the proxy\'s 443 is published)')
    .option('--https-port <port>', 'port for the TLS check (default: the published 443)', intInRange(1, 65535))
    .option('--verify-timeout <seconds>', 'how long to wait for the proxy to serve the new certificate', intInRange(1, 600), 30)
    .action(async (raw: Record<string, unknown>, cmd: Command) => {
      await (runners.rotate ?? runCertRotate)(toCertRotateOptions(raw, globalFlags(cmd)), deps);
    });
  return new Command('cert')
    .description('create, import or rotate the TLS certificate of a deployment')
    .addCommand(selfSigned)
    .addCommand(importCmd)
    .addCommand(rotate);
}
