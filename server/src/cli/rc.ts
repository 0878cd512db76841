/**
 * `rc`, the command-line client. Issue 5 brings aliases, `admin info cluster` and object commands; until then
 * it answers --help/--version and says clearly that a command is not available yet (exit 2).
 */
import { Command, CommanderError } from 'commander';
import { VERSION } from '../common/index.js';

/** `rc` entry: returns the exit code (0 ok, 1 failure, 2 usage). */
export async function runRc(argv: readonly string[]): Promise<number> {
  const program = new Command('rc')
    .description('svc command-line client')
    .version(VERSION)
    .exitOverride()
    .argument('[command...]', 'command to run')
    .action((command: string[]) => {
      if (command.length === 0) {
        program.outputHelp();
        return;
      }
      throw new CommanderError(2, 'rc.unavailable', `rc: "${command.join(' ')}" is not available in this version yet; use any S3 client (awscli, rclone) meanwhile`);
    });
  try {
    await program.parseAsync([...argv]);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'rc.unavailable') process.stderr.write(`${err.message}\n`);
      return err.exitCode === 0 ? 0 : 2;
    }
    process.stderr.write(`rc: ${(err as Error).message}\n`);
    return 1;
  }
}
