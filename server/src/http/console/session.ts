/**
 * Console sessions: a token `v1.<payload>.<mac>` (payload base64url JSON, HMAC-SHA256 with the derived key) kept
 * in an HttpOnly cookie. Stateless, so any node verifies it (issue 6); it expires, and a key-login session also
 * carries a fingerprint of the secret it was opened with, so changing or removing the user ends it.
 */
import { randomBytes } from 'node:crypto';
import { ConsoleError } from './console-error.js';
import { mac, sameString, type ConsoleKeys } from './console-keys.js';

/** How the session was opened. */
export type SessionKind = 'keys' | 'oidc';

/** The verified content of a session token. */
export interface Session {
  /** Random id; the CSRF token is derived from it. */
  readonly sid: string;
  /** The access key (keys) or the OpenID subject (oidc). */
  readonly sub: string;
  readonly kind: SessionKind;
  /** OIDC: the policies named by the policy claim. */
  readonly policies?: readonly string[];
  /** Keys: fingerprint of the secret key the user signed in with. */
  readonly fp?: string;
  /** Issued and expiry times, seconds since the epoch. */
  readonly iat: number;
  readonly exp: number;
}

/** What a new session is made of. */
export type NewSession = Pick<Session, 'sub' | 'kind'> & { policies?: readonly string[]; fp?: string };

const PREFIX = 'v1';

/** Mints a token for a new session valid `ttlSeconds` from `now`. */
export function issueSession(keys: ConsoleKeys, data: NewSession, ttlSeconds: number, now: Date): { token: string; session: Session } {
  const iat = Math.floor(now.getTime() / 1000);
  const session: Session = {
    sid: randomBytes(16).toString('base64url'), sub: data.sub, kind: data.kind,
    ...(data.policies !== undefined ? { policies: [...data.policies] } : {}),
    ...(data.fp !== undefined ? { fp: data.fp } : {}),
    iat, exp: iat + ttlSeconds,
  };
  const payload = Buffer.from(JSON.stringify(session), 'utf8').toString('base64url');
  return { token: `${PREFIX}.${payload}.${mac(keys.mac, `${PREFIX}.${payload}`)}`, session };
}

function isSession(v: unknown): v is Session {
  const s = v as Partial<Session> | null;
  return typeof s === 'object' && s !== null && typeof s.sid === 'string' && typeof s.sub === 'string'
    && (s.kind === 'keys' || s.kind === 'oidc') && typeof s.iat === 'number' && typeof s.exp === 'number'
    && (s.policies === undefined || (Array.isArray(s.policies) && s.policies.every((p) => typeof p === 'string')))
    && (s.fp === undefined || typeof s.fp === 'string');
}

/**
 * Verifies a token: SessionRequired when absent or forged (a token of another deployment is just not a session),
 * SessionExpired when its time is over.
 */
export function verifySession(keys: ConsoleKeys, token: string | undefined, now: Date): Session {
  if (token === undefined || token === '') throw new ConsoleError('SessionRequired', 'Sign in to use the console.');
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== PREFIX || !sameString(parts[2]!, mac(keys.mac, `${PREFIX}.${parts[1]}`))) {
    throw new ConsoleError('SessionRequired', 'The session is not valid here; sign in again.');
  }
  let session: unknown;
  try {
    session = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
  } catch {
    throw new ConsoleError('SessionRequired', 'The session is not valid here; sign in again.');
  }
  if (!isSession(session)) throw new ConsoleError('SessionRequired', 'The session is not valid here; sign in again.');
  if (session.exp <= Math.floor(now.getTime() / 1000)) throw new ConsoleError('SessionExpired', 'Your session has expired; sign in again.');
  return session;
}

/** The CSRF token of a session (sent back in the X-CSRF-Token header of every mutation). */
export function csrfTokenOf(keys: ConsoleKeys, session: Session): string {
  return mac(keys.mac, `csrf.${session.sid}`);
}

/** Fingerprint of a secret key, so a session ends when the secret changes (the secret itself is never in the token). */
export function secretFingerprint(keys: ConsoleKeys, accessKey: string, secretKey: string): string {
  return mac(keys.mac, `fp.${accessKey}.${secretKey}`).slice(0, 22);
}
