import { ALGORITHM } from './constants.js';
import { headerValues } from './headers.js';
import { sha256Hex } from './signing-key.js';
import type { SigV4Request } from './types.js';

/**
 * Canonical request and string to sign of SigV4.
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html
 */

/**
 * Canonical headers block: `name:value\n` for each signed header, in the order given (already sorted by
 * the client). Values are trimmed and inner whitespace runs collapsed to one space; repeated headers are
 * joined with ','. A signed header the request lacks contributes an empty value (and thus a mismatch).
 */
export function canonicalHeaders(req: Pick<SigV4Request, 'headers' | 'rawHeaders'>, signedHeaders: readonly string[]): string {
  let out = '';
  for (const name of signedHeaders) {
    const values = headerValues(req.headers, req.rawHeaders, name).map((v) => v.trim().replace(/\s+/g, ' '));
    out += `${name}:${values.join(',')}\n`;
  }
  return out;
}

/** The parts of a canonical request. */
export interface CanonicalRequestParts {
  method: string;
  canonicalUri: string;
  canonicalQuery: string;
  canonicalHeaders: string;
  signedHeaders: readonly string[];
  payloadHash: string;
}

/** Joins the six lines of a canonical request. */
export function canonicalRequest(p: CanonicalRequestParts): string {
  return [p.method, p.canonicalUri, p.canonicalQuery, p.canonicalHeaders, p.signedHeaders.join(';'), p.payloadHash].join('\n');
}

/** String to sign: algorithm, request time, scope and the hex SHA-256 of the canonical request. */
export function stringToSign(amzDate: string, scope: string, canonical: string): string {
  return `${ALGORITHM}\n${amzDate}\n${scope}\n${sha256Hex(canonical)}`;
}
