/**
 * Metadata records a GET read lately, kept so that the next GET of the same key on the same drive needs no I/O
 * (issue 9: 4 KiB GET at 16 in flight ≥ 8,000/s). A GET's worker round trip to read `xl.meta` cost more of the event
 * loop than the rest of the request: a scratch build answering repeat reads from memory did 11,300–12,250 GETs/s
 * against 7,000–7,900, at 0.083–0.094 ms of server CPU per GET against 0.139–0.167 (docs/performance.md, fifteenth
 * session).
 *
 * An entry is the bytes a read returned and the drive's change-log stamp taken BEFORE that read (change-log.ts).
 * It answers only while the drive has recorded no change of the key since the stamp, so every change made through
 * the server — a PUT, a delete, a heal, on this node or from a peer through the storage RPC, a new format — makes
 * the next read go to the disk. What the change log cannot see (files changed by hand, or bits flipped on the disk)
 * shows within change-log.ts's STAMP_MAX_AGE_MS (a minute): an older stamp is never honoured. Only the GET/HEAD fast path reads through
 * the cache; PUT's read of the current record, heal, the scanner and listings read the disk every time.
 *
 * Memory is bounded: at most {@link CACHE_BYTES} of records over all drives, the oldest entries dropped first, and no
 * record larger than {@link MAX_ENTRY_BYTES}. Records live in Buffers (outside the V8 heap) and number ~25,000 at most
 * for small objects' records, so this is a cache of what was read recently, not the object index.
 */
/** Bytes of records kept over all drives of the process. */
export const CACHE_BYTES = 64 * 1024 * 1024;
/** Larger records (objects with many versions or large inline shards) are read from the disk every time. */
export const MAX_ENTRY_BYTES = 64 * 1024;
/** What an entry costs besides its bytes (key string, entry object, Map slot), for the budget. */
const ENTRY_OVERHEAD = 160;

interface Entry {
  bytes: Buffer;
  stamp: string;
}

/** The process's cache of metadata records, by drive and key. */
export class MetaCache {
  readonly #max: number;
  #used = 0;
  /** Insertion order is age order: the first entries are dropped first. */
  readonly #entries = new Map<string, Entry>();

  constructor(maxBytes = CACHE_BYTES) {
    this.#max = maxBytes;
  }

  /** The entry of `id` as kept (its stamp is the caller's to check), or undefined. */
  get(id: string): Entry | undefined {
    return this.#entries.get(id);
  }

  /** Keeps a copy of `bytes` as read under `stamp` (replacing an older entry of `id`). */
  set(id: string, bytes: Uint8Array, stamp: string): void {
    this.delete(id);
    if (bytes.length > MAX_ENTRY_BYTES || this.#max === 0) return;
    // Its own memory, not a slice of a shared pool slab: an evicted entry then frees what the budget counted.
    const own = Buffer.allocUnsafeSlow(bytes.length);
    own.set(bytes);
    this.#entries.set(id, { bytes: own, stamp });
    this.#used += bytes.length + ENTRY_OVERHEAD;
    for (const [old, e] of this.#entries) {
      if (this.#used <= this.#max) break;
      this.#entries.delete(old);
      this.#used -= e.bytes.length + ENTRY_OVERHEAD;
    }
  }

  delete(id: string): void {
    const e = this.#entries.get(id);
    if (e === undefined) return;
    this.#entries.delete(id);
    this.#used -= e.bytes.length + ENTRY_OVERHEAD;
  }

  /** Forgets every entry: the next reads go to the disk. */
  clear(): void {
    this.#entries.clear();
    this.#used = 0;
  }

  /** Bytes accounted (records and overhead), and entries (tests). */
  get size(): { bytes: number; entries: number } {
    return { bytes: this.#used, entries: this.#entries.size };
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
