/**
 * Startup agreement on one format (issue 4 "Startup waits for peers and for format quorum"). Every node is started
 * with the same endpoint list, so exactly one of them — the first node of the list — may create a fresh deployment,
 * and only once it reaches every drive; the others wait until a majority of the drives carries a format, then open
 * the storage (openStorage adopts the format held by most drives and refuses drives of another deployment).
 */
import type { Drive } from '../storage/index.js';
import { UnformattedDiskError } from '../storage/index.js';
import { RpcUnavailableError } from './rpc/index.js';

/** Options of {@link waitForFormatQuorum}. */
export interface FormatWaitOptions {
  /** Every drive of the deployment (local and remote), pool by pool: each pool must be ready on its own. */
  pools: readonly (readonly Drive[])[];
  /** True on the node allowed to format fresh drives (the first node of the endpoint list). */
  formatter: boolean;
  /** Give up after this long (default 5 min). */
  timeoutMs?: number;
  /** Pause between rounds (default 1 s). */
  intervalMs?: number;
  /** Called after each round that is not ready yet (for the startup log). */
  onWait?: (state: FormatState) => void;
}

/** What one round saw. */
export interface FormatState {
  formatted: number;
  unformatted: number;
  unreachable: number;
}

/** Reads every drive's format once. */
export async function probeFormats(drives: readonly Drive[]): Promise<FormatState> {
  const res = await Promise.allSettled(drives.map((d) => d.readFormat()));
  const state: FormatState = { formatted: 0, unformatted: 0, unreachable: 0 };
  for (const r of res) {
    if (r.status === 'fulfilled') state.formatted++;
    else if (r.reason instanceof UnformattedDiskError) state.unformatted++;
    else state.unreachable++;
  }
  return state;
}

/** True when storage may be opened now (see the module comment). */
export function formatReady(s: FormatState, formatter: boolean): boolean {
  const n = s.formatted + s.unformatted + s.unreachable;
  if (s.formatted >= Math.floor(n / 2) + 1) return true;
  return formatter && s.unreachable === 0 && s.formatted === 0;
}

/** Waits until {@link formatReady}; RpcUnavailableError naming the counts after the timeout. */
export async function waitForFormatQuorum(opts: FormatWaitOptions): Promise<FormatState> {
  const deadline = Date.now() + (opts.timeoutMs ?? 300_000);
  const interval = opts.intervalMs ?? 1_000;
  for (;;) {
    // Per pool: a pool added to a formatted deployment is still fresh, and only the formatter may format it.
    const states = await Promise.all(opts.pools.map((p) => probeFormats(p)));
    const s: FormatState = {
      formatted: states.reduce((a, x) => a + x.formatted, 0),
      unformatted: states.reduce((a, x) => a + x.unformatted, 0),
      unreachable: states.reduce((a, x) => a + x.unreachable, 0),
    };
    if (states.every((x) => formatReady(x, opts.formatter))) return s;
    opts.onWait?.(s);
    if (Date.now() + interval > deadline) {
      throw new RpcUnavailableError('cluster', `format quorum not reached: ${s.formatted} formatted, ${s.unformatted} empty, ${s.unreachable} unreachable of ${s.formatted + s.unformatted + s.unreachable} drives`);
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}
