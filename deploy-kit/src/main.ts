/** Composition root of the deploy-kit CLI: builds the real dependencies, runs the program, maps errors to exit codes. */
import { CommanderError } from 'commander';
import { EXIT_CODES, isDeployKitError } from './errors.js';
import type { ExitCode } from './errors.js';
import { createNodeDeps, readPackageVersion } from './io/index.js';
import type { Deps, Output } from './io/index.js';
import { createProgram } from './program.js';

/** Help and version output are successes; any other commander error is bad usage. */
function commanderExit(err: CommanderError): ExitCode {
  return err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? EXIT_CODES.ok : EXIT_CODES.usage;
}

/** The exit code for anything a command threw (STYLE.md convention 12: decided here and only here). */
export function exitCodeFor(err: unknown): ExitCode {
  if (isDeployKitError(err)) return err.exitCode;
  if (err instanceof CommanderError) return commanderExit(err);
  return EXIT_CODES.failure;
}

/** Prints an error as one line with its hint (plus one line per detail); returns the exit code. */
export function reportError(err: unknown, out: Output): ExitCode {
  const code = exitCodeFor(err);
  if (code === EXIT_CODES.ok) return code;
  const label = out.color ? '\u001b[31merror\u001b[39m' : 'error';
  if (isDeployKitError(err)) {
    out.stderr(`deploy-kit: ${label}: ${err.message}${err.hint === undefined ? '' : ` (hint: ${err.hint})`}\n`);
    for (const d of err.details) out.stderr(`  - ${d}\n`);
  } else if (err instanceof CommanderError) {
    const msg = err.message.replace(/^error:\s*/, '').split('\n')[0] ?? err.message;
    out.stderr(`deploy-kit: ${label}: ${msg} (hint: see deploy-kit --help or deploy-kit <command> --help)\n`);
  } else {
    const msg = err instanceof Error ? err.message : String(err);
    out.stderr(`deploy-kit: ${label}: internal error: ${msg} (hint: this is a bug in deploy-kit; please report it with the command you ran)\n`);
  }
  return code;
}

/** Runs the CLI for `argv` (process.argv form) and returns the exit code; the bin sets process.exitCode from it. */
export async function main(argv: readonly string[], deps?: Deps): Promise<number> {
  const d = deps ?? createNodeDeps(process.env, process.cwd());
  try {
    await createProgram(d, readPackageVersion()).parseAsync([...argv]);
    return EXIT_CODES.ok;
  } catch (err) {
    return reportError(err, d.out);
  }
}
