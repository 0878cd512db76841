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

/** One key's place in the cache: its entry, and whether it was read since it was stored or last spared. */
interface Slot {
  readonly dir: KeyDir;
  readonly name: string;
  entry: CachedKey;
  used: boolean;
  /** False once the key was dropped or stored again (a newer slot holds it): the eviction queue skips it. */
  live: boolean;
}

/**
 * The cached keys of one key directory (of a bucket of a set), by child name. A listing batch looks its keys up by
 * the names it already holds: no id is built and hashed per key (a warm LIST of 10,000 keys spent ~7 % of its event
 * loop building `set, bucket, key` ids and looking them up in one map; docs/performance.md, twenty-ninth session).
 */
export class KeyDir {
  readonly id: string;
  readonly keys = new Map<string, Slot>();
  /**
   * Whether the cache holds this handle: from its first stored key until it empties again. A handle not (or no longer)
   * held finds the one the cache holds for its id, if any (two batches of one directory may each have made one).
   */
  attached = false;

  constructor(id: string) {
    this.id = id;
  }
}

/** The cache of one process: keys of every set, by set, bucket and key directory, then by name. */
export class ListRecordCache {
  readonly #max: number;
  readonly #dirs = new Map<string, KeyDir>();
  /** Slots in the order they were stored (or spared); dead ones are skipped, and dropped when they pile up. */
  #queue: Slot[] = [];
  #head = 0;
  #size = 0;
  readonly #setIds = new WeakMap<object, number>();
  #nextSetId = 0;

  constructor(max = MAX_ENTRIES) {
    this.#max = max;
  }

  get size(): number {
    return this.#size;
  }

  /** The cache's directory `dirKey` in `bucket` of `set` (held from its first stored key until it empties). */
  dir(set: object, bucket: string, dirKey: string): KeyDir {
    let n = this.#setIds.get(set);
    if (n === undefined) this.#setIds.set(set, (n = this.#nextSetId++));
    const id = `${n}\n${bucket}\n${dirKey}`;
    return this.#dirs.get(id) ?? new KeyDir(id);
  }

  /** The entry of child `name` of `dir` (marked used), or undefined. */
  get(dir: KeyDir, name: string): CachedKey | undefined {
    const slot = this.#current(dir).keys.get(name);
    if (slot === undefined) return undefined;
    // Marked, not moved: a listing reads every key of a page, and re-inserting each was ~4 % of a warm LIST.
    slot.used = true;
    return slot.entry;
  }

  /**
   * Stores `entry` as the key's state. Beyond the bound, keys go oldest first, except that one used since it was
   * stored or last spared is moved to the end instead, once (second chance: least recently used, approximately).
   */
  set(handle: KeyDir, name: string, entry: CachedKey): void {
    const dir = this.#current(handle);
    if (!dir.attached) {
      dir.attached = true;
      this.#dirs.set(dir.id, dir);
    }
    const old = dir.keys.get(name);
    if (old !== undefined) old.live = false;
    else this.#size++;
    const slot: Slot = { dir, name, entry, used: false, live: true };
    dir.keys.set(name, slot);
    this.#queue.push(slot);
    while (this.#size > this.#max && this.#head < this.#queue.length) {
      const s = this.#queue[this.#head++]!;
      if (!s.live) continue;
      if (s.used) {
        s.used = false;
        this.#queue.push(s);
        continue;
      }
      this.#drop(s);
    }
    // Keys stored again leave dead slots anywhere in the queue: it is rebuilt once they outnumber the live ones.
    if (this.#queue.length - this.#head > 2 * this.#size + 1024 || (this.#head > 1024 && this.#head > this.#queue.length / 2)) this.#compact();
  }

  delete(dir: KeyDir, name: string): void {
    const slot = this.#current(dir).keys.get(name);
    if (slot !== undefined) this.#drop(slot);
  }

  #drop(slot: Slot): void {
    slot.live = false;
    slot.dir.keys.delete(slot.name);
    this.#size--;
    if (slot.dir.keys.size === 0) {
      slot.dir.attached = false;
      this.#dirs.delete(slot.dir.id);
    }
  }

  /**
   * The cache's handle of `dir`'s directory: `dir` itself while attached; once it was dropped (it emptied, so it holds
   * no key), the one made since for the same id if any, else `dir` (attached again by the next store).
   */
  #current(dir: KeyDir): KeyDir {
    return dir.attached ? dir : this.#dirs.get(dir.id) ?? dir;
  }

  /** Drops the queue's dead slots and those already passed. */
  #compact(): void {
    this.#queue = this.#queue.slice(this.#head).filter((s) => s.live);
    this.#head = 0;
  }
}

/** The process's cache, shared by every set (one bound for all). */
export const listRecordCache = new ListRecordCache();
