/**
 * Typed errors of the console API: every failure answers JSON `{ code, message }` with the HTTP status of its
 * code, never a stack trace (issue 6 "clear messages, right HTTP status").
 */

/** Codes of the console API, with their HTTP status. */
export const CONSOLE_ERRORS = {
  InvalidRequest: 400,
  InvalidCredentials: 401,
  SessionRequired: 401,
  SessionExpired: 401,
  LoginStateMissing: 400,
  LoginStateExpired: 400,
  OidcFailed: 502,
  CsrfRejected: 403,
  AccessDenied: 403,
  NotFound: 404,
  Conflict: 409,
  TooManyAttempts: 429,
  NotConfigured: 501,
  ServiceUnavailable: 503,
  InternalError: 500,
} as const;

/** A console API error code. */
export type ConsoleErrorCode = keyof typeof CONSOLE_ERRORS;

/** A failure the console API reports as is. */
export class ConsoleError extends Error {
  readonly code: ConsoleErrorCode;
  readonly status: number;
  /** Seconds for a Retry-After header (rate limit). */
  readonly retryAfter: number | undefined;

  constructor(code: ConsoleErrorCode, message: string, opts: { retryAfter?: number; cause?: unknown } = {}) {
    super(message, opts.cause !== undefined ? { cause: opts.cause } : undefined);
    this.name = 'ConsoleError';
    this.code = code;
    this.status = CONSOLE_ERRORS[code];
    this.retryAfter = opts.retryAfter;
  }
}

/** Storage and IAM error names that carry a message fit for the user, with the console code they map to. */
const PASSTHROUGH: Readonly<Record<string, ConsoleErrorCode>> = {
  BucketNotFoundError: 'NotFound',
  ObjectNotFoundError: 'NotFound',
  VersionNotFoundError: 'NotFound',
  BucketExistsError: 'Conflict',
  BucketNotEmptyError: 'Conflict',
  InvalidBucketNameError: 'InvalidRequest',
  InvalidObjectNameError: 'InvalidRequest',
  MalformedPolicyError: 'InvalidRequest',
  InsufficientWriteQuorumError: 'ServiceUnavailable',
  InsufficientReadQuorumError: 'ServiceUnavailable',
  IncompleteBodyError: 'InvalidRequest',
};

/** IAM error codes (iam/store/iam-errors.ts) mapped onto console codes; the rest are bad input (400). */
const IAM_CODES: Readonly<Record<string, ConsoleErrorCode>> = {
  NoSuchUser: 'NotFound', NoSuchPolicy: 'NotFound', NoSuchServiceAccount: 'NotFound', NoSuchGroup: 'NotFound',
  UserExists: 'Conflict', ServiceAccountExists: 'Conflict', PolicyInUse: 'Conflict', GroupNotEmpty: 'Conflict', CannedPolicy: 'Conflict',
  NotReady: 'ServiceUnavailable', StorageNotOpen: 'ServiceUnavailable', CorruptRecord: 'InternalError',
};

/** Any thrown value as a ConsoleError; `internal` is true when it was unexpected (to be logged). */
export function toConsoleError(err: unknown): { error: ConsoleError; internal: boolean } {
  if (err instanceof ConsoleError) return { error: err, internal: false };
  const e = err as { name?: unknown; code?: unknown; message?: unknown; statusCode?: unknown } | null;
  const name = typeof e?.name === 'string' ? e.name : '';
  const message = typeof e?.message === 'string' ? e.message : 'Unexpected error';
  const mapped = PASSTHROUGH[name];
  if (mapped !== undefined) return { error: new ConsoleError(mapped, message), internal: false };
  if (name === 'IamError' && typeof e?.code === 'string') {
    return { error: new ConsoleError(IAM_CODES[e.code] ?? 'InvalidRequest', message), internal: false };
  }
  // fastify's own client errors (body too large, bad content type) keep their 4xx status.
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return { error: new ConsoleError('InvalidRequest', message), internal: false };
  }
  return { error: new ConsoleError('InternalError', 'The server failed to handle the request; see the server log.'), internal: true };
}
