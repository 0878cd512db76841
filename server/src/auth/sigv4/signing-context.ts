import type { AuthenticatedRequest } from './types.js';

/**
 * Signing key of each verified request, kept out of the result object so it is never serialized or
 * logged; decodePayload needs it to check aws-chunked chunk and trailer signatures.
 */
const keys = new WeakMap<AuthenticatedRequest, Buffer>();

/** Remembers the signing key of a verified request. */
export function rememberSigningKey(req: AuthenticatedRequest, key: Buffer): void {
  keys.set(req, key);
}

/** The signing key of a request returned by verifyRequest, undefined for any other object. */
export function signingKeyOf(req: AuthenticatedRequest): Buffer | undefined {
  return keys.get(req);
}
