import { STAMP_MAX_AGE_MS } from './change-log.js';

/**
 * Metadata records a GET read or a drive committed lately, kept so that the next GET of the same key on the same drive needs no I/O
 * (issue 9: 4 KiB GET at 16 in flight ≥ 8,000/s). A GET's worker round trip to read `xl.meta` cost more of the event
 * loop than the rest of the request: a scratch build answering repeat reads from memory did 11,300–12,250 GETs/s
 * against 7,000–7,900, at 0.083–0.094 ms of server CPU per GET against 0.139–0.167 (docs/performance.md, fifteenth
 * session).
 *
 * An entry is the bytes a read returned and the drive's change-log stamp taken BEFORE that read (change-log.ts).
 * It answers only while the drive has recorded no change of the key since the stamp, so every change made through
 * the server — a PUT, a delete, a heal, on this node or from a peer through the storage RPC, a new format — makes
 * the next read go to the disk. A commit leaves the record it wrote, stamped right after its own change was recorded,
 * unless another change of the key was recorded while it ran (LocalDrive.renameData: which reached the disk last is
 * then not known). What the change log cannot see (files changed by hand, or bits flipped on the disk)
 * shows within change-log.ts's STAMP_MAX_AGE_MS (a minute): an older stamp is never honoured. Only the GET/HEAD fast
 * path reads through the cache; PUT's read of the current record, heal, the scanner and listings read the disk every
 * time.
 *
 * Memory is bounded: at most {@link CACHE_BYTES} of records over all drives, in one ring buffer (outside the V8
 * heap), the oldest dropped first, and no record larger than {@link MAX_ENTRY_BYTES}; ~27,000 small objects' records
 * at most, so this is a cache of what was read or written recently, not the object index. A commit's record is always
 * kept; a read's only when it drops nothing recent, or at its key's second miss ({@link MetaCache.offerRead}), so a
 * reader going over more keys than the ring holds still hits most of them.
 */

/** Bytes of records kept over all drives of the process. */
export const CACHE_BYTES = 64 * 1024 * 1024;
/** Larger records (objects with many versions or large inline shards) are read from the disk every time. */
export const MAX_ENTRY_BYTES = 64 * 1024;
/** Ids a read's record was refused for, remembered until this many have gathered (then forgotten together). */
export const DOORKEEPER_IDS = 16_384;

interface Entry {
  /** Where the record's bytes are in the ring. */
  off: number;
  len: number;
  stamp: string;
}

/**
 * The process's cache of metadata records, by drive and key. The records are copied into one ring buffer, in the
 * order they were kept; a new record overwrites the oldest ones (first in, first out). A scratch build that gave each
 * record its own allocation made first reads ~10 % slower than without a cache (one malloc and V8's external-memory
 * accounting per record); the ring costs a copy, and its memory is the budget exactly (its pages become resident as
 * the ring first fills).
 */
export class MetaCache {
  readonly #max: number;
  #ring: Buffer | null = null;
  /** Where the next record goes. */
  #head = 0;
  readonly #entries = new Map<string, Entry>();
  /**
   * Every record in the ring, oldest first (from `#first` on): ids with their offsets, so that entries replaced or
   * deleted since are recognised and skipped. Kept apart from the map: moving a key to a map's end costs V8 time
   * that grows with the map's size (change-log.ts).
   */
  #order: { id: string; off: number; at: number }[] = [];
  /** See {@link offerRead}. */
  readonly #refused = new Set<string>();
  #first = 0;
  #used = 0;

  constructor(maxBytes = CACHE_BYTES) {
    this.#max = maxBytes;
  }

