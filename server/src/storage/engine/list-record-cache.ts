import { isDeleteMarker } from '../format/index.js';
import type { ObjectRecord } from '../format/index.js';

/**
 * The records a listing read, kept so that the next listing of the same keys does not read and decode them again
 * (issue 9: LIST of 10,000 keys). Every use is confirmed by the drives.
 *
 * Each drive's answer for a key is kept with the stamp the drive gave it (Drive.readChildren; for a local drive,
 * its change log's position taken before the read: drive/change-log.ts). The next listing passes the stamps back; a
 * drive that recorded no write to the key since answers `same` without opening, reading or sending the metadata,
 * and the record decoded last time is used. A write to the key on that drive — by this node or, in a cluster, by
 * any node through the drive's owner — makes the drive send the metadata again; a change made by hand under a
 * running server is seen once the stamp has aged out (STAMP_MAX_AGE_MS).
 *
 * Memory is bounded: at most {@link MAX_ENTRIES} keys over all sets (about the least recently used dropped first),
 * records kept without inline data. This is a cache of what was listed recently, not the object index (which never lives
 * on the heap: the drives are the index).
 */

/** What one drive answered for a key, as kept. */
export interface DriveAnswer {
  stamp: string;
  /** Write id of the drive's record; null when it had none. */
  writeId: string | null;
  /** Whether the key's directory held deeper keys. */
  children: boolean;
}

/** One key's cached state: per drive slot of its set, the answer last given with a stamp. */
export interface CachedKey {
  answers: (DriveAnswer | undefined)[];
  /** The decoded record of `record.writeId` (inline data dropped), or null when none was agreed. */
  record: ObjectRecord | null;
}

/** Keys kept over all sets: ~1 KiB each for a small object's record, so at most ~32 MiB of heap. */
export const MAX_ENTRIES = 32_768;

/** A record without inline shard data (listings never read object data, and inline shards may be 128 KiB). */
export function withoutInlineData(record: ObjectRecord): ObjectRecord {
  if (record.versions.every((v) => isDeleteMarker(v) || v.inline === null)) return record;
  return { ...record, versions: record.versions.map((v) => (isDeleteMarker(v) || v.inline === null ? v : { ...v, inline: null })) };
}

/** The cache of one process: keys of every set, by set, bucket and key. */
export class ListRecordCache {
  readonly #max: number;
  readonly #entries = new Map<string, CachedKey>();
  /** Keys read since they were stored or last spared by eviction. */
  readonly #used = new Set<string>();
  readonly #setIds = new WeakMap<object, number>();
  #nextSetId = 0;

  constructor(max = MAX_ENTRIES) {
    this.#max = max;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The cache id of `key` in `bucket` of `set`. */
  id(set: object, bucket: string, key: string): string {
    let n = this.#setIds.get(set);
    if (n === undefined) this.#setIds.set(set, (n = this.#nextSetId++));
    return `${n}\n${bucket}\n${key}`;
  }

  /** The key's entry (marked used), or undefined. */
  get(id: string): CachedKey | undefined {
    const e = this.#entries.get(id);
    // Marked, not moved: a listing reads every key of a page, and re-inserting each was ~4 % of a warm LIST.
    if (e !== undefined) this.#used.add(id);
    return e;
  }

  /**
   * Stores `entry` as the key's state. Beyond the bound, keys go oldest first, except that one used since it was
   * stored or last spared is moved to the end instead, once (second chance: least recently used, approximately).
   */
  set(id: string, entry: CachedKey): void {
    this.#entries.delete(id);
    this.#used.delete(id);
    this.#entries.set(id, entry);
    while (this.#entries.size > this.#max) {
      const [k, e] = this.#entries.entries().next().value as [string, CachedKey];
      this.#entries.delete(k);
      if (this.#used.delete(k)) this.#entries.set(k, e);
    }
  }

  delete(id: string): void {
    this.#entries.delete(id);
    this.#used.delete(id);
  }
}

/** The process's cache, shared by every set (one bound for all). */
export const listRecordCache = new ListRecordCache();
