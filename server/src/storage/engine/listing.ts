import { isDeleteMarker } from '../format/index.js';
import type { ObjectRecord } from '../format/index.js';
import type { ErasureSet } from './erasure-set.js';
import { dirEntries, firstAfter } from './list-dir-cache.js';
import type { DirEntry } from './list-dir-cache.js';
import { toObjectInfo } from './erasure-set.js';
import { readListBatch } from './list-batch.js';
import type { ListBatch } from './list-batch.js';
import type { ListObjectsOptions, ListObjectsResult, ObjectInfo } from './object-layer.js';
import { compareUtf8 } from './object-name.js';
import { InsufficientReadQuorumError } from './storage-errors.js';

/**
 * Listing (ListObjects semantics: https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html):
 * keys in UTF-8 byte order, filtered by prefix, rolled up at the delimiter, after startAfter.
 *
 * Per set, key directories are walked depth-first; each directory's names are the union over
 * the set's online drives (so wiped or offline drives only shrink redundancy, not results), kept sorted between
 * pages while every drive vouches they did not change (list-dir-cache.ts); a continuation page starts by binary
 * search at its cursor instead of re-reading the directory.
 * A child segment `s` yields two sort entries, `s` (maybe an object) and `s/` (maybe a
 * directory), sorted in UTF-8 order: this makes depth-first order equal to key order. Subtrees
 * entirely before startAfter or outside the prefix are skipped; with "/" as delimiter a
 * directory becomes a common prefix without being descended. Candidate objects are confirmed
 * by reading their metadata in batches of about a page (list-batch.ts readListBatch: one drive call per drive and
 * batch, which also supplies size/ETag and whether a name has deeper keys). Sets are then merged.
 */

/** One listing entry: a key's record (every version) or a common prefix. */
export type ListEntry = { key: string; record: ObjectRecord } | { key: string; prefix: true };

/** Union of a key directory's child segments over the set's drives (read quorum of answers required). */
export async function listDirUnion(set: ErasureSet, bucket: string, dirKey: string): Promise<string[]> {
  const res = await set.each((d) => d.listDir(bucket, dirKey));
  const names = new Set<string>();
  let answered = 0;
  for (const r of res) {
    if (!r.ok) continue;
    answered++;
    for (const n of r.value) names.add(n);
  }
  if (answered < set.readQuorum) throw new InsufficientReadQuorumError(`cannot list ${bucket}: ${answered} of ${set.n} drives answered`);
  return [...names];
}

/** Keys per batched metadata read when the caller gives no hint. */
const DEFAULT_BATCH = 256;
/** Keys per drive call: small enough that reading the next batch overlaps decoding this one. */
const SUB_BATCH = 128;
/** Keys of the chunk read after the expected ones (doubling from there). */
const TAIL_BATCH = 16;
/** Most keys per batched metadata read (a page of 1,000 plus the one that shows it is truncated). */
const MAX_BATCH = 1_001;

/**
 * Walks the entries of one set under `dirKey` in key order: objects with their record, "/" common prefixes, and
 * deeper directories descended into. Entries are visited in batches of about `batch` names, each confirmed with
 * one readListBatch (one drive call per drive; unchanged keys answered from list-record-cache.ts). They are
 * yielded as arrays (never empty), one per sub-batch read: a step of an async generator costs a few promises and
 * microtasks, paid per array rather than per key (10,000 in a listing of 10,000 keys, through three generators).
 */
