/** Raw HTTP(S) requests to the published proxy with the public hostname as SNI and Host (what a browser sends). */
import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { PeerCertificate, TLSSocket } from 'node:tls';

/** One request. */
export interface WireRequest {
  readonly port: number;
  /** Host header and (for TLS) SNI; `servername: null` sends no SNI. */
  readonly host: string;
  readonly path: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  /** Trusted CA (PEM); undefined = do not verify. */
  readonly ca?: string;
  readonly servername?: string | null;
}

/** What came back. */
export interface WireResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly certificate: PeerCertificate | undefined;
  readonly authorized: boolean | undefined;
}

/** One request over TLS (`tls: true`) or plain HTTP to 127.0.0.1:port. */
export function wire(req: WireRequest, tls: boolean): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    const common = {
      host: '127.0.0.1', port: req.port, path: req.path, method: req.method ?? 'GET', agent: false as const,
      headers: { host: req.host, connection: 'close', ...req.headers }, timeout: 15_000,
    };
    const onResponse = (res: import('node:http').IncomingMessage): void => {
      const sock = res.socket as TLSSocket;
      const certificate = tls ? sock.getPeerCertificate() : undefined;
      const authorized = tls ? sock.authorized : undefined;
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, certificate, authorized }));
      res.on('error', reject);
    };
    const r = tls
      ? httpsRequest({
        ...common,
        servername: req.servername === null ? '' : (req.servername ?? req.host),
        ca: req.ca,
        rejectUnauthorized: req.ca !== undefined,
      }, onResponse)
      : httpRequest(common, onResponse);
    r.on('timeout', () => r.destroy(new Error('request timed out')));
    r.on('error', reject);
    r.end();
  });
}
