/**
 * `GET /svc/admin/v3/info` through the proxy over TLS, signed with AWS Signature Version 4 (service `s3`, the
 * server's region) with the deployment's root credentials from .env, exactly as docs/admin-api.md asks: the body
 * hash is sent as `x-amz-content-sha256` and the path is signed as sent (`uriEscapePath: false`). The Host header
 * is signed as the client sends it, with the port when it is not 443 (SigV4 covers Host; the proxy keeps it, rule 3).
 */
import { createHash } from 'node:crypto';
import { request } from 'node:https';
import { rootCertificates } from 'node:tls';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';

/** Path of the information report (docs/admin-api.md). */
export const ADMIN_INFO_PATH = '/svc/admin/v3/info';

/** One signed call of the information report. */
export interface AdminInfoRequest {
  /** Address to connect to (e.g. 127.0.0.1). */
  readonly address: string;
  readonly port: number;
  /** The S3 hostname: SNI and Host. */
  readonly host: string;
  /** Extra trusted CA certificates (PEM). */
  readonly ca: string | undefined;
  readonly accessKey: string;
  readonly secretKey: string;
  readonly region: string;
  readonly timeoutMs: number;
}

/** The parsed JSON answer, or why there is none (status and the server's error code when it answered one). */
export type AdminInfoAnswer = { readonly ok: true; readonly report: unknown } | { readonly ok: false; readonly error: string };

/** Asks the admin API for its information report (a port, so `status` can be tested without a server). */
export interface AdminInfoSource {
  info(req: AdminInfoRequest): Promise<AdminInfoAnswer>;
}

function errorOf(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown };
    if (typeof body.code === 'string') return `HTTP ${status} ${body.code}${typeof body.message === 'string' ? `: ${body.message}` : ''}`;
  } catch {
    // not JSON
  }
  return `HTTP ${status}`;
}

/** The real source over node:https; never throws, never hangs past `timeoutMs`. */
export function createAdminInfoSource(now: () => Date = () => new Date()): AdminInfoSource {
  return {
    async info(req) {
      const hostHeader = req.port === 443 ? req.host : `${req.host}:${req.port}`;
      const signer = new SignatureV4({
        service: 's3', region: req.region, sha256: Sha256, uriEscapePath: false,
        credentials: { accessKeyId: req.accessKey, secretAccessKey: req.secretKey },
      });
      const signed = await signer.sign({
        method: 'GET', protocol: 'https:', hostname: req.host, port: req.port, path: ADMIN_INFO_PATH, query: {},
        headers: { host: hostHeader, 'x-amz-content-sha256': createHash('sha256').update('').digest('hex') },
      }, { signingDate: now() });
      return new Promise<AdminInfoAnswer>((resolve) => {
        let done = false;
        const finish = (a: AdminInfoAnswer): void => {
          if (!done) { done = true; resolve(a); }
        };
        const r = request({
          host: req.address, port: req.port, path: ADMIN_INFO_PATH, method: 'GET', servername: req.host,
          headers: { ...(signed.headers as Record<string, string>), connection: 'close' },
          ca: req.ca === undefined ? undefined : [...rootCertificates, req.ca],
          agent: false, timeout: req.timeoutMs,
        }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (e) => finish({ ok: false, error: e.message }));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            if (status !== 200) return finish({ ok: false, error: errorOf(status, text) });
            try {
              finish({ ok: true, report: JSON.parse(text) as unknown });
            } catch {
              finish({ ok: false, error: 'the answer is not JSON' });
            }
          });
        });
        r.on('timeout', () => { r.destroy(new Error(`no answer in ${req.timeoutMs} ms`)); });
        r.on('error', (e) => finish({ ok: false, error: e.message }));
        r.end();
      });
    },
  };
}
