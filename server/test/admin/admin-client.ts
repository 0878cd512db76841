/**
 * Signs admin API calls the way `rc` does: AWS Signature Version 4 (service s3) over method, path, query, host
 * and the SHA-256 of the JSON body, with @smithy/signature-v4.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';

/** The answer of one admin call. */
export interface AdminResponse {
  status: number;
  /** Parsed JSON body; undefined for an empty body. */
  json: unknown;
  contentType: string;
}

/** Options of {@link adminCall}. */
export interface AdminCallOptions {
  /** JSON value, or a raw string sent as is. */
  body?: unknown;
  /** Signs with this secret instead (a wrong signature). */
  signSecret?: string;
  /** Sends the request unsigned. */
  unsigned?: boolean;
}

/** Calls `method path` (relative to /svc/admin/v3/, query included) on `url` as `accessKey`. */
export async function adminCall(
  url: string, accessKey: string, secretKey: string, method: string, path: string, opts: AdminCallOptions = {},
): Promise<AdminResponse> {
  const u = new URL(`/svc/admin/v3/${path}`, url);
  const body = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  const query: Record<string, string> = {};
  for (const [k, v] of u.searchParams) query[k] = v;
  const headers: Record<string, string> = { host: u.host, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) };
  let sent = headers;
  if (opts.unsigned !== true) {
    const signer = new SignatureV4({
      // S3 signs the path as sent, without encoding it again (the SDK's S3 client does the same).
      service: 's3', region: 'us-east-1', sha256: Sha256, uriEscapePath: false, credentials: { accessKeyId: accessKey, secretAccessKey: opts.signSecret ?? secretKey },
    });
    const signed = await signer.sign({
      method, protocol: u.protocol, hostname: u.hostname, port: Number(u.port), path: u.pathname, query, headers, ...(body !== undefined ? { body } : {}),
    });
    sent = signed.headers;
  }
  const { host: _host, ...fetchHeaders } = sent;
  const res = await fetch(u, { method, headers: fetchHeaders, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  return { status: res.status, json: text === '' ? undefined : JSON.parse(text) as unknown, contentType: res.headers.get('content-type') ?? '' };
}

/** A JSON object of an answer, for field access in assertions. */
export function obj(r: AdminResponse): Record<string, unknown> {
  return r.json as Record<string, unknown>;
}
