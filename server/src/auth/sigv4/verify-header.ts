import type { LookupSecret } from '../credentials.js';
import { formatAmzDate, parseAmzDate, parseHttpDate } from './amz-date.js';
import { ALGORITHM, H } from './constants.js';
import { parseCredential, parseSignedHeaders, type Credential, type CredentialContext } from './credential-scope.js';
import { headerValue } from './headers.js';
import { parsePayloadHash } from './payload-mode.js';
import { checkAmzHeadersSigned, checkSignature } from './signature-check.js';
import { rememberSigningKey } from './signing-context.js';
import { SigV4Error } from './sigv4-errors.js';
import type { AuthenticatedRequest, SigV4Request } from './types.js';
import { checkSkew, lookupOrThrow, UNSUPPORTED_MECHANISM, type VerifyOptions } from './verify-common.js';

/**
 * Authorization-header authentication.
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-auth-using-authorization-header.html
 */

const CTX: CredentialContext = { code: 'AuthorizationHeaderMalformed', prefix: 'The authorization header is malformed; ' };

/** The three components of `AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...`. */
export interface AuthorizationHeader {
  credential: Readonly<Credential>;
  signedHeaders: readonly string[];
  signature: string;
}

/** Parses an Authorization header value (components in any order, optional spaces after commas). */
export function parseAuthorizationHeader(value: string): AuthorizationHeader {
  const trimmed = value.trim();
  const space = trimmed.search(/\s/);
  const algorithm = space < 0 ? trimmed : trimmed.slice(0, space);
  if (algorithm !== ALGORITHM) throw new SigV4Error('InvalidRequest', UNSUPPORTED_MECHANISM);
  const fields = new Map<string, string>();
  for (const item of trimmed.slice(algorithm.length).split(',')) {
    const part = item.trim();
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    if (eq < 0 || !['Credential', 'SignedHeaders', 'Signature'].includes(name) || fields.has(name)) {
      throw new SigV4Error(CTX.code, `${CTX.prefix}unexpected component "${part}"; expecting Credential=..., SignedHeaders=..., Signature=...`);
    }
    fields.set(name, part.slice(eq + 1).trim());
  }
  for (const name of ['Credential', 'SignedHeaders', 'Signature']) {
    if (!fields.get(name)) throw new SigV4Error(CTX.code, `${CTX.prefix}the ${name} component is missing or empty.`);
  }
  return {
    credential: remembered(credentials, fields.get('Credential')!, (v) => Object.freeze(parseCredential(v, CTX))),
    signedHeaders: remembered(signedHeaderLists, fields.get('SignedHeaders')!, (v) => Object.freeze(parseSignedHeaders(v, CTX))),
    signature: fields.get('Signature')!,
  };
}

/**
 * Parsed Credential and SignedHeaders components by their text: a client sends the same two on every request (only
 * the signature changes), and parsing them was ~6 % of a 4 KiB GET's signature check (issue 9). Only values that
 * parsed are kept (frozen: shared between requests); bounded by emptying when full.
 */
const credentials = new Map<string, Readonly<Credential>>();
const signedHeaderLists = new Map<string, readonly string[]>();
const MAX_REMEMBERED = 256;

function remembered<T>(known: Map<string, T>, text: string, parse: (text: string) => T): T {
  const hit = known.get(text);
  if (hit !== undefined) return hit;
  const value = parse(text);
  if (known.size >= MAX_REMEMBERED) known.clear();
  known.set(text, value);
  return value;
}

/** Verifies a request authenticated by its Authorization header. */
export async function verifyHeaderAuth(
  req: SigV4Request, authorization: string, lookup: LookupSecret, opts: VerifyOptions,
): Promise<AuthenticatedRequest> {
  const auth = parseAuthorizationHeader(authorization);
  const { credential } = auth;

  const xAmzDate = headerValue(req.headers, H.amzDate)?.trim();
  const httpDate = headerValue(req.headers, H.date);
  let requestTime: Date | undefined;
  let amzDate = '';
  if (xAmzDate !== undefined) {
    requestTime = parseAmzDate(xAmzDate);
    amzDate = xAmzDate;
  } else if (httpDate !== undefined) {
    requestTime = parseHttpDate(httpDate);
    if (requestTime !== undefined) amzDate = formatAmzDate(requestTime);
  }
  if (requestTime === undefined) {
    throw new SigV4Error('AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
  }
  if (credential.date !== amzDate.slice(0, 8)) {
    throw new SigV4Error(CTX.code,
      `${CTX.prefix}Invalid credential date "${credential.date}". This date is not the same as X-Amz-Date: "${amzDate.slice(0, 8)}".`);
  }
  checkSkew(requestTime, opts);

  const contentSha256 = headerValue(req.headers, H.contentSha256)?.trim();
  if (contentSha256 === undefined) {
    throw new SigV4Error('InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
  }
  const payload = parsePayloadHash(contentSha256);
  if (payload === undefined) {
    throw new SigV4Error('InvalidArgument',
      'x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, '
      + 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER, STREAMING-UNSIGNED-PAYLOAD-TRAILER or a valid sha256 value.',
      { details: { ArgumentName: 'x-amz-content-sha256', ArgumentValue: contentSha256 } });
  }
  checkAmzHeadersSigned(req, auth.signedHeaders);

  const secret = await lookupOrThrow(lookup, credential.accessKey);
  const key = checkSignature(req, {
    credential, amzDate, signedHeaders: auth.signedHeaders, signature: auth.signature, payloadHash: contentSha256,
  }, secret);

  const securityToken = headerValue(req.headers, H.securityToken);
  const result: AuthenticatedRequest = Object.freeze({
    anonymous: false as const,
    authType: 'header' as const,
    accessKey: credential.accessKey,
    region: credential.region,
    service: credential.service,
    requestTime,
    amzDate,
    scope: credential.scope,
    signedHeaders: Object.freeze([...auth.signedHeaders]),
    signature: auth.signature,
    payload: payload.mode,
    ...(payload.sha256 !== undefined ? { payloadSha256: payload.sha256 } : {}),
    ...(securityToken !== undefined ? { securityToken } : {}),
  });
  rememberSigningKey(result, key);
  return result;
}
