/** Waiting until the deployment answers through the proxy (SPEC §4: S3 readiness and console health over TLS). */
import type { ProbeRequest, ProbeResult, ProxyProbe } from './probe.js';

/** A probe's last outcome, for reporting what did not become ready. */
export interface ReadyCheck {
  readonly name: string;
  readonly request: ProbeRequest;
  last: ProbeResult | undefined;
}

/** Time and sleeping, injectable so the waiting loop is testable without waiting. */
export interface Waiter {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** Real time. */
export const REAL_WAITER: Waiter = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

/** Polls every check until each answered 200 once, or the deadline passes; returns the checks not ready (empty: all ready). */
export async function waitUntilReady(probe: ProxyProbe, checks: readonly ReadyCheck[], timeoutMs: number, waiter: Waiter, everyMs = 1000): Promise<ReadyCheck[]> {
  const deadline = waiter.now() + timeoutMs;
  let pending = [...checks];
  for (;;) {
    const next: ReadyCheck[] = [];
    for (const c of pending) {
      c.last = await probe.get(c.request);
      if (!(c.last.ok && c.last.status === 200)) next.push(c);
    }
    pending = next;
    if (pending.length === 0 || waiter.now() >= deadline) return pending;
    await waiter.sleep(everyMs);
  }
}

/** One line describing a probe outcome. */
export function describeProbe(r: ProbeResult | undefined): string {
  if (r === undefined) return 'not probed';
  return r.ok ? `HTTP ${r.status}` : r.error;
}
