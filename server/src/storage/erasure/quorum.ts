/**
 * Quorum arithmetic (REFERENCE.md facts 2 and 3). With K data and M parity shards:
 * read quorum = K; write quorum = K, or K+1 when K == M (prevents split brain);
 * bucket create/delete use N/2+1 of the set's drives.
 */

/** Shards needed to read an object. */
export function readQuorum(k: number): number {
  return k;
}

/** Drives that must commit a write for it to be visible. */
export function writeQuorum(k: number, m: number): number {
  return k === m ? k + 1 : k;
}

/** Majority quorum of a set (bucket create/delete, object delete). */
export function majorityQuorum(n: number): number {
  return Math.floor(n / 2) + 1;
}

/** MinIO's `DefaultParityBlocks` by erasure-set size; one definition, in the kernel. */
export { defaultParity } from '../../common/index.js';

/** Outcome of one drive's call. */
export type DriveResult<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Runs `fn` on every item in parallel and collects per-drive outcomes (never rejects). */
export async function onEach<D, T>(items: readonly D[], fn: (item: D, index: number) => Promise<T>): Promise<DriveResult<T>[]> {
  return Promise.all(items.map(async (item, i): Promise<DriveResult<T>> => {
    try {
      return { ok: true, value: await fn(item, i) };
    } catch (error) {
      return { ok: false, error };
    }
  }));
}

/**
 * Reduces per-drive errors: the most frequent error class when it reaches `quorum`, else undefined.
 * Used to tell "not found on a quorum of drives" from "not enough drives answered".
 */
export function reduceErrors(results: readonly DriveResult<unknown>[], quorum: number): unknown {
  const counts = new Map<unknown, { n: number; error: unknown }>();
  for (const r of results) {
    if (r.ok) continue;
    const cls = (r.error as object | null)?.constructor ?? r.error;
    const c = counts.get(cls) ?? { n: 0, error: r.error };
    c.n++;
    counts.set(cls, c);
  }
  let best: { n: number; error: unknown } | undefined;
  for (const c of counts.values()) if (best === undefined || c.n > best.n) best = c;
  return best !== undefined && best.n >= quorum ? best.error : undefined;
}

/** Count of successful results. */
export function countOk(results: readonly DriveResult<unknown>[]): number {
  let n = 0;
  for (const r of results) if (r.ok) n++;
  return n;
}
