/** `deploy-kit cert …`: parse-only commander factories (STYLE.md convention 10); the work is in the run functions. */
import { Command } from 'commander';
import type { Deps } from '../../io/index.js';
import { globalFlags, intInRange } from '../shared.js';
import { runCertImport, toCertImportOptions } from './import.js';
import type { CertImportOptions } from './import.js';
import { runCertSelfSigned, toCertSelfSignedOptions } from './self-signed.js';
import type { CertSelfSignedOptions } from './self-signed.js';

/** The run functions behind `cert`; tests pass recording ones. */
export interface CertRunners {
  readonly selfSigned: (opts: CertSelfSignedOptions, deps: Deps) => Promise<void>;
  readonly import: (opts: CertImportOptions, deps: Deps) => Promise<void>;
}

const DEFAULT_RUNNERS: CertRunners = { selfSigned: runCertSelfSigned, import: runCertImport };

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
  return new Command('cert')
    .description('create or import the TLS certificate of a deployment')
    .addCommand(selfSigned)
    .addCommand(importCmd);
}
