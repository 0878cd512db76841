/**
 * Typed errors of `rc` and their exit codes. Commands throw; {@link exitCodeOf} in main.ts is the only place an
 * error becomes an exit code (STYLE.md convention 12, gh's `internal/ghcmd` exit table).
 */

/** Every exit code of `rc` (documented in docs/rc.md and in `rc --help`). */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  config: 3,
  unreachable: 4,
  auth: 5,
  denied: 6,
  notFound: 7,
  notReady: 8,
} as const;

/** One of the {@link EXIT} values. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit-code table as shown at the end of `rc --help`. */
export const EXIT_HELP = `Exit codes:
  0  success
  1  failure (the message says what failed)
  2  usage error (bad arguments or flags)
  3  unknown alias or unreadable configuration
  4  server unreachable
  5  authentication failed (unknown access key or wrong secret key)
  6  permission denied (AccessDenied)
  7  not found (bucket, object, user, policy...)
  8  not ready before the --timeout (rc ready)`;

/** A failure the user can act on: a one-line message, an optional hint, and the exit code it maps to. */
export class RcError extends Error {
  readonly exitCode: ExitCode;
  readonly hint: string | undefined;
  /** The server's error code when the failure came from the server (e.g. `AccessDenied`). */
  readonly serverCode: string | undefined;
  constructor(exitCode: ExitCode, message: string, opts: { hint?: string; serverCode?: string; cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.name = 'RcError';
    this.exitCode = exitCode;
    this.hint = opts.hint;
    this.serverCode = opts.serverCode;
  }
}

/** A bad argument or flag value (exit 2). */
export class UsageError extends RcError {
  constructor(message: string, hint?: string) {
    super(EXIT.usage, message, hint === undefined ? {} : { hint });
    this.name = 'UsageError';
  }
}

/** True for an {@link RcError} (or subclass). */
export function isRcError(err: unknown): err is RcError {
  return err instanceof RcError;
}
