/**
 * What the browser sees of a request: its scheme and host, which a TLS proxy in front of the console changes
 * (SPEC §4 "Deployment behind a reverse proxy"). X-Forwarded-Proto/-Host are believed only when the TCP peer is a
 * trusted proxy (loopback and private ranges by default, SVC_CONSOLE_TRUSTED_PROXIES to set), since any client
 * can send them.
 */
import { BlockList, isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';

/** The default trusted proxy ranges: loopback and private networks, where a compose or k8s proxy lives. */
export const DEFAULT_TRUSTED_PROXIES = ['127.0.0.0/8', '::1/128', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'] as const;

/** A set of address ranges. */
export interface TrustedProxies {
  has(address: string): boolean;
}

/** Parses `a.b.c.d/n`, `addr` or `v6/n` entries; throws a clear Error for a malformed one. */
export function trustedProxies(ranges: readonly string[]): TrustedProxies {
  const list = new BlockList();
  for (const raw of ranges) {
    const entry = raw.trim();
    if (entry === '') continue;
    const [addr = '', bits] = entry.split('/');
    const family = isIP(addr);
    if (family === 0) throw new Error(`SVC_CONSOLE_TRUSTED_PROXIES: "${entry}" is not an address or CIDR range`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) {
      list.addAddress(addr, type);
    } else {
      const n = Number(bits);
      if (!/^\d+$/.test(bits) || n > (family === 4 ? 32 : 128)) throw new Error(`SVC_CONSOLE_TRUSTED_PROXIES: "${entry}" has a bad prefix length`);
      list.addSubnet(addr, n, type);
    }
  }
  return {
    has(address: string): boolean {
      const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
      if (v4 !== undefined) return list.check(v4, 'ipv4');
      const family = isIP(address);
      return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  // Several proxies append: the first value is the one the browser's proxy set.
  return s?.split(',')[0]?.trim() || undefined;
}

/** The scheme and host the browser used. */
export interface BrowserOrigin {
  secure: boolean;
  host: string;
}

/** Where the browser came from: the forwarded values from a trusted proxy, else the connection's own. */
export function browserOrigin(request: FastifyRequest, trusted: TrustedProxies): BrowserOrigin {
  const socket = request.raw.socket as { encrypted?: boolean; remoteAddress?: string };
  const direct = { secure: socket.encrypted === true, host: request.headers.host ?? '' };
  if (!trusted.has(socket.remoteAddress ?? '')) return direct;
  const proto = header(request, 'x-forwarded-proto')?.toLowerCase();
  const host = header(request, 'x-forwarded-host');
  return { secure: proto === undefined ? direct.secure : proto === 'https', host: host ?? direct.host };
}

/** Cookies of a request (first value of each name wins). */
export function parseCookies(request: FastifyRequest): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (out.has(name)) continue;
    try {
      out.set(name, decodeURIComponent(part.slice(eq + 1).trim()));
    } catch {
      // A value that is not valid percent-encoding is not one of ours.
    }
  }
  return out;
}

/** A Set-Cookie value: HttpOnly, SameSite=Lax (the OIDC redirect back must carry it), Secure over HTTPS. */
export function cookie(name: string, value: string, opts: { path: string; maxAge: number; secure: boolean }): string {
  return [`${name}=${encodeURIComponent(value)}`, `Path=${opts.path}`, `Max-Age=${opts.maxAge}`, 'HttpOnly', 'SameSite=Lax',
    ...(opts.secure ? ['Secure'] : [])].join('; ');
}

/**
 * True unless the request names another origin: a browser always sends Origin on a cross-site POST, PUT, DELETE
 * and WebSocket handshake, so a mismatch is a forged request (defence in depth beside the CSRF token).
 */
export function sameOrigin(request: FastifyRequest, origin: BrowserOrigin): boolean {
  const sent = request.headers.origin;
  if (sent === undefined) return true;
  try {
    const u = new URL(sent);
    // The host alone decides: a forged request comes from another host, while the scheme may be rewritten by a proxy.
    return u.host === origin.host;
  } catch {
    return false;
  }
}
