/**
 * deploy-kit's typed errors and the one table of `DK_ERR_*` codes (STYLE.md conventions 3 and 12).
 * Commands throw these; only main.ts turns them into an exit code and one line on stderr.
 * Every code is documented in deploy-kit/README.md ("Error codes"); a test keeps the two in step.
 */

/** Process exit codes of deploy-kit (STYLE.md convention 12). */
export const EXIT_CODES = {
  ok: 0,
  failure: 1,
  usage: 2,
  cancelled: 3,
  externalTool: 4,
} as const;

/** One exit code from {@link EXIT_CODES}. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** Every machine-readable error code deploy-kit can report, with its exit code. Codes are never renamed. */
export const DK_ERRORS = {
  DK_ERR_USAGE: { exitCode: EXIT_CODES.usage, summary: 'bad command-line usage' },
  DK_ERR_MISSING_OPTIONS: { exitCode: EXIT_CODES.usage, summary: 'required values missing or invalid and no terminal to ask' },
  DK_ERR_SPEC_NOT_FOUND: { exitCode: EXIT_CODES.usage, summary: 'no deploy-kit.yaml in the deployment directory' },
  DK_ERR_SPEC_INVALID: { exitCode: EXIT_CODES.usage, summary: 'deploy-kit.yaml is not valid YAML or breaks the spec rules' },
  DK_ERR_CERT_INVALID: { exitCode: EXIT_CODES.usage, summary: 'a certificate or key given to deploy-kit is unusable' },
  DK_ERR_CANCELLED: { exitCode: EXIT_CODES.cancelled, summary: 'the user cancelled a prompt' },
  DK_ERR_CHECK_FAILED: { exitCode: EXIT_CODES.failure, summary: '`check` found at least one error' },
  DK_ERR_TEMPLATES_NOT_FOUND: { exitCode: EXIT_CODES.failure, summary: 'a template the renderer needs is missing' },
  DK_ERR_RENDER_FAILED: { exitCode: EXIT_CODES.failure, summary: 'the renderer rejected the spec or a template' },
  DK_ERR_IO: { exitCode: EXIT_CODES.failure, summary: 'reading or writing a file failed' },
  DK_ERR_EXTERNAL_TOOL: { exitCode: EXIT_CODES.externalTool, summary: 'an external tool (haproxy, docker) failed to run' },
  DK_ERR_INTERNAL: { exitCode: EXIT_CODES.failure, summary: 'a bug in deploy-kit' },
} as const satisfies Record<`DK_ERR_${string}`, { exitCode: ExitCode; summary: string }>;

/** A code from {@link DK_ERRORS}. */
export type DeployKitErrorCode = keyof typeof DK_ERRORS;

/** Options of a {@link DeployKitError}. */
export interface DeployKitErrorOptions {
  /** What the user can do about it, printed after the message. */
  hint?: string;
  /** One line per problem when several are reported together (all problems at once, never the first only). */
  details?: readonly string[];
  cause?: unknown;
}

/** The one error type commands throw; `exitCode` comes from the code's row in {@link DK_ERRORS}. */
export class DeployKitError extends Error {
  readonly code: DeployKitErrorCode;
  readonly exitCode: ExitCode;
  readonly hint: string | undefined;
  readonly details: readonly string[];

  constructor(code: DeployKitErrorCode, message: string, opts: DeployKitErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'DeployKitError';
    this.code = code;
    this.exitCode = DK_ERRORS[code].exitCode;
    this.hint = opts.hint;
    this.details = opts.details ?? [];
  }
}

/** True when `err` is a {@link DeployKitError}. */
export function isDeployKitError(err: unknown): err is DeployKitError {
  return err instanceof DeployKitError;
}
