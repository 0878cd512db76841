import type { RecordStore } from './record-store.js';
import { compareIds, recordId } from './record-store.js';

/**
 * What a drive's record store (record-store.ts) adds to a listing of one key directory: records have no directory of
 * their own, so the listing calls (local-listing.ts) merge the store's child segments with the directory's.
 */

/** A child segment of a key directory as the store holds it. */
export interface StoreChild {
  /** The record of the key `dirKey + name`, or null when the store holds none (only deeper keys). */
  meta: Buffer | null;
  /** True when the store holds keys below `dirKey + name + "/"`. */
  children: boolean;
}

/** Ids of `volume` whose keys start with `dirKey` ("" or ending in "/") are in [prefix, upperOf(prefix)). */
function prefixOf(volume: string, dirKey: string): string {
  return recordId(volume, dirKey);
}

/** The least string above every id that starts with `prefix`, which ends in "\0" or "/" (one code unit below "0"). */
function upperOf(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/**
 * The store's child segments of `dirKey` in `volume`; with `names`, at least those of them it holds (one range read
 * from the least to the greatest, in UTF-8 byte order). A deeper subtree is skipped with one seek, not read.
 */
export async function storeChildren(store: RecordStore, volume: string, dirKey: string, names?: readonly string[]): Promise<Map<string, StoreChild>> {
  const prefix = prefixOf(volume, dirKey);
  let lower = prefix;
  let upper = upperOf(prefix);
  if (names !== undefined) {
    if (names.length === 0) return new Map();
    const sorted = [...names].sort(compareIds);
    lower = prefix + sorted[0]!;
    // "name/" sorts below "name0": the greatest name's deeper keys are in range too.
    upper = `${prefix}${sorted[sorted.length - 1]!}0`;
  }
  const out = new Map<string, StoreChild>();
  const cursor = store.cursor(lower, upper);
  try {
    for (let e = await cursor.next(); e !== undefined; e = await cursor.next()) {
      const rest = e.id.slice(prefix.length);
      const slash = rest.indexOf('/');
      const name = slash < 0 ? rest : rest.slice(0, slash);
      let child = out.get(name);
      if (child === undefined) out.set(name, (child = { meta: null, children: false }));
      if (slash < 0) {
        child.meta = e.value;
      } else {
        child.children = true;
        cursor.seek(`${prefix}${name}0`);
      }
    }
  } finally {
    await cursor.close();
  }
  return out;
}
