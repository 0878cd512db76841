import type { LookupSecret } from '../credentials.js';
import { parseAmzDate } from './amz-date.js';
import { ALGORITHM, DEFAULT_MAX_SKEW_MS, H, MAX_PRESIGN_EXPIRES_SECONDS, Q, UNSIGNED_PAYLOAD } from './constants.js';
import { parseCredential, parseSignedHeaders, type CredentialContext } from './credential-scope.js';
import type { QueryParam } from './encoding.js';
import { headerValue } from './headers.js';
import { isStreaming, parsePayloadHash, type PayloadHash } from './payload-mode.js';
import { checkAmzHeadersSigned, checkSignature, isIntegrityHeader } from './signature-check.js';
import { rememberSigningKey } from './signing-context.js';
import { SigV4Error } from './sigv4-errors.js';
import type { AuthenticatedRequest, SigV4Request } from './types.js';
import { lookupOrThrow, type VerifyOptions } from './verify-common.js';

/**
 * Query-string (presigned URL) authentication.
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html
 */

const CODE = 'AuthorizationQueryParametersError' as const;
const CRED_CTX: CredentialContext = { code: CODE, prefix: 'Error parsing the X-Amz-Credential parameter; ' };
const SH_CTX: CredentialContext = { code: CODE, prefix: 'Error parsing the X-Amz-SignedHeaders parameter; ' };
const REQUIRED =
  'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, '
  + 'X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.';

function single(query: readonly QueryParam[], name: string, anyCase = false): string | undefined {
  const lower = name.toLowerCase();
  const found = query.filter((p) => p.name === name || (anyCase && p.name.toLowerCase() === lower));
  if (found.length > 1) throw new SigV4Error(CODE, `Query-string authentication requires a single ${name} parameter.`);
  return found[0]?.value;
}

function payloadOf(req: SigV4Request, signedValue: string): PayloadHash {
  const invalid = (name: string, value: string): SigV4Error => new SigV4Error('InvalidArgument',
    `${name} must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER or a valid sha256 value.`,
    { details: { ArgumentName: name, ArgumentValue: value } });
  let payload = parsePayloadHash(signedValue);
  if (payload === undefined) throw invalid(Q.contentSha256, signedValue);
  const header = headerValue(req.headers, H.contentSha256)?.trim();
  if (payload.mode === 'unsigned' && header !== undefined) {
    // The signature does not cover the body, but a hash or trailer mode the client announces is still honoured.
    payload = parsePayloadHash(header);
    if (payload === undefined) throw invalid(H.contentSha256, header);
  }
  if (isStreaming(payload.mode) && payload.mode !== 'streaming-unsigned-trailer') {
    throw new SigV4Error('InvalidRequest', 'Signed aws-chunked payloads cannot be used with query-string authentication.');
  }
  return payload;
}

/** Verifies a request authenticated by X-Amz-* query parameters. */
export async function verifyPresigned(
  req: SigV4Request, query: readonly QueryParam[], lookup: LookupSecret, opts: VerifyOptions,
): Promise<AuthenticatedRequest> {
  const algorithm = single(query, Q.algorithm);
  const credentialValue = single(query, Q.credential);
  const amzDate = single(query, Q.date);
  const expiresValue = single(query, Q.expires);
  const signedHeadersValue = single(query, Q.signedHeaders);
  const signature = single(query, Q.signature);
  if ([algorithm, credentialValue, amzDate, expiresValue, signedHeadersValue, signature].some((v) => v === undefined || v === '')) {
    throw new SigV4Error(CODE, REQUIRED);
  }
  if (algorithm !== ALGORITHM) throw new SigV4Error(CODE, `X-Amz-Algorithm only supports "${ALGORITHM}"`);
  const credential = parseCredential(credentialValue!, CRED_CTX);
  const requestTime = parseAmzDate(amzDate!);
  if (requestTime === undefined) {
    throw new SigV4Error(CODE, 'X-Amz-Date must be in the ISO8601 Long Format "yyyyMMdd\'T\'HHmmss\'Z\'"');
  }
  if (!/^-?\d+$/.test(expiresValue!)) throw new SigV4Error(CODE, 'X-Amz-Expires should be a number');
  const expires = Number(expiresValue);
  if (expires < 1) throw new SigV4Error(CODE, 'X-Amz-Expires must be a positive number of seconds');
  if (expires > MAX_PRESIGN_EXPIRES_SECONDS) {
    throw new SigV4Error(CODE, 'X-Amz-Expires must be less than a week (in seconds) that is 7 days or 604800 seconds');
  }
  if (credential.date !== amzDate!.slice(0, 8)) {
    throw new SigV4Error(CODE,
      `${CRED_CTX.prefix}Invalid credential date "${credential.date}". This date is not the same as X-Amz-Date: "${amzDate!.slice(0, 8)}".`);
  }
  const signedHeaders = parseSignedHeaders(signedHeadersValue!, SH_CTX);
  const signedPayload = single(query, Q.contentSha256, true) ?? UNSIGNED_PAYLOAD;
  const payload = payloadOf(req, signedPayload);

  const now = opts.now.getTime();
  const expiresAt = new Date(requestTime.getTime() + expires * 1000);
  if (requestTime.getTime() - now > (opts.maxSkewMs ?? DEFAULT_MAX_SKEW_MS)) {
    throw new SigV4Error('AccessDenied', 'Request is not valid yet',
      { details: { 'X-Amz-Date': amzDate!, ServerTime: opts.now.toISOString() } });
  }
  if (now > expiresAt.getTime()) {
    throw new SigV4Error('AccessDenied', 'Request has expired',
      { details: { 'X-Amz-Expires': String(expires), Expires: expiresAt.toISOString(), ServerTime: opts.now.toISOString() } });
  }
  checkAmzHeadersSigned(req, signedHeaders, isIntegrityHeader);

  const secret = await lookupOrThrow(lookup, credential.accessKey);
  const key = checkSignature(req, {
    credential, amzDate: amzDate!, signedHeaders, signature: signature!, payloadHash: signedPayload, omitQueryParam: Q.signature,
  }, secret);

  const securityToken = single(query, Q.securityToken);
  const result: AuthenticatedRequest = Object.freeze({
    anonymous: false as const,
    authType: 'presigned' as const,
    accessKey: credential.accessKey,
    region: credential.region,
    service: credential.service,
    requestTime,
    amzDate: amzDate!,
    scope: credential.scope,
    signedHeaders: Object.freeze([...signedHeaders]),
    signature: signature!,
    payload: payload.mode,
    ...(payload.sha256 !== undefined ? { payloadSha256: payload.sha256 } : {}),
    expiresAt,
    ...(securityToken !== undefined ? { securityToken } : {}),
  });
  rememberSigningKey(result, key);
  return result;
}
