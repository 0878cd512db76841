import { isDeleteMarker } from '../format/index.js';
import type { ObjectRecord } from '../format/index.js';
import type { ErasureSet } from './erasure-set.js';
import { toObjectInfo } from './erasure-set.js';
import { commonPrefixOf, mergeSets } from './listing.js';
import type { ListVersionsOptions, ListVersionsResult, ObjectVersionInfo } from './object-layer.js';
import { compareUtf8 } from './object-name.js';

/**
 * ListObjectVersions (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectVersions.html): every version
 * and delete marker, keys in UTF-8 order and each key's versions newest first, rolled up at the delimiter. Paging
 * resumes after (key-marker, version-id-marker): the remaining versions of key-marker, then later keys; with a key
 * marker alone, after every version of that key. Versions and common prefixes both count toward max-keys.
 */

function versionsOf(bucket: string, record: ObjectRecord): ObjectVersionInfo[] {
  return record.versions.map((v, j) => (isDeleteMarker(v)
    ? { key: record.key, versionId: v.versionId, isLatest: j === 0, lastModified: new Date(v.modTime), deleteMarker: true }
    : { key: record.key, versionId: v.versionId, isLatest: j === 0, lastModified: new Date(v.modTime), deleteMarker: false, info: toObjectInfo(bucket, v) }));
}

/** One ListObjectVersions page over all sets; `recordOf` reads the record of the key marker (null when it has none). */
export async function listObjectVersions(
  sets: readonly ErasureSet[], recordOf: (key: string) => Promise<ObjectRecord | null>, bucket: string, opts: ListVersionsOptions,
): Promise<ListVersionsResult> {
  const { prefix, delimiter, keyMarker, versionIdMarker, maxKeys } = opts;
  const result: ListVersionsResult = { versions: [], commonPrefixes: [], isTruncated: false };
  if (maxKeys <= 0) return result;
  let count = 0;
  let lastPrefix: string | undefined;
  // Returns false once the page is full (and marks it truncated when more would follow).
  const add = (v: ObjectVersionInfo): boolean => {
    if (count === maxKeys) {
      result.isTruncated = true;
      return false;
    }
    count++;
    result.versions.push(v);
    result.nextKeyMarker = v.key;
    result.nextVersionIdMarker = v.versionId;
    return true;
  };
  if (versionIdMarker !== '' && keyMarker.startsWith(prefix) && commonPrefixOfKey(keyMarker, prefix, delimiter) === undefined) {
    const record = await recordOf(keyMarker);
    const all = record === null ? [] : versionsOf(bucket, record);
    const at = all.findIndex((v) => v.versionId === versionIdMarker);
    for (const v of at < 0 ? [] : all.slice(at + 1)) if (!add(v)) return finish(result);
  }
  pages: for await (const chunk of mergeSets(sets, bucket, prefix, keyMarker, delimiter === '/')) {
    for (const entry of chunk) {
      const cp = commonPrefixOf(entry, prefix, delimiter);
      if (cp !== undefined) {
        if (cp === lastPrefix || compareUtf8(cp, keyMarker) <= 0) continue;
        if (count === maxKeys) {
          result.isTruncated = true;
          break pages;
        }
        count++;
        lastPrefix = cp;
        result.commonPrefixes.push(cp);
        result.nextKeyMarker = cp;
        delete result.nextVersionIdMarker;
        continue;
      }
      for (const v of versionsOf(bucket, (entry as { record: ObjectRecord }).record)) if (!add(v)) break pages;
    }
  }
  return finish(result);
}

function commonPrefixOfKey(key: string, prefix: string, delimiter: string): string | undefined {
  if (delimiter === '') return undefined;
  const at = key.indexOf(delimiter, prefix.length);
  return at >= 0 ? key.slice(0, at + delimiter.length) : undefined;
}

function finish(result: ListVersionsResult): ListVersionsResult {
  if (!result.isTruncated) {
    delete result.nextKeyMarker;
    delete result.nextVersionIdMarker;
  }
  return result;
}
