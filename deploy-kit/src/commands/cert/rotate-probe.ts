/**
 * Which certificate the proxy serves, by a TLS handshake exactly as a client makes it (SNI = the public hostname),
 * compared by SHA-256 fingerprint. Verification of the chain is not needed here: the point is identity with the file
 * just written, and the fingerprint pins that exactly.
 */
import { connect } from 'node:tls';

/** Outcome of one handshake. */
export type HandshakeResult =
  | { readonly ok: true; readonly fingerprint256: string }
  | { readonly ok: false; readonly error: string };

/** TLS handshakes against the proxy (a port, so `cert rotate` is tested without one). */
export interface FingerprintProbe {
  served(address: string, port: number, servername: string): Promise<HandshakeResult>;
}

/** The real probe over node:tls; never throws, never hangs past `timeoutMs`. */
export function createFingerprintProbe(timeoutMs = 3000): FingerprintProbe {
  return {
    served(address, port, servername) {
      return new Promise((resolve) => {
        const socket = connect({ host: address, port, servername, rejectUnauthorized: false, timeout: timeoutMs });
        const done = (r: HandshakeResult): void => { socket.destroy(); resolve(r); };
        socket.once('secureConnect', () => {
          const fp = socket.getPeerCertificate().fingerprint256;
          done(typeof fp === 'string' && fp !== '' ? { ok: true, fingerprint256: fp } : { ok: false, error: 'no certificate served' });
        });
        socket.once('timeout', () => { done({ ok: false, error: `no TLS handshake within ${timeoutMs} ms` }); });
        socket.once('error', (e) => { done({ ok: false, error: e.message }); });
      });
    },
  };
}

/** Options of {@link waitForServed}. */
export interface WaitOptions {
  readonly address: string;
  readonly port: number;
  readonly hosts: readonly string[];
  readonly fingerprint256: string;
  readonly timeoutMs: number;
  readonly intervalMs: number;
  readonly sleep: (ms: number) => Promise<void>;
}

/**
 * Retries until every host is served `fingerprint256` or the time is up (HAProxy's new worker serves ~0.2 s after
 * USR2, DOCKER.md §2; a recreated proxy takes a little longer). Returns the last thing seen per host when it fails.
 */
export async function waitForServed(probe: FingerprintProbe, o: WaitOptions): Promise<{ ok: boolean; seen: string[] }> {
  const attempts = Math.max(1, Math.ceil(o.timeoutMs / o.intervalMs));
  let seen: string[] = [];
  for (let i = 0; i < attempts; i++) {
    const results = await Promise.all(o.hosts.map((h) => probe.served(o.address, o.port, h)));
    seen = results.map((r, j) => `${o.hosts[j] as string}: ${r.ok ? r.fingerprint256 : r.error}`);
    if (results.every((r) => r.ok && r.fingerprint256 === o.fingerprint256)) return { ok: true, seen };
    if (i + 1 < attempts) await o.sleep(o.intervalMs);
  }
  return { ok: false, seen };
}
