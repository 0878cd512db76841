import { isDeleteMarker } from '../format/index.js';
import type { ObjectRecord } from '../format/index.js';
import type { ErasureSet } from './erasure-set.js';
import { toObjectInfo } from './erasure-set.js';
import type { ListObjectsOptions, ListObjectsResult, ObjectInfo } from './object-layer.js';
import { compareUtf8 } from './object-name.js';
import { InsufficientReadQuorumError } from './storage-errors.js';

/**
 * Listing (ListObjects semantics: https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html):
 * keys in UTF-8 byte order, filtered by prefix, rolled up at the delimiter, after startAfter.
 *
 * Per set, key directories are walked depth-first; each directory's names are the union over
 * the set's online drives (so wiped or offline drives only shrink redundancy, not results).
 * A child segment `s` yields two sort entries, `s` (maybe an object) and `s/` (maybe a
 * directory), sorted in UTF-8 order: this makes depth-first order equal to key order. Subtrees
 * entirely before startAfter or outside the prefix are skipped; with "/" as delimiter a
 * directory becomes a common prefix without being descended. Candidate objects are confirmed
 * by reading their metadata (ErasureSet.readListMeta, which also supplies size/ETag). Sets are then merged.
 */

/** One listing entry: a key's record (every version) or a common prefix. */
export type ListEntry = { key: string; record: ObjectRecord } | { key: string; prefix: true };

interface Candidate {
  key: string;
  dir: boolean;
}

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

/** Walks candidate keys (and "/" common prefixes) of one set in key order. */
async function* walk(
  set: ErasureSet, bucket: string, dirKey: string, prefix: string, startAfter: string, slash: boolean,
): AsyncGenerator<Candidate> {
  const names = await listDirUnion(set, bucket, dirKey);
  const entries: { sort: string; key: string; dir: boolean }[] = [];
  for (const n of names) {
    entries.push({ sort: n, key: dirKey + n, dir: false }, { sort: `${n}/`, key: `${dirKey}${n}/`, dir: true });
  }
  entries.sort((a, b) => compareUtf8(a.sort, b.sort));
  for (const e of entries) {
    if (!e.dir) {
      if (e.key.startsWith(prefix) && compareUtf8(e.key, startAfter) > 0) yield { key: e.key, dir: false };
      continue;
    }
    const dk = e.key;
    if (!(dk.startsWith(prefix) || prefix.startsWith(dk))) continue;
    if (compareUtf8(dk, startAfter) <= 0 && !startAfter.startsWith(dk)) continue;
    if (slash && dk.startsWith(prefix) && dk.length > prefix.length) {
      if (compareUtf8(dk, startAfter) > 0 && (await listDirUnion(set, bucket, dk)).length > 0) yield { key: dk, dir: true };
      continue;
    }
    yield* walk(set, bucket, dk, prefix, startAfter, slash);
  }
}

/** Objects and "/" prefixes of one set, in key order, with metadata fetched a few keys ahead. */
export async function* listSet(
  set: ErasureSet, bucket: string, prefix: string, startAfter: string, slash: boolean,
): AsyncGenerator<ListEntry> {
  const startDir = prefix.slice(0, prefix.lastIndexOf('/') + 1);
  const ahead: { c: Candidate; info: Promise<ObjectRecord | null> }[] = [];
  const lookup = (c: Candidate): Promise<ObjectRecord | null> => {
    if (c.dir) return Promise.resolve(null);
    const p = set.readListMeta(bucket, c.key);
    p.catch(() => undefined);
    return p;
  };
  const emit = async (item: { c: Candidate; info: Promise<ObjectRecord | null> }): Promise<ListEntry | null> => {
    if (item.c.dir) return { key: item.c.key, prefix: true };
    const record = await item.info;
    return record === null ? null : { key: item.c.key, record };
  };
  for await (const c of walk(set, bucket, startDir, prefix, startAfter, slash)) {
    ahead.push({ c, info: lookup(c) });
    if (ahead.length >= 16) {
      const e = await emit(ahead.shift()!);
      if (e !== null) yield e;
    }
  }
  while (ahead.length > 0) {
    const e = await emit(ahead.shift()!);
    if (e !== null) yield e;
  }
}

/** True when `bucket` holds any key, whatever its versions (a bucket of delete markers is not empty). */
export async function hasAnyKey(sets: readonly ErasureSet[], bucket: string): Promise<boolean> {
  for await (const _entry of mergeSets(sets, bucket, '', '', false)) return true;
  return false;
}

/** Per-set listings (each in key order) merged into one stream in key order. */
export async function* mergeSets(
  sets: readonly ErasureSet[], bucket: string, prefix: string, startAfter: string, slash: boolean,
): AsyncGenerator<ListEntry> {
  const iters = sets.map((s) => listSet(s, bucket, prefix, startAfter, slash));
  try {
    const heads: (ListEntry | undefined)[] = await Promise.all(iters.map(async (it) => (await it.next()).value ?? undefined));
    for (;;) {
      let min = -1;
      for (let i = 0; i < heads.length; i++) {
        const h = heads[i];
        if (h !== undefined && (min < 0 || compareUtf8(h.key, heads[min]!.key) < 0)) min = i;
      }
      if (min < 0) return;
      // A key is in one set of a pool, but two pools can both hold it after a race of two first writes from
      // different nodes: the newest record wins (as reads pick it), the older copy is skipped.
      let entry = heads[min]!;
      for (let i = 0; i < heads.length; i++) {
        const h = heads[i];
        if (h === undefined || h.key !== entry.key || i === min) continue;
        if ('record' in h && (!('record' in entry) || newestModTime(h.record) > newestModTime(entry.record))) entry = h;
        heads[i] = (await iters[i]!.next()).value ?? undefined;
      }
      heads[min] = (await iters[min]!.next()).value ?? undefined;
      yield entry;
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
  for await (const entry of mergeSets(sets, bucket, prefix, startAfter, slash)) {
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
      break;
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
  if (!result.isTruncated) delete result.nextMarker;
  return result;
}