async function* walk(
  set: ErasureSet, bucket: string, dirKey: string, prefix: string, startAfter: string, slash: boolean, batch: number,
): AsyncGenerator<ListEntry[]> {
  const entries = await dirEntries(set, bucket, dirKey);
  let at = firstAfter(entries, startAfter);
  let done = false;
  // The first chunk is what the caller said it needs; more is a guess, so further chunks start small and grow.
  let size = batch;
  for (let chunkNo = 0; !done && at < entries.length; chunkNo++) {
    if (chunkNo > 0) size = Math.min(batch, chunkNo === 1 ? TAIL_BATCH : size * 2);
    const chunk: DirEntry[] = [];
    const names: string[] = [];
    for (; at < entries.length; at++) {
      const e = entries[at]!;
      if (!e.key.startsWith(prefix) && !(e.dir && prefix.startsWith(e.key))) {
        // Entries are in key order: past the prefix's range nothing more can match.
        if (compareUtf8(e.key, prefix) > 0) {
          done = true;
          break;
        }
        continue;
      }
      // Nothing here is at or before startAfter: firstAfter started past it (or at the directory holding it).
      if (names[names.length - 1] !== e.name) {
        if (names.length === size) break;
        names.push(e.name);
      }
      chunk.push(e);
    }
    if (chunk.length === 0) break;
    // Sub-batches all in flight: the drives read the next ones while the first are decoded and consumed.
    const reads: Promise<ListBatch>[] = [];
    for (let i = 0; i < names.length; i += SUB_BATCH) {
      const p = readListBatch(set, bucket, dirKey, names.slice(i, i + SUB_BATCH));
      p.catch(() => undefined);
      reads.push(p);
    }
    // A chunk's entries follow its names' order (an object `n` then its directory `n/`, or the other way round).
    let j = -1;
    let read: ListBatch | undefined;
    let out: ListEntry[] = [];
    for (const e of chunk) {
      if (names[j] !== e.name) {
        j++;
        if (j % SUB_BATCH === 0) {
          // The next sub-batch: what is ready goes to the consumer while it is read.
          if (out.length > 0) {
            yield out;
            out = [];
          }
          read = await reads[j / SUB_BATCH]!;
        }
      }
      const { records, children } = read!;
      const k = j % SUB_BATCH;
      if (!e.dir) {
        const record = records[k];
        if (record !== null && record !== undefined) out.push({ key: e.key, record });
        continue;
      }
      if (!children[k]) continue;
      if (slash && e.key.startsWith(prefix) && e.key.length > prefix.length) {
        if (compareUtf8(e.key, startAfter) > 0) out.push({ key: e.key, prefix: true });
        continue;
      }
      if (out.length > 0) {
        yield out;
        out = [];
      }
      yield* walk(set, bucket, e.key, prefix, startAfter, slash, batch);
    }
    if (out.length > 0) yield out;
  }
}

/**
 * Objects and "/" prefixes of one set, in key order, as arrays of entries (never empty). `batch` is how many keys
 * the caller probably needs (a page: max-keys + 1); metadata is read that many keys at a time.
 */
function listSetChunks(
  set: ErasureSet, bucket: string, prefix: string, startAfter: string, slash: boolean, batch = DEFAULT_BATCH,
): AsyncGenerator<ListEntry[]> {
  const startDir = prefix.slice(0, prefix.lastIndexOf('/') + 1);
  return walk(set, bucket, startDir, prefix, startAfter, slash, Math.max(1, Math.min(MAX_BATCH, batch)));
}

/** Objects and "/" prefixes of one set, in key order, one at a time (the drive heal's walk). */
export async function* listSet(
  set: ErasureSet, bucket: string, prefix: string, startAfter: string, slash: boolean, batch = DEFAULT_BATCH,
): AsyncGenerator<ListEntry> {
  for await (const chunk of listSetChunks(set, bucket, prefix, startAfter, slash, batch)) {
    for (const entry of chunk) yield entry;
  }
}

/** True when `bucket` holds any key, whatever its versions (a bucket of delete markers is not empty). */
export async function hasAnyKey(sets: readonly ErasureSet[], bucket: string): Promise<boolean> {
  for await (const _chunk of mergeSets(sets, bucket, '', '', false, 1)) return true;
  return false;
}

/**
 * Per-set listings (each in key order) merged into one stream in key order, as arrays of entries (never empty).
 * Only what the consumer asked for is read: a set's next array is awaited once the consumer wants more and that set
 * is the one to take from.
 */
