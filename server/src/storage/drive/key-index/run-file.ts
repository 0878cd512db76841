import { crc32c } from '@node-rs/crc32';

/**
 * A sorted run of a drive's key index: where each key's latest record lies in the drive's value log, or that the key
 * was deleted (docs/performance.md, "The index worker: design"). Written once, never changed; merged into larger runs.
 * The shape is `npm run bench:index -- --store runs`'s (twenty-fourth session: ~5 µs per record), which kept its cost
 * down by never turning an entry into objects: ids are compared in place, entries copied as bytes, and the bloom filter
 * of a merged run is rebuilt from the hashes its entries carry.
 *
 * File: blocks of entries (~BLOCK_BYTES each, an entry never split), then a footer, then a fixed trailer.
 * Entry: u16 id length, u8 kind, u32 h1, u32 h2, id bytes, u32 segment, u32 offset, u32 length (little-endian).
 * Footer: per block u32 offset, u32 length, u32 CRC32C, u16 first-id length, first id; then u32 bloom bits, the bloom's
 * bytes. Trailer: u32 footer offset, u32 footer length, u32 footer CRC32C, u32 entry count, u32 block count, u32 RUN_MAGIC.
 *
 * An id is the UTF-8 bytes of `volume \0 key`; read as latin1 it becomes a string whose order is the bytes' order,
 * which is the order S3 lists keys in (ListObjectsV2: "in UTF-8 binary order").
 *
 * Offsets are u32: a run holds at most 4 GiB of entries (~60 million keys of ~70 bytes); merges that would pass it are
 * not made (drive-index.ts). A merge reads its inputs and writes its output a block at a time (EntryCursor, the
 * builder's sink): its memory is a block per run plus the output's block index and bloom filter, whatever the runs' size.
 */

export const KIND_VALUE = 1;
export const KIND_DELETED = 2;

/** Where an entry's record is in the value log (value-log.ts). */
export interface Place {
  segment: number;
  offset: number;
  length: number;
}

/** An entry as looked up: a place, or a deletion. */
export interface Found {
  kind: typeof KIND_VALUE | typeof KIND_DELETED;
  place: Place;
}

export const BLOCK_BYTES = 4096;
const ENTRY_FIXED = 2 + 1 + 4 + 4 + 4 + 4 + 4;
const ID_AT = 11;
const BITS_PER_KEY = 10;
const PROBES = 7;
const TRAILER_BYTES = 24;
const RUN_MAGIC = 0x4e525653;
/** Largest id: a bucket name (63) + \0 + an S3 key (1,024 bytes). */
export const MAX_ID_BYTES = 2048;

/** The two bloom hashes of an id (double hashing: probe i is h1 + i·h2). */
export function idHashes(id: Uint8Array): [number, number] {
  return [crc32c(id) >>> 0, (crc32c(id, 0x9e3779b9) | 1) >>> 0];
}

/** The entry's total size for an id of `idBytes` bytes. */
export function entrySize(idBytes: number): number {
  return ENTRY_FIXED + idBytes;
}

/** Writes one entry into `out` at `at`; returns the offset after it. The id must already be at out[at + ID_AT...]. */
function writeEntryFields(out: Buffer, at: number, idLen: number, kind: number, h1: number, h2: number, place: Place): number {
  out.writeUInt16LE(idLen, at);
  out[at + 2] = kind;
  out.writeUInt32LE(h1, at + 3);
  out.writeUInt32LE(h2, at + 7);
  const p = at + ID_AT + idLen;
  out.writeUInt32LE(place.segment, p);
  out.writeUInt32LE(place.offset, p + 4);
  out.writeUInt32LE(place.length, p + 8);
  return p + 12;
}

/** Builds a run from entries given in increasing id order (each id once). */
export class RunBuilder {
  readonly #parts: Buffer[] = [];
  /** Where finished blocks go at once (a merge writes its run as it goes); kept in #parts when absent. */
  readonly #sink: ((block: Buffer) => void) | undefined;
  #block = Buffer.allocUnsafe(BLOCK_BYTES + entrySize(MAX_ID_BYTES));
  #used = 0;
  #size = 0;
  #count = 0;
  readonly #index: { offset: number; length: number; crc: number; first: Buffer }[] = [];
  readonly #bloom: Uint32Array;
  readonly #bits: number;

