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

/** One listing entry: an object or a common prefix. */
export type ListEntry = { key: string; info: ObjectInfo } | { key: string; prefix: true };

interface Candidate {
  key: string;
  dir: boolean;
}

/** Union of a key directory's child segments over the set's drives. */
async function listDirUnion(set: ErasureSet, bucket: string, dirKey: string): Promise<string[]> {
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
  const ahead: { c: Candidate; info: Promise<ObjectInfo | null> }[] = [];
  const lookup = (c: Candidate): Promise<ObjectInfo | null> => {
    if (c.dir) return Promise.resolve(null);
    const p = set.readListMeta(bucket, c.key).then((meta) => (meta === null ? null : toObjectInfo(bucket, meta)));
    p.catch(() => undefined);
    return p;
  };
  const emit = async (item: { c: Candidate; info: Promise<ObjectInfo | null> }): Promise<ListEntry | null> => {
    if (item.c.dir) return { key: item.c.key, prefix: true };
    const info = await item.info;
    return info === null ? null : { key: item.c.key, info };
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

/** Merges per-set listings (each in key order) into one ListObjects page. */
export async function listObjects(sets: readonly ErasureSet[], bucket: string, opts: ListObjectsOptions): Promise<ListObjectsResult> {
  const { prefix, delimiter, maxKeys } = opts;
  const startAfter = opts.startAfter;
  const slash = delimiter === '/';
  const result: ListObjectsResult = { objects: [], commonPrefixes: [], isTruncated: false };
  if (maxKeys <= 0) return result;
  const iters = sets.map((s) => listSet(s, bucket, prefix, startAfter, slash));
  const heads: (ListEntry | undefined)[] = await Promise.all(iters.map(async (it) => (await it.next()).value ?? undefined));
  let lastPrefix: string | undefined;
  let count = 0;
  try {
    for (;;) {
      let min = -1;
      for (let i = 0; i < heads.length; i++) {
        const h = heads[i];
        if (h !== undefined && (min < 0 || compareUtf8(h.key, heads[min]!.key) < 0)) min = i;
      }
      if (min < 0) break;
      const entry = heads[min]!;
      heads[min] = (await iters[min]!.next()).value ?? undefined;
      let cp: string | undefined;
      if ('prefix' in entry) cp = entry.key;
      else if (delimiter !== '') {
        const at = entry.key.indexOf(delimiter, prefix.length);
        if (at >= 0) cp = entry.key.slice(0, at + delimiter.length);
      }
      if (cp !== undefined) {
        if (cp === lastPrefix || compareUtf8(cp, startAfter) <= 0) continue;
        lastPrefix = cp;
      }
      if (count === maxKeys) {
        result.isTruncated = true;
        break;
      }
      count++;
      if (cp !== undefined) {
        result.commonPrefixes.push(cp);
        result.nextMarker = cp;
      } else {
        result.objects.push((entry as { info: ObjectInfo }).info);
        result.nextMarker = entry.key;
      }
    }
  } finally {
    await Promise.all(iters.map((it) => it.return(undefined)));
  }
  if (!result.isTruncated) delete result.nextMarker;
  return result;
}