export async function* mergeSets(
  sets: readonly ErasureSet[], bucket: string, prefix: string, startAfter: string, slash: boolean, batch = DEFAULT_BATCH,
): AsyncGenerator<ListEntry[]> {
  // One set (a single pool of one set: most deployments) has nothing to merge.
  if (sets.length === 1) {
    yield* listSetChunks(sets[0]!, bucket, prefix, startAfter, slash, batch);
    return;
  }
  const iters = sets.map((s) => listSetChunks(s, bucket, prefix, startAfter, slash, batch));
  // Each set's current array and the position in it; undefined once the set has no more.
  const chunks: (ListEntry[] | undefined)[] = sets.map(() => []);
  const pos = sets.map(() => 0);
  const refill = async (i: number): Promise<void> => {
    while (chunks[i] !== undefined && pos[i]! >= chunks[i]!.length) {
      const r = await iters[i]!.next();
      chunks[i] = r.done === true ? undefined : r.value;
      pos[i] = 0;
    }
  };
  try {
    await Promise.all(sets.map((_, i) => refill(i)));
    for (;;) {
      const out: ListEntry[] = [];
      const exhausted: number[] = [];
      while (exhausted.length === 0) {
        let min = -1;
        for (let i = 0; i < sets.length; i++) {
          const h = chunks[i]?.[pos[i]!];
          if (h !== undefined && (min < 0 || compareUtf8(h.key, chunks[min]![pos[min]!]!.key) < 0)) min = i;
        }
        if (min < 0) break;
        // A key is in one set of a pool, but two pools can both hold it after a race of two first writes from
        // different nodes: the newest record wins (as reads pick it), the older copy is skipped.
        let entry = chunks[min]![pos[min]!]!;
        for (let i = 0; i < sets.length; i++) {
          const h = chunks[i]?.[pos[i]!];
          if (h === undefined || h.key !== entry.key) continue;
          if (i !== min && 'record' in h && (!('record' in entry) || newestModTime(h.record) > newestModTime(entry.record))) entry = h;
          pos[i]!++;
          if (pos[i]! >= chunks[i]!.length) exhausted.push(i);
        }
        out.push(entry);
      }
      if (out.length > 0) yield out;
      if (exhausted.length === 0) return;
      // Advanced only once the consumer wants more: a page that is full reads no key beyond it.
      await Promise.all(exhausted.map(refill));
    }
  } finally {
    await Promise.all(iters.map((it) => it.return(undefined)));
  }
}

/** Modification time of a record's newest version (0 when it has none). */
export function newestModTime(record: ObjectRecord): number {
  return record.versions[0]?.modTime ?? 0;
}

/** The common prefix an entry rolls up to under `delimiter` after `prefix`, if any. */
export function commonPrefixOf(entry: ListEntry, prefix: string, delimiter: string): string | undefined {
  if ('prefix' in entry) return entry.key;
  if (delimiter === '') return undefined;
  const at = entry.key.indexOf(delimiter, prefix.length);
  return at >= 0 ? entry.key.slice(0, at + delimiter.length) : undefined;
}

/**
 * One ListObjects page. A key whose newest version is a delete marker is not listed (ListObjects shows current
 * objects only: https://docs.aws.amazon.com/AmazonS3/latest/userguide/DeleteMarker.html).
 */
export async function listObjects(sets: readonly ErasureSet[], bucket: string, opts: ListObjectsOptions): Promise<ListObjectsResult> {
  const { prefix, delimiter, maxKeys } = opts;
  const startAfter = opts.startAfter;
  const slash = delimiter === '/';
  const result: ListObjectsResult = { objects: [], commonPrefixes: [], isTruncated: false };
  if (maxKeys <= 0) return result;
  let lastPrefix: string | undefined;
  let count = 0;
  pages: for await (const chunk of mergeSets(sets, bucket, prefix, startAfter, slash, maxKeys + 1)) {
    for (const entry of chunk) {
      let info: ObjectInfo | undefined;
      if ('record' in entry) {
        const latest = entry.record.versions[0];
        if (latest === undefined || isDeleteMarker(latest)) continue;
        info = toObjectInfo(bucket, latest);
      }
      const cp = commonPrefixOf(entry, prefix, delimiter);
      if (cp !== undefined && (cp === lastPrefix || compareUtf8(cp, startAfter) <= 0)) continue;
      if (count === maxKeys) {
        result.isTruncated = true;
        break pages;
      }
      count++;
      if (cp !== undefined) {
        lastPrefix = cp;
        result.commonPrefixes.push(cp);
        result.nextMarker = cp;
      } else {
        result.objects.push(info!);
        result.nextMarker = entry.key;
      }
    }
  }
  if (!result.isTruncated) delete result.nextMarker;
  return result;
}
