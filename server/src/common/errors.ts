/**
 * Base class of every typed error below the HTTP edge (STYLE.md convention 2).
 * Lower layers throw subclasses with a stable `code` from `codes.ts`; the edge (http/s3/error-mapping.ts,
 * http/admin, the CLIs) translates them once, by table. 5xx never leak `message` to clients.
 */
export class ServerError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** True when `err` is a ServerError (or subclass) carrying a code. */
export function isServerError(err: unknown): err is ServerError {
  return err instanceof ServerError;
}
