import { lookup } from 'node:dns/promises';
import { createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { Dns, LookupResult, Net, PortState } from './ports.js';

const LOOKUP_TIMEOUT_MS = 5_000;

/** Resolution with the system resolver (dns.lookup, so /etc/hosts counts, as it does for clients on this host). */
export function createNodeDns(): Dns {
  return {
    async lookup(host): Promise<LookupResult> {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<LookupResult>((resolve) => {
        timer = setTimeout(() => resolve({ ok: false, code: 'ETIMEOUT' }), LOOKUP_TIMEOUT_MS);
      });
      const attempt = lookup(host, { all: true }).then(
        (r): LookupResult => ({ ok: true, addresses: r.map((a) => a.address) }),
        (err: unknown): LookupResult => ({ ok: false, code: String((err as { code?: unknown }).code ?? 'ERROR') }),
      );
      try {
        return await Promise.race([attempt, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    localAddresses() {
      return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
    },
  };
}

/** Binding probes: the port is free exactly when this process can listen on it on every interface, as the proxy will. */
export function createNodeNet(): Net {
  return {
    probePort(port) {
      return new Promise<PortState>((resolve) => {
        const server = createServer();
        server.once('error', (err: NodeJS.ErrnoException) => {
          resolve(err.code === 'EACCES' || err.code === 'EPERM' ? 'denied' : 'busy');
        });
        server.listen({ port, exclusive: true }, () => {
          server.close(() => resolve('free'));
        });
      });
    },
  };
}
