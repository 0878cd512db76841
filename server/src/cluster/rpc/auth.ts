/**
 * Node-to-node authentication (SPEC §1 rule 2, issue 4 "Authenticated node to node"): a short-lived bearer token
 * derived from the root credentials, so every node started with the same credentials can call every other one
 * and a node with other credentials is refused (403). No secret crosses the wire: the token is
 * `v1.<expiry ms>.<base64url HMAC-SHA256(secretKey, "svc-rpc" ‖ accessKey ‖ expiry)>`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The root credentials the token is derived from. */
export interface RpcCredentials {
  accessKey: string;
  secretKey: string;
}

/** A token is valid for one minute after it is made. */
export const RPC_TOKEN_VALIDITY_MS = 60_000;
/** Clocks of two nodes may differ by this much either way (expiry checked with this slack). */
export const RPC_CLOCK_SKEW_MS = 15_000;

const PREFIX = 'v1';

function mac(creds: RpcCredentials, expiry: number): string {
  return createHmac('sha256', creds.secretKey).update(`svc-rpc${creds.accessKey}${expiry}`).digest('base64url');
}

/** Makes a token valid until `now + RPC_TOKEN_VALIDITY_MS`. */
export function makeRpcToken(creds: RpcCredentials, now: number): string {
  const expiry = Math.floor(now) + RPC_TOKEN_VALIDITY_MS;
  return `${PREFIX}.${expiry}.${mac(creds, expiry)}`;
}

/**
 * Checks an `Authorization` header value (`Bearer <token>`). Accepts a token whose expiry lies in
 * [now − skew, now + validity + skew]: a peer clock up to `RPC_CLOCK_SKEW_MS` ahead or behind is tolerated,
 * while a token cannot be minted far into the future or replayed long after it expired.
 */
export function verifyRpcToken(header: string | undefined, creds: RpcCredentials, now: number): boolean {
  if (header === undefined) return false;
  const m = /^Bearer (v1)\.(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(header.trim());
  if (m === null) return false;
  const expiry = Number(m[2]);
  if (expiry < now - RPC_CLOCK_SKEW_MS || expiry > now + RPC_TOKEN_VALIDITY_MS + RPC_CLOCK_SKEW_MS) return false;
  const want = Buffer.from(mac(creds, expiry));
  const got = Buffer.from(m[3]!);
  return got.length === want.length && timingSafeEqual(got, want);
}

/** Caches one token per client and renews it when less than half of its validity is left. */
export class RpcTokenSource {
  readonly #creds: RpcCredentials;
  readonly #now: () => number;
  #token = '';
  #expiry = 0;

  constructor(creds: RpcCredentials, now: () => number = Date.now) {
    this.#creds = creds;
    this.#now = now;
  }

  /** The `Authorization` header value to send now. */
  header(): string {
    const now = this.#now();
    if (this.#expiry - now < RPC_TOKEN_VALIDITY_MS / 2) {
      this.#token = makeRpcToken(this.#creds, now);
      this.#expiry = now + RPC_TOKEN_VALIDITY_MS;
    }
    return `Bearer ${this.#token}`;
  }
}
