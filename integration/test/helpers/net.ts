/** Loopback helpers: free ports and a DNS lookup that sends the test hostnames to 127.0.0.1. */
import { createServer } from 'node:net';
import type { LookupFunction } from 'node:net';

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** A `lookup` for http(s) agents: every name is 127.0.0.1 (the published proxy), whatever the caller asks. */
export const loopbackLookup: LookupFunction = (_host, options, callback) => {
  const cb = callback as unknown as (err: Error | null, address: string | { address: string; family: number }[], family?: number) => void;
  if (typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true) cb(null, [{ address: '127.0.0.1', family: 4 }]);
  else cb(null, '127.0.0.1', 4);
};
