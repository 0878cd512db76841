/** The `rc` command tree (parse only; every command's work is in its action). */
import { Command } from 'commander';
import { VERSION } from '../../common/index.js';
import { adminCommand } from './commands/admin.js';
import { aliasCommand } from './commands/alias.js';
import { mbCommand, rbCommand } from './commands/buckets.js';
import { cpCommand } from './commands/cp.js';
import { lsCommand } from './commands/ls.js';
import { catCommand, rmCommand, statCommand } from './commands/objects.js';
import { readyCommand } from './commands/ready.js';
import { shareCommand } from './commands/share.js';
import type { RcContext } from './context.js';
import { EXIT_HELP } from './errors.js';

const EXIT_LINE = '\nExit codes: 0 ok, 1 failure, 2 usage, 3 unknown alias/config, 4 unreachable, 5 bad keys,\n'
  + '6 permission denied, 7 not found, 8 not ready (details: rc --help, docs/rc.md).';

function configureAll(cmd: Command, ctx: RcContext, root = true): void {
  if (!root && cmd.commands.length === 0) cmd.addHelpText('after', EXIT_LINE);
  cmd.exitOverride()
    .configureOutput({ writeOut: (s) => { ctx.io.stdout.write(s); }, writeErr: (s) => { ctx.io.stderr.write(s); } })
    .showHelpAfterError('(add --help for usage)')
    .helpOption('-h, --help', 'show help for this command');
  for (const sub of cmd.commands) configureAll(sub, ctx, false);
}

/** Builds the root command with every subcommand, writing to `ctx.io` and throwing instead of exiting. */
export function createProgram(ctx: RcContext): Command {
  const program = new Command('rc')
    .description('svc command-line client: aliases, buckets and objects, administration')
    .version(VERSION, '-v, --version')
    .addHelpText('after', `
Remote paths are alias/bucket/key (set aliases with "rc alias set").
Environment: RC_CONFIG_DIR (configuration directory, default ~/.config/rc), NO_COLOR.

${EXIT_HELP}`)
    .addCommand(aliasCommand(ctx))
    .addCommand(lsCommand(ctx))
    .addCommand(mbCommand(ctx))
    .addCommand(rbCommand(ctx))
    .addCommand(cpCommand(ctx))
    .addCommand(catCommand(ctx))
    .addCommand(rmCommand(ctx))
    .addCommand(statCommand(ctx))
    .addCommand(shareCommand(ctx))
    .addCommand(readyCommand(ctx))
    .addCommand(adminCommand(ctx));
  configureAll(program, ctx);
  return program;
}
