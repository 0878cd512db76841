/** The commander tree of deploy-kit (STYLE.md convention 10): global flags plus one factory per command. */
import { Command } from 'commander';
import { certCommand } from './commands/cert/command.js';
import { checkCommand } from './commands/check/command.js';
import { downCommand } from './commands/down/command.js';
import { imagesCommand } from './commands/images/command.js';
import { initCommand } from './commands/init/command.js';
import { logsCommand } from './commands/logs/command.js';
import { renderCommand } from './commands/render/command.js';
import { statusCommand } from './commands/status/command.js';
import { upCommand } from './commands/up/command.js';
import type { Deps, Output } from './io/index.js';

function configure(cmd: Command, out: Output): void {
  // Commands throw and main.ts alone decides exit codes (convention 12), so commander must never call process.exit,
  // and its own error text is replaced by main.ts's one-line form.
  cmd.exitOverride().configureOutput({
    writeOut: (s) => out.stdout(s),
    writeErr: (s) => out.stderr(s),
    outputError: () => undefined,
  });
  for (const sub of cmd.commands) configure(sub, out);
}

/** Builds the root command with every subcommand wired to `deps`. */
export function createProgram(deps: Deps, version: string): Command {
  const program = new Command('deploy-kit')
    .description('Render and check Traefik or HAProxy + docker compose deployments of svc with TLS done right')
    .version(version, '-V, --version', 'print the version')
    .option('--json', 'print machine-readable JSON where the output is data', false)
    .helpCommand(false)
    .addCommand(initCommand(deps))
    .addCommand(renderCommand(deps))
    .addCommand(checkCommand(deps))
    .addCommand(certCommand(deps))
    .addCommand(upCommand(deps))
    .addCommand(downCommand(deps))
    .addCommand(logsCommand(deps))
    .addCommand(statusCommand(deps))
    .addCommand(imagesCommand(deps));
  configure(program, deps.out);
  return program;
}
