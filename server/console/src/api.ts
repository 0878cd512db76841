/**
 * The console API client. The session lives in an HttpOnly cookie the page cannot read; the CSRF token is kept
 * in memory only (never localStorage, issue 6) and sent with every mutation.
 */

/** The session as the server describes it. */
export interface SessionView {
  user: string;
  kind: 'keys' | 'oidc';
  isRoot: boolean;
  csrfToken: string;
  expiresAt: string;
  policies?: string[];
}

/** A refused or failed call, with the server's code and message. */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

let csrfToken = '';
let onSessionLost: (message: string) => void = () => {};

/** Remembers the CSRF token of the current session (in memory). */
export function setSession(session: SessionView | undefined): void {
  csrfToken = session?.csrfToken ?? '';
}

/** The CSRF token for uploads sent with XMLHttpRequest. */
export function currentCsrf(): string {
  return csrfToken;
}

/** Called when a call answers 401: the page goes back to sign-in with the message. */
export function whenSessionLost(fn: (message: string) => void): void {
  onSessionLost = fn;
}

/** Turns an error answer into an ApiError (401 also ends the session in the page). */
export async function errorOf(res: Response): Promise<ApiError> {
  let code = 'Error';
  let message = `${res.status} ${res.statusText}`;
  try {
    const body = await res.json() as { code?: string; message?: string };
    code = body.code ?? code;
    message = body.message ?? message;
  } catch {
    // Not JSON (a proxy's page): keep the status line.
  }
  const error = new ApiError(res.status, code, message);
  if (res.status === 401 && code !== 'InvalidCredentials') onSessionLost(message);
  return error;
}

/** Calls the console API; JSON in, JSON out. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken !== '') headers['x-csrf-token'] = csrfToken;
  const res = await fetch(`/svc/console/api${path}`, {
    method, headers, credentials: 'same-origin', ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) throw await errorOf(res);
  if (res.status === 204) return undefined as T;
  return await res.json() as T;
}

/** Encodes one path segment. */
export function seg(s: string): string {
  return encodeURIComponent(s);
}
