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

/**
 * A ServerError that answers an ordinary condition — a missing file or object, a drive left out of a call —
 * raised many times per second on the request path (a PUT of a new key: one per drive). It captures no stack:
 * V8's capture (with async frames) was the costliest JS function of a 4 KiB PUT (issue 9), and the stack of an
 * expected answer says nothing.
 */
export class ExpectedError extends ServerError {
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(code, message, options);
    } finally {
      Error.stackTraceLimit = limit;
    }
  }
}

/** True when `err` is a ServerError (or subclass) carrying a code. */
export function isServerError(err: unknown): err is ServerError {
  return err instanceof ServerError;
}
