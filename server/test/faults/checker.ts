/**
 * The fault run's checker, in the Jepsen spirit (issue 10 "A checker"): given the history of what concurrent
 * clients attempted and what was acknowledged, and what the store holds after recovery, it finds
 * - lost writes: a key whose final state is not one a linearizable register could end in — an acknowledged
 *   write vanished or was replaced by an older value (the final value must come from a write that may be
 *   last: one whose window does not end before the start of the latest-starting acknowledged write; writes of
 *   unknown outcome may be last too; "absent" is allowed when a delete may be last, or nothing was acknowledged);
 * - corrupt values: a read (during the run or after it) of content no client ever attempted to write for that
 *   key — a half-written or mixed object;
 * - stale reads during the run: a value that an acknowledged write had already replaced before the read began;
 *   one kind is counted apart, `absentDuringOverwrite`: "absent" read while an overwrite of the key was in flight
 *   (the engine's GET takes no read lock, so it can see a commit half done, no record at quorum, and answer
 *   NoSuchKey — a known bug reported with this checker);
 * - listing mismatches: keys listed that do not read, or read but are not listed, or listed with another size.
 */
import type { History, WriteOp } from './history.js';

/** What the store holds for one key after recovery: the content's SHA-256 and size, or null when absent. */
export interface FinalValue {
  sha: string;
  size: number;
}

/** One finding of the checker, with enough detail to debug it. */
export interface Finding {
  key: string;
  problem: string;
}

/** The checker's verdict. */
export interface CheckResult {
  keysChecked: number;
  objectsVerified: number;
  readsChecked: number;
  lost: Finding[];
  corrupt: Finding[];
  stale: Finding[];
  absentDuringOverwrite: Finding[];
  listing: Finding[];
}

const describe = (v: string | null): string => (v === null ? 'absent' : v.slice(0, 12));

function writesByKey(history: History): Map<string, WriteOp[]> {
  const by = new Map<string, WriteOp[]>();
  for (const w of history.writes) {
    const list = by.get(w.key) ?? [];
    list.push(w);
    by.set(w.key, list);
  }
  return by;
}

/** The final states a linearizable register could be in after `writes` (null = absent). */
export function allowedFinal(writes: readonly WriteOp[]): Set<string | null> {
  const acked = writes.filter((w) => w.status === 'ok');
  const allowed = new Set<string | null>();
  if (acked.length === 0) allowed.add(null);
  const latestStart = Math.max(-Infinity, ...acked.map((w) => w.start));
  for (const w of writes) {
    if (w.status === 'unknown' || (w.end ?? Infinity) >= latestStart) allowed.add(w.sha);
  }
  return allowed;
}

/** The values a read in [start, end] may return (null = absent): written before it ended, not surely replaced before it began. */
function allowedRead(writes: readonly WriteOp[], start: number, end: number): Set<string | null> {
  const replacedBefore = (w: { end: number | undefined }): boolean => writes.some(
    (o) => o.status === 'ok' && o.end !== undefined && o.end < start && (w.end === undefined ? false : o.start > w.end),
  );
  const allowed = new Set<string | null>();
  // The initial "absent" state is replaced by any write acknowledged before the read began.
  if (!writes.some((o) => o.status === 'ok' && o.end !== undefined && o.end < start)) allowed.add(null);
  for (const w of writes) {
    if (w.start < end && !replacedBefore(w)) allowed.add(w.sha);
  }
  return allowed;
}

/**
 * Checks `history` against `final` (every key of the key space → its state after recovery) and the listings
 * (one per node: key → size).
 */
export function checkHistory(
  history: History, final: ReadonlyMap<string, FinalValue | null>, listings: readonly ReadonlyMap<string, number>[],
): CheckResult {
  const by = writesByKey(history);
  const result: CheckResult = { keysChecked: 0, objectsVerified: 0, readsChecked: 0, lost: [], corrupt: [], stale: [], absentDuringOverwrite: [], listing: [] };
  for (const [key, value] of final) {
    result.keysChecked++;
    const writes = by.get(key) ?? [];
    const sha = value?.sha ?? null;
    if (sha !== null && !writes.some((w) => w.sha === sha)) {
      result.corrupt.push({ key, problem: `final content ${describe(sha)} was never written to this key` });
      continue;
    }
    const allowed = allowedFinal(writes);
    if (!allowed.has(sha)) {
      result.lost.push({ key, problem: `final state ${describe(sha)}, expected one of ${[...allowed].map(describe).join(', ')}` });
      continue;
    }
    if (value !== null) {
      const w = writes.find((o) => o.sha === sha);
      if (w !== undefined && w.size !== value.size) result.corrupt.push({ key, problem: `size ${value.size}, written ${w.size}` });
      else result.objectsVerified++;
    }
  }
  for (const [key, writes] of by) {
    if (!final.has(key) && writes.some((w) => w.status === 'ok')) result.lost.push({ key, problem: 'acknowledged writes but the key was not checked' });
  }
  for (const r of history.reads) {
    result.readsChecked++;
    const writes = by.get(r.key) ?? [];
    if (r.sha !== null && !writes.some((w) => w.sha === r.sha)) {
      result.corrupt.push({ key: r.key, problem: `client ${r.client} read ${describe(r.sha)}, never written to this key` });
    } else if (!allowedRead(writes, r.start, r.end).has(r.sha)) {
      const overwriting = r.sha === null && writes.some((w) => w.sha !== null && w.start < r.end && (w.end ?? Infinity) > r.start);
      (overwriting ? result.absentDuringOverwrite : result.stale).push({ key: r.key, problem: `client ${r.client} read ${describe(r.sha)}, already replaced before the read began` });
    }
  }
  listings.forEach((listing, n) => {
    for (const [key, value] of final) {
      const listed = listing.get(key);
      if (value === null && listed !== undefined) result.listing.push({ key, problem: `listed by node ${n + 1} but absent` });
      if (value !== null && listed === undefined) result.listing.push({ key, problem: `readable but not listed by node ${n + 1}` });
      if (value !== null && listed !== undefined && listed !== value.size) result.listing.push({ key, problem: `node ${n + 1} lists size ${listed}, reads ${value.size}` });
    }
    // A key written but not in `final` (it did not read) is reported by the caller; one nobody wrote is a finding here.
    for (const key of listing.keys()) if (!final.has(key) && !by.has(key)) result.listing.push({ key, problem: `node ${n + 1} lists a key nobody wrote` });
  });
  return result;
}
