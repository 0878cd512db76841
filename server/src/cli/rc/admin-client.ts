/**
 * Calls of the admin API (docs/admin-api.md): JSON over HTTP under `/svc/admin/v3/`, signed with AWS Signature
 * Version 4 (service `s3`, the alias's region) exactly like an S3 request.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createHash } from 'node:crypto';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AliasConfig } from './config.js';
import { EXIT, RcError } from './errors.js';
import { networkCode, unreachable } from './s3.js';

/** Prefix of every admin call. */
export const ADMIN_PREFIX = '/svc/admin/v3/';

/** One admin call: `path` is relative to {@link ADMIN_PREFIX}, with its `{…}` segments already URL-encoded. */
export interface AdminRequest {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
}

/** A signed admin API client for one alias. */
export interface AdminClient {
  /** Sends the call; resolves with the parsed JSON answer (undefined for 204), throws an {@link RcError}. */
  call<T>(req: AdminRequest): Promise<T>;
}

const AUTH_CODES = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'RequestTimeTooSkewed']);

/** Maps an admin error answer (docs/admin-api.md "Errors") to an {@link RcError}. */
export function adminError(status: number, body: string, what: string): RcError {
  let code = `HTTP ${status}`;
  let message = '';
  try {
    const parsed = JSON.parse(body) as { code?: unknown; message?: unknown };
    if (typeof parsed.code === 'string') code = parsed.code;
    if (typeof parsed.message === 'string') message = parsed.message;
  } catch {
    const xmlCode = /<Code>([^<]+)<\/Code>/.exec(body);
    if (xmlCode?.[1] !== undefined) code = xmlCode[1];
  }
  const detail = message ? `: ${message}` : '';
  if (AUTH_CODES.has(code)) return new RcError(EXIT.auth, `authentication failed (${code})`, { hint: 'check the alias keys ("rc alias set" to replace them)', serverCode: code });
  if (code === 'AccessDenied' || status === 403) {
    return new RcError(EXIT.denied, `permission denied for ${what} (${code})${detail}`, { hint: 'this needs an admin permission (e.g. the consoleAdmin policy); use an administrator\'s alias', serverCode: code });
  }
  if (status === 404 && code === 'NoSuchBucket') {
    // The S3 router took /svc/admin/… for a bucket: this server has no admin API.
    return new RcError(EXIT.failure, `the server does not offer the admin API (${what} answered NoSuchBucket)`, { hint: 'is the alias URL an svc server with the admin API (svc ≥ issue 5)?', serverCode: code });
  }
  if (status === 404) return new RcError(EXIT.notFound, `${what}: not found (${code})${detail}`, { serverCode: code });
  if (status === 400) return new RcError(EXIT.usage, `${what}: ${code}${detail}`, { serverCode: code });
  return new RcError(EXIT.failure, `${what}: ${code}${detail}`, { serverCode: code });
}

function send(url: URL, method: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const fn = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = fn(url, { method, headers, timeout: 60_000 }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('request timed out'), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end(body);
  });
}

function rfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** An {@link AdminClient} signing with `alias`'s keys. */
export function adminClientFor(alias: AliasConfig): AdminClient {
  const base = new URL(alias.url);
  const signer = new SignatureV4({
    service: 's3', region: alias.region, sha256: Sha256,
    credentials: { accessKeyId: alias.accessKey, secretAccessKey: alias.secretKey },
    // S3 signs the path as sent (no second escaping), and svc verifies admin calls with the S3 rules.
    uriEscapePath: false,
  });
  return {
    async call<T>(req: AdminRequest): Promise<T> {
      const basePath = base.pathname.replace(/\/+$/, '');
      const path = `${basePath}${ADMIN_PREFIX}${req.path}`;
      const body = req.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(req.body));
      const headers: Record<string, string> = {
        host: base.host,
        'x-amz-content-sha256': createHash('sha256').update(body).digest('hex'),
      };
      if (req.body !== undefined) headers['content-type'] = 'application/json';
      const signed = await signer.sign({
        method: req.method, protocol: base.protocol, hostname: base.hostname, port: base.port === '' ? undefined : Number(base.port),
        path, query: req.query ?? {}, headers, body,
      });
      // SigV4 canonical query encoding (RFC 3986, %20 not '+'); URLSearchParams would differ from what was signed.
      const query = Object.entries(req.query ?? {}).map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`).join('&');
      const target = new URL(base.origin + path + (query ? `?${query}` : ''));
      if (body.length > 0) signed.headers['content-length'] = String(body.length);
      const what = `${req.method} ${ADMIN_PREFIX}${req.path}`;
      let res: { status: number; text: string };
      try {
        res = await send(target, req.method, signed.headers as Record<string, string>, body);
      } catch (err) {
        throw unreachable(alias.url, networkCode(err) ?? (err as Error).message, err);
      }
      if (res.status >= 300) throw adminError(res.status, res.text, what);
      if (res.text === '') return undefined as T;
      try {
        return JSON.parse(res.text) as T;
      } catch {
        throw new RcError(EXIT.failure, `${what}: the server answered something that is not JSON (status ${res.status})`, { hint: 'is the alias URL an svc server?' });
      }
    },
  };
}
