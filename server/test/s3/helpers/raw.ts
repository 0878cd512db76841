/** Raw HTTP against the harness: requests signed with @smithy/signature-v4, or not signed at all. */
import { request as httpRequest } from 'node:http';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { ACCESS_KEY, REGION, SECRET_KEY } from './harness.js';

/** A response read completely. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Sends one request over a fresh connection and reads the whole response. */
export function rawRequest(port: number, opts: { method: string; path: string; headers?: Record<string, string>; body?: Buffer | string }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: opts.method, path: opts.path, headers: opts.headers ?? {}, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** What to sign: `path` is the raw, already percent-encoded path (sent byte for byte); `query` is decoded. */
export interface SignInput {
  method: string;
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: Buffer | string;
  secret?: string;
  unsignedPayload?: boolean;
  /** Content-Length to declare instead of the body's length (for truncated-body tests). */
  contentLength?: number;
}

/** Signs a request with @smithy/signature-v4 and returns the request target and headers to send. */
export async function signRequest(port: number, opts: SignInput): Promise<{ target: string; headers: Record<string, string>; body: Buffer | undefined }> {
  const signer = new SignatureV4({
    service: 's3',
    region: REGION,
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: opts.secret ?? SECRET_KEY },
    sha256: Sha256,
    // The path is already encoded exactly as S3 expects: sign it as-is, like the S3 SDK does.
    uriEscapePath: false,
    applyChecksum: true,
  });
  const body = opts.body === undefined ? undefined : Buffer.from(opts.body);
  const headers: Record<string, string> = { host: `127.0.0.1:${port}`, ...(opts.headers ?? {}) };
  if (opts.contentLength !== undefined) headers['content-length'] = String(opts.contentLength);
  else if (body !== undefined) headers['content-length'] = String(body.length);
  if (opts.unsignedPayload === true) headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
  const signed = await signer.sign({
    method: opts.method,
    protocol: 'http:',
    hostname: '127.0.0.1',
    port,
    path: opts.path,
    query: opts.query ?? {},
    headers,
    ...(body !== undefined && opts.unsignedPayload !== true ? { body } : {}),
  });
  const qs = Object.entries(opts.query ?? {})
    .map(([k, v]) => (v === '' ? encodeURIComponent(k) : `${encodeURIComponent(k)}=${encodeURIComponent(v)}`))
    .join('&');
  return { target: qs === '' ? opts.path : `${opts.path}?${qs}`, headers: signed.headers as Record<string, string>, body };
}

/** Signs and sends a request (see SignInput), reading the whole response. */
export async function signedRequest(port: number, opts: SignInput): Promise<RawResponse> {
  const { target, headers, body } = await signRequest(port, opts);
  return rawRequest(port, { method: opts.method, path: target, headers, ...(body !== undefined ? { body } : {}) });
}

/** The `<Code>` of an S3 XML error body. */
export function errorCode(body: string): string | undefined {
  return /<Code>([^<]*)<\/Code>/.exec(body)?.[1];
}
