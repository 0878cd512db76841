import { S3Error } from './s3-error.js';

/** Most entries any list operation returns per page (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html). */
export const MAX_LIST_ENTRIES = 1000;

/**
 * Parses max-keys / max-uploads / max-parts: a non-negative integer, capped at 1000 (AWS silently caps
 * larger values); anything else is InvalidArgument.
 */
export function parseMaxEntries(raw: string | undefined, name: string): number {
  if (raw === undefined || raw === '') return MAX_LIST_ENTRIES;
  if (!/^\d{1,10}$/.test(raw.trim())) {
    throw new S3Error('InvalidArgument', { message: `Provided ${name} not an integer or within integer range`, extra: { ArgumentName: name, ArgumentValue: raw } });
  }
  return Math.min(Number(raw.trim()), MAX_LIST_ENTRIES);
}

/** Parses a non-negative integer marker such as part-number-marker (0 when absent). */
export function parseIntegerMarker(raw: string | undefined, name: string): number {
  if (raw === undefined || raw === '') return 0;
  if (!/^\d{1,5}$/.test(raw.trim())) {
    throw new S3Error('InvalidArgument', { message: `Provided ${name} not an integer or within integer range`, extra: { ArgumentName: name, ArgumentValue: raw } });
  }
  return Number(raw.trim());
}

/**
 * `encoding-type=url`: S3 percent-encodes keys, prefixes, delimiters and markers in the response so that
 * keys with characters XML 1.0 cannot carry survive. We encode like encodeURIComponent but keep `/`
 * readable; both `decodeURIComponent` and form decoding (`unquote_plus`) restore the key.
 */
export function listEncoder(raw: string | undefined): { encodingType?: 'url'; encode: (s: string) => string } {
  if (raw === undefined) return { encode: (s) => s };
  if (raw.toLowerCase() !== 'url') {
    throw new S3Error('InvalidArgument', { message: 'Invalid Encoding Method specified in Request', extra: { ArgumentName: 'encoding-type', ArgumentValue: raw } });
  }
  return { encodingType: 'url', encode: (s) => encodeURIComponent(s).replace(/%2F/g, '/') };
}

const TOKEN_PREFIX = 'svc1:';

/**
 * ListObjectsV2 continuation tokens are opaque to clients: base64 of a versioned marker (the last key or
 * common prefix returned), so the format can change without breaking clients holding old tokens.
 */
export function encodeContinuationToken(marker: string): string {
  return Buffer.from(`${TOKEN_PREFIX}${marker}`, 'utf8').toString('base64');
}

/** Decodes a continuation token; anything this server did not issue is InvalidArgument, as on AWS. */
export function decodeContinuationToken(token: string): string {
  const text = /^[A-Za-z0-9+/]*={0,2}$/.test(token) ? Buffer.from(token, 'base64').toString('utf8') : '';
  if (!text.startsWith(TOKEN_PREFIX) || Buffer.from(text, 'utf8').toString('base64') !== token) {
    throw new S3Error('InvalidArgument', { message: 'The continuation token provided is incorrect', extra: { ArgumentName: 'continuation-token' } });
  }
  return text.slice(TOKEN_PREFIX.length);
}
