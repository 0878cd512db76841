import { S3Error } from '../s3-error.js';

/** Standard headers stored with an object (same names as the engine's SystemMetadataName). */
export const SYSTEM_METADATA_HEADERS = [
  'content-type', 'content-encoding', 'content-disposition', 'content-language', 'cache-control', 'expires',
] as const;

/** One of SYSTEM_METADATA_HEADERS. */
export type SystemMetadataHeader = (typeof SYSTEM_METADATA_HEADERS)[number];

/** Metadata taken from request headers, ready for the engine. */
export interface ParsedMetadata {
  system: Partial<Record<SystemMetadataHeader, string>>;
  user: Record<string, string>;
}

/** Request headers as Node exposes them (names lower-cased). */
export type HeaderBag = Readonly<Record<string, string | string[] | undefined>>;

/** User metadata is limited to 2 KB: UTF-8 bytes of every name and value (https://docs.aws.amazon.com/AmazonS3/latest/userguide/UsingMetadata.html). */
export const MAX_USER_METADATA_BYTES = 2048;

const USER_PREFIX = 'x-amz-meta-';

/** The first value of a header. */
export function headerValue(headers: HeaderBag, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * `aws-chunked` is a transfer framing, not an encoding of the stored object: S3 removes it from the
 * stored Content-Encoding (https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html).
 */
function storedContentEncoding(raw: string): string | undefined {
  const kept = raw.split(',').map((s) => s.trim()).filter((s) => s !== '' && s.toLowerCase() !== 'aws-chunked');
  return kept.length === 0 ? undefined : kept.join(',');
}

/** Extracts system and user metadata; throws MetadataTooLarge above 2 KB of user metadata. */
export function parseMetadata(headers: HeaderBag): ParsedMetadata {
  const system: ParsedMetadata['system'] = {};
  for (const name of SYSTEM_METADATA_HEADERS) {
    const raw = headerValue(headers, name);
    if (raw === undefined) continue;
    const value = name === 'content-encoding' ? storedContentEncoding(raw) : raw;
    if (value !== undefined) system[name] = value;
  }
  const user: Record<string, string> = {};
  let bytes = 0;
  for (const [name, raw] of Object.entries(headers)) {
    if (!name.startsWith(USER_PREFIX) || raw === undefined) continue;
    const key = name.slice(USER_PREFIX.length);
    const value = Array.isArray(raw) ? raw.join(',') : raw;
    user[key] = value;
    bytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (bytes > MAX_USER_METADATA_BYTES) {
    throw new S3Error('MetadataTooLarge', { extra: { MaxSizeAllowed: String(MAX_USER_METADATA_BYTES), Size: String(bytes) } });
  }
  return { system, user };
}

/** Response headers for stored metadata (system headers and `x-amz-meta-*`). */
export function metadataHeaders(meta: ParsedMetadata): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of SYSTEM_METADATA_HEADERS) {
    const v = meta.system[name];
    if (v !== undefined) out[name] = v;
  }
  for (const [k, v] of Object.entries(meta.user)) out[`${USER_PREFIX}${k}`] = v;
  return out;
}

/** `response-*` query parameters that override response headers on GET (https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html). */
export const RESPONSE_OVERRIDES = {
  'response-content-type': 'content-type',
  'response-content-language': 'content-language',
  'response-expires': 'expires',
  'response-cache-control': 'cache-control',
  'response-content-disposition': 'content-disposition',
  'response-content-encoding': 'content-encoding',
} as const;

/** The header overrides requested in the query string. */
export function responseOverrides(query: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [param, headerName] of Object.entries(RESPONSE_OVERRIDES)) {
    const v = query[param];
    if (v !== undefined) out[headerName] = v;
  }
  return out;
}

/**
 * Decodes Content-MD5 (base64 of the 16-byte digest). Returns undefined when absent; anything that is not
 * a 16-byte base64 value is InvalidDigest (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html).
 */
export function parseContentMd5(headers: HeaderBag): Buffer | undefined {
  const raw = headerValue(headers, 'content-md5');
  if (raw === undefined) return undefined;
  const t = raw.trim();
  if (!/^[A-Za-z0-9+/]{22}==$/.test(t)) throw new S3Error('InvalidDigest');
  return Buffer.from(t, 'base64');
}
