import type { LookupSecret } from '../credentials.js';
import { H, Q } from './constants.js';
import { parseQuery } from './encoding.js';
import { headerValue } from './headers.js';
import { parsePayloadHash } from './payload-mode.js';
import { SigV4Error } from './sigv4-errors.js';
import type { AnonymousRequest, SigV4Request, VerifiedRequest } from './types.js';
import { UNSUPPORTED_MECHANISM, type VerifyOptions } from './verify-common.js';
import { verifyHeaderAuth } from './verify-header.js';
import { verifyPresigned } from './verify-presigned.js';

/**
 * Authenticates an S3 request with AWS Signature Version 4 (Authorization header or presigned query).
 *
 * A request with no authentication at all resolves to `{ anonymous: true, payload }` instead of failing:
 * whether anonymous access is allowed is an authorization decision (bucket policy), taken by the caller.
 * Every failure rejects with a SigV4Error whose `s3Code` is the S3 error code to return; a rejection of
 * `lookup` is passed through unchanged (an internal error).
 */
export async function verifyRequest(req: SigV4Request, lookup: LookupSecret, opts: VerifyOptions): Promise<VerifiedRequest> {
  const authorization = headerValue(req.headers, H.authorization);
  const query = parseQuery(req.rawQuery);
  const has = (name: string): boolean => query.some((p) => p.name === name);
  const sigV4Query = has(Q.algorithm) || has(Q.credential) || has(Q.signature);
  const sigV2Query = has('AWSAccessKeyId') && has('Signature');
  if (authorization !== undefined && (sigV4Query || sigV2Query)) {
    throw new SigV4Error('InvalidArgument',
      'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified');
  }
  if (authorization !== undefined) return verifyHeaderAuth(req, authorization, lookup, opts);
  if (sigV4Query) return verifyPresigned(req, query, lookup, opts);
  if (sigV2Query) throw new SigV4Error('InvalidRequest', UNSUPPORTED_MECHANISM);
  return anonymousRequest(req);
}

function anonymousRequest(req: SigV4Request): AnonymousRequest {
  const value = headerValue(req.headers, H.contentSha256)?.trim();
  if (value === undefined) return Object.freeze({ anonymous: true as const, payload: 'unsigned' as const });
  const payload = parsePayloadHash(value);
  if (payload === undefined) {
    throw new SigV4Error('InvalidArgument', 'x-amz-content-sha256 must be UNSIGNED-PAYLOAD, '
      + 'STREAMING-UNSIGNED-PAYLOAD-TRAILER or a valid sha256 value.',
    { details: { ArgumentName: 'x-amz-content-sha256', ArgumentValue: value } });
  }
  if (payload.mode === 'streaming-signed' || payload.mode === 'streaming-signed-trailer') {
    throw new SigV4Error('InvalidRequest', `x-amz-content-sha256: ${value} requires a signed request.`);
  }
  return Object.freeze({
    anonymous: true as const,
    payload: payload.mode,
    ...(payload.sha256 !== undefined ? { payloadSha256: payload.sha256 } : {}),
  });
}