  /** The entry of `id`: its bytes are a view into the ring, valid until the next `set` (copy them first). */
  get(id: string): { bytes: Buffer; stamp: string } | undefined {
    const e = this.#entries.get(id);
    if (e === undefined) return undefined;
    return { bytes: this.#ring!.subarray(e.off, e.off + e.len), stamp: e.stamp };
  }

  /** Keeps a copy of `bytes` as read under `stamp` (replacing an older entry of `id`). */
  set(id: string, bytes: Uint8Array, stamp: string): void {
    this.delete(id);
    const len = bytes.length;
    if (len > MAX_ENTRY_BYTES || len > this.#max || len === 0) return;
    this.#ring ??= Buffer.allocUnsafeSlow(this.#max);
    const room = this.#room(len);
    for (let i = 0; i < room.dropped; i++) this.#evictFront();
    this.#head = room.at;
    const end = this.#head + len;
    this.#ring.set(bytes, this.#head);
    this.#entries.set(id, { off: this.#head, len, stamp });
    this.#order.push({ id, off: this.#head, at: Date.now() });
    this.#used += len;
    this.#head = end;
    if (this.#first > 4096 && this.#first * 2 > this.#order.length) {
      this.#order = this.#order.slice(this.#first);
      this.#first = 0;
    }
  }

  /**
   * Keeps a record a GET read from the disk, as {@link set} does, unless making room for it would drop a record kept
   * less than a minute ago (one that can still answer: change-log.ts's STAMP_MAX_AGE_MS) and the id's read was not
   * refused before. Why: the ring drops its oldest records first, and a reader going over more keys than the ring
   * holds, in the order they were written, asks next for the very records each kept read pushes out: every read
   * missed (4 KiB GETs of the bench's 14,000-15,000 objects just written ran at 7,100-7,300/s instead of 10,800-11,500
   * whenever the PUTs had written a few per cent more records than the ring holds; docs/performance.md,
   * thirty-fourth session). A refused id is remembered (up to {@link DOORKEEPER_IDS}), so a key read again soon is
   * kept at its second miss: a few hot keys among many writes are still answered from memory.
   */
  offerRead(id: string, bytes: Uint8Array, stamp: string): void {
    this.delete(id); // refused or not, the old entry is not what the disk holds now
    if (this.#refused.delete(id) || !this.#dropsRecent(bytes.length)) {
      this.set(id, bytes, stamp);
      return;
    }
    if (this.#refused.size >= DOORKEEPER_IDS) this.#refused.clear();
    this.#refused.add(id);
  }

  delete(id: string): void {
    const e = this.#entries.get(id);
    if (e === undefined) return;
    this.#entries.delete(id);
    this.#used -= e.len;
  }

  /** Forgets every entry: the next reads go to the disk. */
  clear(): void {
    this.#entries.clear();
    this.#refused.clear();
    this.#order = [];
    this.#first = 0;
    this.#head = 0;
    this.#used = 0;
  }

  /** Bytes of the records kept, and entries (tests). */
  get size(): { bytes: number; entries: number } {
    return { bytes: this.#used, entries: this.#entries.size };
  }

  /**
   * Where a record of `len` bytes would go, and how many of the oldest records (from `#first` on) it would drop: when
   * the ring's tail is too short, the records in it (the oldest) go and the head wraps to 0; then those the new
   * record overlaps.
   */
  #room(len: number): { at: number; dropped: number } {
    let at = this.#head;
    let i = this.#first;
    if (at + len > this.#max) {
      while (i < this.#order.length && this.#order[i]!.off >= at) i++;
      at = 0;
    }
    while (i < this.#order.length && this.#order[i]!.off >= at && this.#order[i]!.off < at + len) i++;
    return { at, dropped: i - this.#first };
  }

  /** True when keeping `len` bytes now would drop a live record kept within STAMP_MAX_AGE_MS (as {@link set} would). */
  #dropsRecent(len: number): boolean {
    if (len > MAX_ENTRY_BYTES || len > this.#max || len === 0) return false;
    const recent = Date.now() - STAMP_MAX_AGE_MS;
    const { dropped } = this.#room(len);
    for (let i = this.#first; i < this.#first + dropped; i++) {
      const f = this.#order[i]!;
      if (f.at > recent && this.#entries.get(f.id)?.off === f.off) return true;
    }
    return false;
  }

  /** Drops the oldest record in the ring (its entry, unless the id was kept again elsewhere since). */
  #evictFront(): void {
    const f = this.#order[this.#first++]!;
    if (this.#entries.get(f.id)?.off === f.off) this.delete(f.id);
  }
}

/** The cache every LocalDrive of the process shares. */
export const metaCache = new MetaCache();

/**
 * Makes the next GETs read every record from the disk again. For changes the change log cannot see, made on purpose:
 * tests that damage files by hand, which the cache would otherwise hide for up to a minute.
 */
export function forgetCachedMeta(): void {
  metaCache.clear();
}

let waiting: (() => void)[] = [];

/**
 * Resolves in the event loop's next check phase, together with every other answer from memory of this turn. An
 * answer given in the same turn leaves inside the socket read that brought the request, one response per wake-up of
 * the client: answering reads synchronously made 4 KiB GETs slower (3,395 / 4,256 against 7,399 / 8,647 GET/s), and
 * answering a turn's reads together in the next check phase faster (docs/performance.md, thirteenth session).
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (waiting.length === 1) {
      setImmediate(() => {
        const now = waiting;
        waiting = [];
        for (const w of now) w();
      });
    }
  });
}