  /**
   * `expected`: how many entries will be added (sizes the bloom filter). `sink`, when given, receives each block as
   * it is finished (synchronously: its bytes are reused after the call), so that a merge's memory stays a block.
   */
  constructor(expected: number, sink?: (block: Buffer) => void) {
    this.#sink = sink;
    this.#bits = Math.max(64, expected * BITS_PER_KEY);
    this.#bloom = new Uint32Array(Math.ceil(this.#bits / 32));
  }

  /** Adds an entry from its parts (a flush of the table). `id` is the id's bytes. */
  add(id: Uint8Array, kind: number, place: Place): void {
    if (id.length > MAX_ID_BYTES) throw new RangeError(`key index: id of ${id.length} bytes`);
    const [h1, h2] = idHashes(id);
    this.#room(entrySize(id.length));
    const at = this.#used;
    if (at === 0) this.#index.push({ offset: this.#size, length: 0, crc: 0, first: Buffer.from(id) });
    this.#block.set(id, at + ID_AT);
    this.#used = writeEntryFields(this.#block, at, id.length, kind, h1, h2, place);
    this.#addBloom(h1, h2);
  }

  /** Adds an entry copied as bytes from another run (a merge): `src[at, at + entry size)`. */
  addRaw(src: Buffer, at: number): void {
    const idLen = src.readUInt16LE(at);
    const size = entrySize(idLen);
    this.#room(size);
    if (this.#used === 0) this.#index.push({ offset: this.#size, length: 0, crc: 0, first: Buffer.from(src.subarray(at + ID_AT, at + ID_AT + idLen)) });
    src.copy(this.#block, this.#used, at, at + size);
    this.#used += size;
    this.#addBloom(src.readUInt32LE(at + 3), src.readUInt32LE(at + 7));
  }

  #room(size: number): void {
    if (this.#used > 0 && this.#used + size > BLOCK_BYTES) this.#cut();
  }

  #addBloom(h1: number, h2: number): void {
    this.#count++;
    for (let i = 0; i < PROBES; i++) {
      const bit = (h1 + i * h2) % this.#bits;
      this.#bloom[bit >>> 5]! |= 1 << (bit & 31);
    }
  }

  #cut(): void {
    if (this.#used === 0) return;
    const view = this.#block.subarray(0, this.#used);
    const last = this.#index[this.#index.length - 1]!;
    last.length = view.length;
    last.crc = crc32c(view) >>> 0;
    if (this.#sink !== undefined) this.#sink(view);
    else this.#parts.push(Buffer.from(view));
    this.#size += view.length;
    this.#used = 0;
  }

  get count(): number {
    return this.#count;
  }

  /** The run's bytes (blocks not given to the sink, footer, trailer), to be written as one file (after the sink's). */
  finish(): Buffer[] {
    this.#cut();
    let footerLen = 4 + this.#bloom.byteLength;
    for (const b of this.#index) footerLen += 14 + b.first.length;
    const footer = Buffer.allocUnsafe(footerLen);
    let at = 0;
    for (const b of this.#index) {
      at = footer.writeUInt32LE(b.offset, at);
      at = footer.writeUInt32LE(b.length, at);
      at = footer.writeUInt32LE(b.crc, at);
      at = footer.writeUInt16LE(b.first.length, at);
      at += b.first.copy(footer, at);
    }
    at = footer.writeUInt32LE(this.#bits, at);
    Buffer.from(this.#bloom.buffer, this.#bloom.byteOffset, this.#bloom.byteLength).copy(footer, at);
    const trailer = Buffer.allocUnsafe(TRAILER_BYTES);
    trailer.writeUInt32LE(this.#size, 0);
    trailer.writeUInt32LE(footer.length, 4);
    trailer.writeUInt32LE(crc32c(footer) >>> 0, 8);
    trailer.writeUInt32LE(this.#count, 12);
    trailer.writeUInt32LE(this.#index.length, 16);
    trailer.writeUInt32LE(RUN_MAGIC, 20);
    return [...this.#parts, footer, trailer];
  }
}

/** A run file's content could not be trusted (torn, flipped bits): the index is rebuilt from the value log. */
export class RunCorruptError extends Error {
  constructor(what: string) {
    super(`key index run: ${what}`);
    this.name = 'RunCorruptError';
  }
}

/** Reads a run through `read(offset, length)` (a positional read of its file), into `into` when given and large enough. */
export type ReadAt = (offset: number, length: number, into?: Buffer) => Buffer;

/**
 * An open run: its block index and bloom filter in memory (a few bytes per key: the only part of the index a process
 * keeps, off the V8 heap's objects except the blocks' first ids), its blocks read on demand.
 */
export class RunReader {
  readonly count: number;
  /** Size of the blocks' part of the file. */
  readonly dataBytes: number;
  readonly #read: ReadAt;
  readonly #firsts: string[];
  readonly #offsets: Uint32Array;
  readonly #lengths: Uint32Array;
  readonly #crcs: Uint32Array;
  readonly #bloom: Uint32Array;
  readonly #bits: number;
  #findScratch: Buffer | undefined;

  /** Opens a run of `fileBytes` bytes: its trailer and footer read and checked. */
  constructor(fileBytes: number, read: ReadAt) {
    this.#read = read;
    if (fileBytes < TRAILER_BYTES) throw new RunCorruptError('shorter than its trailer');
    const trailer = read(fileBytes - TRAILER_BYTES, TRAILER_BYTES);
    if (trailer.readUInt32LE(20) !== RUN_MAGIC) throw new RunCorruptError('no trailer');
    const footerAt = trailer.readUInt32LE(0);
    const footerLen = trailer.readUInt32LE(4);
    if (footerAt + footerLen + TRAILER_BYTES !== fileBytes) throw new RunCorruptError('footer out of place');
    const footer = read(footerAt, footerLen);
    if ((crc32c(footer) >>> 0) !== trailer.readUInt32LE(8)) throw new RunCorruptError('footer checksum');
    this.count = trailer.readUInt32LE(12);
    this.dataBytes = footerAt;
    const blocks = trailer.readUInt32LE(16);
    const firsts: string[] = [];
    this.#offsets = new Uint32Array(blocks);
    this.#lengths = new Uint32Array(blocks);
    this.#crcs = new Uint32Array(blocks);
    let at = 0;
    for (let i = 0; i < blocks; i++) {
      this.#offsets[i] = footer.readUInt32LE(at);
      this.#lengths[i] = footer.readUInt32LE(at + 4);
      this.#crcs[i] = footer.readUInt32LE(at + 8);
      const n = footer.readUInt16LE(at + 12);
      firsts.push(footer.toString('latin1', at + 14, at + 14 + n));
      at += 14 + n;
    }
    const bloomAt = at;
    if (footer.length - bloomAt < 4) throw new RunCorruptError('no bloom filter');
    this.#bits = footer.readUInt32LE(bloomAt);
    const bloom = new Uint32Array(Math.ceil(this.#bits / 32));
    if (footer.length - bloomAt - 4 !== bloom.byteLength) throw new RunCorruptError('bloom filter size');
    Buffer.from(bloom.buffer).set(footer.subarray(bloomAt + 4));
    this.#bloom = bloom;
    this.#firsts = firsts;
  }

  get blockCount(): number {
    return this.#firsts.length;
  }

  /** False when the run certainly has no entry for the id of these hashes. */
  mayContain(h1: number, h2: number): boolean {
    for (let i = 0; i < PROBES; i++) {
      const bit = (h1 + i * h2) % this.#bits;
      if ((this.#bloom[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }

  /** The block that would hold `idKey` (the id read as latin1), or -1 when it sorts before the run's first id. */
  blockOf(idKey: string): number {
    const f = this.#firsts;
    if (f.length === 0 || f[0]! > idKey) return -1;
    let lo = 0;
    let hi = f.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (f[mid]! <= idKey) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Block `i`'s bytes, checked; read into `into` when it is large enough (a merge reuses one buffer per run). */
  block(i: number, into?: Buffer): Buffer {
    const b = this.#read(this.#offsets[i]!, this.#lengths[i]!, into);
    if ((crc32c(b) >>> 0) !== this.#crcs[i]) throw new RunCorruptError(`block ${i} checksum`);
    return b;
  }

  /** The run's entry for `id` (bytes), or undefined. */
  find(id: Buffer, idKey: string, h1: number, h2: number): Found | undefined {
    if (!this.mayContain(h1, h2)) return undefined;
    const i = this.blockOf(idKey);
    if (i < 0) return undefined;
    // One buffer for every lookup's block (what is found is copied out of it): no garbage per GET in the worker.
    this.#findScratch ??= Buffer.allocUnsafe(BLOCK_BYTES + entrySize(MAX_ID_BYTES));
    const b = this.block(i, this.#findScratch);
    for (let at = 0; at < b.length;) {
      const n = b.readUInt16LE(at);
      const c = id.compare(b, at + ID_AT, at + ID_AT + n);
      if (c === 0) return entryAt(b, at);
      if (c < 0) return undefined;
      at += entrySize(n);
    }
    return undefined;
  }

  /** The run's entries in order, a block at a time (a merge's input: its memory stays a block per run). */
  entries(): EntryCursor {
    return new EntryCursor(this);
  }
}

/** Walks a run's entries block by block: `b` and `at` are the current entry's block and offset, until `done`. */
export class EntryCursor {
  b: Buffer;
  at = 0;
  readonly #run: RunReader;
  #block = 0;
  /** Every block is read into this one buffer: a merge of millions of entries leaves no garbage per block. */
  readonly #scratch = Buffer.allocUnsafe(BLOCK_BYTES + entrySize(MAX_ID_BYTES));

  constructor(run: RunReader) {
    this.#run = run;
    this.b = run.blockCount > 0 ? run.block(0, this.#scratch) : Buffer.alloc(0);
  }

  get done(): boolean {
    return this.at >= this.b.length;
  }

  /** Moves to the next entry, reading the next block when this one is through. */
  step(): void {
    this.at = nextEntry(this.b, this.at);
    if (this.at < this.b.length || this.#block + 1 >= this.#run.blockCount) return;
    this.b = this.#run.block(++this.#block, this.#scratch);
    this.at = 0;
  }
}

/** The entry at `at` of a block. */
export function entryAt(b: Buffer, at: number): Found {
  const n = b.readUInt16LE(at);
  const p = at + ID_AT + n;
  return {
    kind: b[at + 2] === KIND_DELETED ? KIND_DELETED : KIND_VALUE,
    place: { segment: b.readUInt32LE(p), offset: b.readUInt32LE(p + 4), length: b.readUInt32LE(p + 8) },
  };
}

/** The id of the entry at `at`, as latin1 (its order is the bytes' order). */
export function entryIdKey(b: Buffer, at: number): string {
  return b.toString('latin1', at + ID_AT, at + ID_AT + b.readUInt16LE(at));
}

/** Where the entry after the one at `at` starts. */
export function nextEntry(b: Buffer, at: number): number {
  return at + entrySize(b.readUInt16LE(at));
}

/**
 * Merges runs' entries (`inputs` oldest first) into `out`: on equal ids the newest run's entry wins. With
 * `dropDeleted` (the merge's output is the oldest run: nothing older is left for a deletion to hide) deletions are left
 * out. `hidden(b, at)`, when given, leaves out the entries it is true for (a dropped bucket's: an older run's entry of
 * the same id is older still, so nothing comes back). Ids are compared in place and entries copied as bytes.
 */
export function mergeEntries(inputs: readonly EntryCursor[], out: RunBuilder, dropDeleted: boolean, hidden?: (b: Buffer, at: number) => boolean): void {
  for (;;) {
    let best = -1;
    for (let i = inputs.length - 1; i >= 0; i--) {
      const s = inputs[i]!;
      if (s.done) continue;
      if (best < 0) {
        best = i;
        continue;
      }
      const t = inputs[best]!;
      const c = s.b.compare(t.b, t.at + ID_AT, t.at + ID_AT + t.b.readUInt16LE(t.at), s.at + ID_AT, s.at + ID_AT + s.b.readUInt16LE(s.at));
      if (c < 0) best = i;
      // An older run's entry of the same id (i < best): shadowed, skipped.
      else if (c === 0) s.step();
    }
    if (best < 0) return;
    const s = inputs[best]!;
    if (!(dropDeleted && s.b[s.at + 2] === KIND_DELETED) && !(hidden?.(s.b, s.at) ?? false)) out.addRaw(s.b, s.at);
    s.step();
  }
}
