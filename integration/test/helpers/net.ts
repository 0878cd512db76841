/** Loopback helpers: free ports and a DNS lookup that sends the test hostnames to 127.0.0.1. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Ports handed out come from below Linux's ephemeral range (32768–60999 by default): a port from `listen(0)` was free
 * a moment ago, but before Docker's proxy bound it an outgoing connection of a test running alongside could take it
 * as its local port ("bind: address already in use", seen in CI on the ACME test). Test files run in parallel
 * processes, so each port is reserved by creating a file for it (O_EXCL) in a directory of this test run.
 */
const LOW = 20_000;
const HIGH = 32_000;
const RESERVED = join(tmpdir(), `svc-test-ports-${process.env.SVC_TEST_RUN_ID ?? 'local'}`);

function reserve(port: number): boolean {
  mkdirSync(RESERVED, { recursive: true });
  try {
    writeFileSync(join(RESERVED, String(port)), String(process.pid), { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A TCP port on 127.0.0.1 that is free, outside the ephemeral range, and given to no other test of this run. */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 1000; i++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (reserve(port) && await bindable(port)) return port;
  }
  throw new Error(`no free port between ${LOW} and ${HIGH} after 1,000 tries (reservations in ${RESERVED})`);
}

/** A `lookup` for http(s) agents: every name is 127.0.0.1 (the published proxy), whatever the caller asks. */
export const loopbackLookup: LookupFunction = (_host, options, callback) => {
  const cb = callback as unknown as (err: Error | null, address: string | { address: string; family: number }[], family?: number) => void;
  if (typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true) cb(null, [{ address: '127.0.0.1', family: 4 }]);
  else cb(null, '127.0.0.1', 4);
};
