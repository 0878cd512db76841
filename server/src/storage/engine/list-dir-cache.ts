import type { ErasureSet } from './erasure-set.js';
import { compareUtf8 } from './object-name.js';
import { InsufficientReadQuorumError } from './storage-errors.js';

/**
 * The sorted entries of one key directory (the union of its child segments over the set's drives), kept between
 * the pages of a listing so that a continuation page does not re-read and re-sort a directory of thousands of keys.
 *
 * Consistency: an entry is reused only when EVERY drive that answers now answered before and vouches, with the
 * directory stamp of Drive.scanDir (inode, mtime, ctime, link count, taken before reading the names and only once
 * the directory has settled), that its names did not change since. The stamp is the filesystem's own view, so a
 * key created or deleted by any node of a cluster (through this drive's owner) invalidates it, exactly like a
 * fresh read would see it; a drive that stops or starts answering rebuilds the union. Nothing is trusted on age.
 */

/** One sort entry: child `name` as an object (`key` = dirKey + name) or as a directory (`key` ends in "/"). */
export interface DirEntry {
  key: string;
  name: string;
  dir: boolean;
}

interface CachedDir {
  /** Per drive slot: the names and stamp it answered, or null when it did not answer. */
  names: (string[] | null)[];
  stamps: (string | null)[];
  entries: DirEntry[];
  at: number;
}

/** Directories kept per set (least recently used dropped first). */
const MAX_DIRS = 16;
/** Directories larger than this are not kept (bounded memory: the object index does not live on the heap). */
const MAX_CACHED_NAMES = 200_000;
/** Entries unused for this long are dropped. */
const IDLE_MS = 60_000;

const caches = new WeakMap<ErasureSet, Map<string, CachedDir>>();

function sortEntries(dirKey: string, union: Iterable<string>): DirEntry[] {
  const entries: DirEntry[] = [];
  for (const n of union) entries.push({ key: dirKey + n, name: n, dir: false }, { key: `${dirKey}${n}/`, name: n, dir: true });
  // Sorting `n` and `n/` together makes depth-first order equal to key order (see listing.ts).
  return entries.sort((a, b) => compareUtf8(a.key, b.key));
}

/** The directory's entries in key order (read quorum of drives must answer). */
export async function dirEntries(set: ErasureSet, bucket: string, dirKey: string): Promise<readonly DirEntry[]> {
  let cache = caches.get(set);
  if (cache === undefined) caches.set(set, (cache = new Map()));
  const id = `${bucket}/${dirKey}`;
  const now = Date.now();
  let cached = cache.get(id);
  if (cached !== undefined && now - cached.at > IDLE_MS) cached = undefined;
  cache.delete(id);
  const res = await set.each((d, i) => d.scanDir(bucket, dirKey, cached?.stamps[i] ?? null));
  const names: (string[] | null)[] = [];
  const stamps: (string | null)[] = [];
  let answered = 0;
  let same = cached !== undefined;
  let stable = true;
  res.forEach((r, i) => {
    if (!r.ok) {
      names.push(null);
      stamps.push(null);
      if ((cached?.names[i] ?? null) !== null) same = false;
      return;
    }
    answered++;
    const mine = r.value.names ?? cached?.names[i] ?? null;
    if (mine === null) throw new InsufficientReadQuorumError(`cannot list ${bucket}: drive ${i} answered no names`);
    if (r.value.names !== null || (cached?.names[i] ?? null) === null) same = false;
    if (r.value.stamp === null) stable = false;
    names.push(mine);
    stamps.push(r.value.stamp);
  });
  if (answered < set.readQuorum) throw new InsufficientReadQuorumError(`cannot list ${bucket}: ${answered} of ${set.n} drives answered`);
  let entries: DirEntry[];
  if (same && cached !== undefined) {
    entries = cached.entries;
  } else {
    const union = new Set<string>();
    for (const list of names) if (list !== null) for (const n of list) union.add(n);
    entries = sortEntries(dirKey, union);
  }
  if (stable && entries.length <= 2 * MAX_CACHED_NAMES) {
    cache.set(id, { names, stamps, entries, at: now });
    for (const k of cache.keys()) {
      if (cache.size <= MAX_DIRS) break;
      cache.delete(k);
    }
  }
  return entries;
}

/** Index of the first entry to visit after `startAfter` (the directory holding it, if any, included). */
export function firstAfter(entries: readonly DirEntry[], startAfter: string): number {
  if (startAfter === '') return 0;
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareUtf8(entries[mid]!.key, startAfter) > 0) hi = mid;
    else lo = mid + 1;
  }
  // Keys between a directory "d/" and a cursor "d/x" start with "d/": only that directory itself can sit there.
  const prev = entries[lo - 1];
  return prev !== undefined && prev.dir && startAfter.startsWith(prev.key) ? lo - 1 : lo;
}
