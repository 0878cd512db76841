import { decodeObjectRecord } from '../format/index.js';
import type { ObjectRecord } from '../format/index.js';

/**
 * Decoded metadata records of the GET/HEAD fast path, by drive and key (issue 9). A GET decodes its data drives'
 * records — CRC32C and msgpack, ~6 % of a 4 KiB GET's event loop — and the next GET of the key got the same bytes
 * (drive/meta-cache.ts answers repeat reads from memory). An entry answers only when the bytes read now equal the
 * bytes it was decoded from, so it can never be staler than the read itself; what proves the bytes current is the
 * drive's (meta-cache's change-log stamp, or the disk).
 *
 * The records handed out are shared between requests: the read path must not change them (toObjectInfo copies what
 * it hands on). They are not frozen in service — 4 KiB GETs at 16 in flight measured 0.29–0.32 ms of server CPU per
 * GET with frozen records (V8 reads frozen arrays and spreads frozen maps on slower paths) against 0.25–0.27 unfrozen
 * and 0.27–0.29 without this memo — but tests freeze them (`freeze`), so that code changing one throws there.
 * Memory is bounded by the bytes kept (the decoded record's inline data is a view of them, msgpackr's default), the
 * oldest entry dropped first.
 */
export class RecordMemo {
  readonly #entries = new Map<string, { bytes: Buffer; record: ObjectRecord }>();
  readonly #maxBytes: number;
  #bytes = 0;
  /** Hand out frozen records (tests). */
  freeze = false;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** The record `bytes` hold, decoded now or before; throws as decodeObjectRecord does. */
  decode(id: string, bytes: Buffer): ObjectRecord {
    const known = this.#entries.get(id);
    if (known !== undefined && known.bytes.equals(bytes)) return known.record;
    // A record larger than a sixteenth of the budget (many versions) would push out many small ones.
    if (bytes.length > this.#maxBytes / 16) return decodeObjectRecord(bytes);
    // Kept in an allocation of its own: a small Buffer is often a slice of Node's shared 8 KiB pool, which the
    // entry would otherwise hold whole, and the budget would not count.
    const own = Buffer.allocUnsafeSlow(bytes.length);
    bytes.copy(own);
    const record = this.freeze ? deepFreeze(decodeObjectRecord(own)) : decodeObjectRecord(own);
    if (known !== undefined) this.#drop(id, known.bytes);
    while (this.#bytes + own.length > this.#maxBytes) {
      const [oldest, entry] = this.#entries.entries().next().value!;
      this.#drop(oldest, entry.bytes);
    }
    this.#entries.set(id, { bytes: own, record });
    this.#bytes += own.length;
    return record;
  }

  /** Bytes and entries kept (tests). */
  get size(): { bytes: number; entries: number } {
    return { bytes: this.#bytes, entries: this.#entries.size };
  }

  #drop(id: string, bytes: Buffer): void {
    this.#entries.delete(id);
    this.#bytes -= bytes.length;
  }
}

/** Freezes plain objects and arrays all the way down; byte arrays cannot be frozen and are left as they are. */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value) || Object.isFrozen(value)) return value;
  for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}
