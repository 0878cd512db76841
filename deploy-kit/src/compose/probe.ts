/**
 * Requests through the proxy over TLS exactly as a client on the internet makes them: TCP to the published
 * address, SNI and Host = the public hostname, the deployment's CA (certs/ca.crt of `cert self-signed`) trusted
 * in addition to the system roots. Used by `up` (readiness, SPEC §4 rules 7-8) and `status` (served certificate).
 */
import { request } from 'node:https';
import { rootCertificates } from 'node:tls';
import type { PeerCertificate, TLSSocket } from 'node:tls';

/** The certificate the proxy served. */
export interface ServedCertificate {
  /** DNS names of the subjectAltName. */
  readonly names: readonly string[];
  readonly notAfter: Date;
  readonly issuer: string;
}

/** Outcome of one probe: an HTTP status and the served certificate, or why there is none. */
export type ProbeResult =
  | { readonly ok: true; readonly status: number; readonly certificate: ServedCertificate | undefined }
  | { readonly ok: false; readonly error: string };

/** One HTTPS GET through the proxy. */
export interface ProbeRequest {
  /** Address to connect to (e.g. 127.0.0.1). */
  readonly address: string;
  readonly port: number;
  /** Public hostname: SNI and Host header. */
  readonly host: string;
  readonly path: string;
  /** Extra trusted CA certificates (PEM). */
  readonly ca: string | undefined;
  readonly timeoutMs: number;
}

/** Sends HTTPS requests through the proxy (a port, so commands can be tested without one). */
export interface ProxyProbe {
  get(req: ProbeRequest): Promise<ProbeResult>;
}

function servedCertificate(cert: PeerCertificate): ServedCertificate | undefined {
  if (cert === undefined || cert === null || Object.keys(cert).length === 0) return undefined;
  const names = (cert.subjectaltname ?? '').split(',').map((s) => s.trim()).filter((s) => s.startsWith('DNS:')).map((s) => s.slice(4));
  const issuer = cert.issuer?.CN ?? cert.issuer?.O ?? '';
  return { names, notAfter: new Date(cert.valid_to), issuer: Array.isArray(issuer) ? issuer.join(',') : issuer };
}

/** The real probe over node:https; never throws, never hangs past `timeoutMs`. */
export function createTlsProbe(): ProxyProbe {
  return {
    get(req) {
      return new Promise<ProbeResult>((resolve) => {
        let done = false;
        const finish = (r: ProbeResult): void => {
          if (!done) { done = true; resolve(r); }
        };
        const r = request({
          host: req.address,
          port: req.port,
          path: req.path,
          method: 'GET',
          servername: req.host,
          headers: { host: req.host, connection: 'close' },
          ca: req.ca === undefined ? undefined : [...rootCertificates, req.ca],
          agent: false,
          timeout: req.timeoutMs,
        }, (res) => {
          const cert = servedCertificate((res.socket as TLSSocket).getPeerCertificate());
          res.resume();
          res.on('end', () => finish({ ok: true, status: res.statusCode ?? 0, certificate: cert }));
          res.on('error', (e) => finish({ ok: false, error: e.message }));
        });
        r.on('timeout', () => { r.destroy(new Error(`no answer in ${req.timeoutMs} ms`)); });
        r.on('error', (e) => finish({ ok: false, error: e.message }));
        r.end();
      });
    },
  };
}

/** Whole days from `now` until `notAfter` (negative when expired). */
export function daysLeft(notAfter: Date, now: Date): number {
  return Math.floor((notAfter.getTime() - now.getTime()) / 86_400_000);
}
