/** `rc` entry: runs the program and turns any failure into one stderr line and an exit code (the only place). */
import { CommanderError } from 'commander';
import { createContext } from './context.js';
import { EXIT, type ExitCode, isRcError } from './errors.js';
import { processIo, type RcIo } from './io.js';
import { createProgram } from './program.js';

/** The exit code of a failure: RcError's own, 2 for commander's usage errors, 1 otherwise. */
export function exitCodeOf(err: unknown): ExitCode {
  if (isRcError(err)) return err.exitCode;
  if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  return EXIT.failure;
}

/** Runs `rc` with `argv` (`[node, rc, ...args]`) on `io`; resolves with the exit code, never throws. */
export async function runRc(argv: readonly string[], io: RcIo = processIo()): Promise<number> {
  // The SDK warns on stderr about Node versions it will drop in the future; rc's stderr is for rc's own messages.
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
  const ctx = createContext(io);
  try {
    await createProgram(ctx).parseAsync([...argv]);
    return EXIT.ok;
  } catch (err) {
    const code = exitCodeOf(err);
    // Commander already printed its own message (and the --help pointer).
    if (err instanceof CommanderError) return code;
    if (isRcError(err)) {
      io.stderr.write(`rc: ${err.message}${err.hint ? ` — ${err.hint}` : ''}\n`);
    } else {
      io.stderr.write(`rc: unexpected error: ${(err as Error)?.message ?? String(err)} (please report it)\n`);
    }
    return code;
  }
}
