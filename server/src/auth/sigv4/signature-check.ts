import { canonicalHeaders, canonicalRequest, stringToSign } from './canonical-request.js';
import type { Credential } from './credential-scope.js';
import { canonicalQueryCandidates, canonicalUriCandidates } from './encoding.js';
import { deriveSigningKey, hmacHex, signaturesEqual } from './signing-key.js';
import { SigV4Error } from './sigv4-errors.js';
import type { SigV4Request } from './types.js';

/** Everything the signature of a request was computed over, besides the request itself. */
export interface SignedParts {
  credential: Credential;
  amzDate: string;
  signedHeaders: readonly string[];
  signature: string;
  payloadHash: string;
  /** Query parameter left out of the canonical query (X-Amz-Signature for presigned URLs). */
  omitQueryParam?: string;
}

/**
 * Recomputes the signature over each acceptable canonical form of the path and query (see encoding.ts)
 * and compares in constant time. Returns the signing key (needed for aws-chunked bodies).
 * Throws SignatureDoesNotMatch with the first canonical request and string to sign as details, as S3 does.
 */
export function checkSignature(req: SigV4Request, parts: SignedParts, secret: string): Buffer {
  const { credential } = parts;
  const key = deriveSigningKey(secret, credential.date, credential.region, credential.service);
  const headers = canonicalHeaders(req, parts.signedHeaders);
  const method = req.method.toUpperCase();
  let first: { canonical: string; sts: string } | undefined;
  for (const canonicalUri of canonicalUriCandidates(req.rawPath)) {
    for (const canonicalQuery of canonicalQueryCandidates(req.rawQuery, parts.omitQueryParam)) {
      const canonical = canonicalRequest({
        method, canonicalUri, canonicalQuery, canonicalHeaders: headers,
        signedHeaders: parts.signedHeaders, payloadHash: parts.payloadHash,
      });
      const sts = stringToSign(parts.amzDate, credential.scope, canonical);
      if (signaturesEqual(hmacHex(key, sts), parts.signature)) return key;
      first ??= { canonical, sts };
    }
  }
  throw new SigV4Error('SignatureDoesNotMatch',
    'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    { details: {
      AWSAccessKeyId: credential.accessKey,
      StringToSign: first!.sts,
      SignatureProvided: parts.signature,
      CanonicalRequest: first!.canonical,
    } });
}

/**
 * Body-integrity headers a presigned-URL client may add without signing them: they only make the upload
 * stricter (the payload itself is unsigned), so an intermediary changing them gains nothing.
 */
export function isIntegrityHeader(name: string): boolean {
  return name === 'x-amz-content-sha256' || name === 'x-amz-trailer' || name === 'x-amz-decoded-content-length'
    || name === 'x-amz-sdk-checksum-algorithm' || name.startsWith('x-amz-checksum-');
}

/**
 * S3 rejects requests carrying x-amz-* headers that are not signed (AccessDenied, HeadersNotSigned);
 * otherwise anyone on the path could add e.g. x-amz-acl or x-amz-meta-* to a signed request.
 */
export function checkAmzHeadersSigned(req: SigV4Request, signedHeaders: readonly string[], exempt?: (name: string) => boolean): void {
  const unsigned = Object.keys(req.headers)
    .filter((n) => n.startsWith('x-amz-') && req.headers[n] !== undefined && !signedHeaders.includes(n) && !exempt?.(n))
    .sort();
  if (unsigned.length > 0) {
    throw new SigV4Error('AccessDenied', 'There were headers present in the request which were not signed',
      { details: { HeadersNotSigned: unsigned.join(', ') } });
  }
}
