import { open, type FileHandle } from 'node:fs/promises';
import { crc32, crc32c } from '@node-rs/crc32';
import { ioPoolSaturated, runIoJob } from './io-pool.js';

/**
 * One immutable sorted run of a drive's record store (record-store.ts): records and tombstones in UTF-8 byte order,
 * in CRC-checked blocks, with a block index and a bloom filter in a footer.
 *
 * Layout (integers little-endian):
 * - data blocks: u32 payload length, u32 CRC32C of the payload, payload; a payload is entries `u16 id length, u8 kind
 *   (1 record, 0 tombstone), u32 value length, id (UTF-8), value`. A block ends before ~4 KiB unless its one entry is
 *   larger (entries are never split, so one read answers a point lookup).
 * - the footer: u32 version, block count, entry count (two u32), bloom bits, bloom k, first-ids length; per block its
 *   offset (two u32) and length; the first ids' offsets (blocks + 1 u32); the first ids; the bloom bits.
 * - a 32-byte trailer: "SVCRUN01", footer offset (two u32), footer length, footer CRC32C, CRC32C of those 24 bytes,
 *   4 zero bytes.
 *
 * The block index and the filter stay in Buffers and typed arrays, off the V8 heap: a drive holds millions of records.
 */

/** One entry of a run: a record, or a tombstone (`value` null) hiding older runs' record of the id. */
export interface RunEntry {
  id: string;
  value: Buffer | null;
}

/** What {@link writeRun} wrote. */
export interface RunInfo {
  size: number;
  count: number;
}

/** Entries of a run in order, from a starting id; `seek` jumps forward. */
export interface RunCursor {
  next(): Promise<RunEntry | undefined>;
  /** The next entry returned is the first one ≥ `id` (never one before the cursor's position). */
  seek(id: string): void;
}

/** A run file (or one of its blocks) is damaged or not a run: never to be read as "the id is not there". */
export class RunDamagedError extends Error {
  readonly code = 'ESVCRUN';
  constructor(message: string) {
    super(message);
    this.name = 'RunDamagedError';
  }
}

const MAGIC = Buffer.from('SVCRUN01', 'latin1');
const VERSION = 1;
const TRAILER_BYTES = 32;
const FOOTER_HEAD_BYTES = 28;
const BLOCK_HEADER_BYTES = 8;
const ENTRY_HEADER_BYTES = 7;
/**
 * 4 KiB, about one small object's record per block (2.4 KB on EC 2+2): a GET's point lookup reads what the metadata
 * file was. With 16 KiB blocks, the four reads per GET, made on the I/O workers and freed on the event loop, grew the
 * allocator's per-thread arenas: peak RSS of the 64-way small-object load 458-465 MiB, 398 with 4 KiB (issue 9 point
 * 4: ≤ 400; docs/performance.md, twenty-third session). The block index then holds about one id per record, off the heap.
 */
const BLOCK_TARGET_BYTES = 4 * 1024;
/** Writes and sequential reads move up to this much at once. */
const CHUNK_BYTES = 256 * 1024;
const BLOOM_BITS_PER_ENTRY = 10;
const BLOOM_K = 7;
const MAX_ID_BYTES = 0xffff;
const U32 = 0x1_0000_0000;

/**
 * UTF-8 byte order of two ids (what S3 lists in and what runs store), without encoding them: UTF-16 code units order
 * like code points, and so like UTF-8 bytes, except surrogates (supplementary characters) against U+E000-U+FFFF.
 */
export function compareIds(a: string, b: string): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      const xSur = x < 0xe000;
      if (xSur !== y < 0xe000) return xSur ? 1 : -1;
    }
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/**
 * The two hashes the bloom filter probes with (double hashing). CRC32C and CRC32 use different polynomials: two
 * CRCs of one polynomial with different seeds differ by a constant for ids of one length, so would probe alike.
 */
export function bloomHashes(idBytes: Uint8Array): [number, number] {
  return [crc32c(idBytes) >>> 0, crc32(idBytes) >>> 0];
}

function bloomBit(h1: number, h2: number, i: number, bits: number): number {
  return ((h1 + Math.imul(i, h2)) >>> 0) % bits;
}

/** Writes a run of `entries` (strictly increasing in byte order) to `path`, synced. */
export async function writeRun(path: string, entries: Iterable<RunEntry> | AsyncIterable<RunEntry>): Promise<RunInfo> {
  const fh = await open(path, 'w');
  try {
    const w = new RunWriter(fh);
    if (Symbol.asyncIterator in entries) {
      for await (const e of entries) await w.add(e);
    } else {
      for (const e of entries) {
        // Awaited only when a chunk is written: a sync source is not slowed down by a microtask per entry.
        const p = w.add(e);
        if (p !== undefined) await p;
      }
    }
    const size = await w.finish();
    await fh.datasync();
    return { size, count: w.count };
  } finally {
    await fh.close();
  }
}

/** Entries into blocks into 256 KiB positional writes; the index and the ids' hashes kept for the footer. */
class RunWriter {
  readonly #fh: FileHandle;
  #out = Buffer.allocUnsafe(CHUNK_BYTES);
  /** Bytes used in `#out`, which holds the file from `#outOffset`. */
  #pos = 0;
  #outOffset = 0;
  /** Where the open block starts in `#out`, or -1. */
  #blockStart = -1;
  readonly #blockOffsets: number[] = [];
  readonly #blockLengths: number[] = [];
  readonly #firstIds: Buffer[] = [];
  #hashes = new Uint32Array(4096);
  count = 0;
  readonly #prev = Buffer.allocUnsafe(MAX_ID_BYTES);
  #prevLength = -1;

  constructor(fh: FileHandle) {
    this.#fh = fh;
  }

  add(e: RunEntry): Promise<void> | undefined {
    const idLength = Buffer.byteLength(e.id, 'utf8');
    if (idLength > MAX_ID_BYTES) throw new RangeError(`record id of ${idLength} bytes (at most ${MAX_ID_BYTES})`);
    const entryBytes = ENTRY_HEADER_BYTES + idLength + (e.value?.length ?? 0);
    if (this.#blockStart >= 0 && this.#pos - this.#blockStart - BLOCK_HEADER_BYTES + entryBytes > BLOCK_TARGET_BYTES) this.#endBlock();
    const need = entryBytes + (this.#blockStart < 0 ? BLOCK_HEADER_BYTES : 0);
    if (this.#pos + need > this.#out.length) return this.#makeRoom(need).then(() => this.#put(e, idLength));
    this.#put(e, idLength);
    return undefined;
  }

  #put(e: RunEntry, idLength: number): void {
    const out = this.#out;
    const newBlock = this.#blockStart < 0;
    if (newBlock) {
      this.#blockStart = this.#pos;
      this.#pos += BLOCK_HEADER_BYTES;
    }
    const at = this.#pos;
    const idStart = at + ENTRY_HEADER_BYTES;
    const idEnd = idStart + idLength;
    out.write(e.id, idStart, idLength, 'utf8');
    if (this.#prevLength >= 0 && out.compare(this.#prev, 0, this.#prevLength, idStart, idEnd) <= 0) {
      throw new Error(`run entries out of order: ${JSON.stringify(e.id)} does not follow the previous id`);
    }
    out.copy(this.#prev, 0, idStart, idEnd);
    this.#prevLength = idLength;
    out.writeUInt16LE(idLength, at);
    out[at + 2] = e.value === null ? 0 : 1;
    out.writeUInt32LE(e.value?.length ?? 0, at + 3);
    if (e.value !== null) out.set(e.value, idEnd);
    this.#pos = idEnd + (e.value?.length ?? 0);
    const id = out.subarray(idStart, idEnd);
    if (newBlock) this.#firstIds.push(Buffer.from(id));
    if (this.#hashes.length < 2 * (this.count + 1)) {
      const grown = new Uint32Array(this.#hashes.length * 2);
      grown.set(this.#hashes);
      this.#hashes = grown;
    }
    const [h1, h2] = bloomHashes(id);
    this.#hashes[2 * this.count] = h1;
    this.#hashes[2 * this.count + 1] = h2;
    this.count++;
  }

  #endBlock(): void {
    const start = this.#blockStart;
    const payloadLength = this.#pos - start - BLOCK_HEADER_BYTES;
    this.#out.writeUInt32LE(payloadLength, start);
    this.#out.writeUInt32LE(crc32c(this.#out.subarray(start + BLOCK_HEADER_BYTES, this.#pos)) >>> 0, start + 4);
    this.#blockOffsets.push(this.#outOffset + start);
    this.#blockLengths.push(payloadLength + BLOCK_HEADER_BYTES);
    this.#blockStart = -1;
  }

  /** Writes the finished blocks out and moves the open one to the front; grows the buffer for a large entry. */
  async #makeRoom(need: number): Promise<void> {
    const keep = this.#blockStart >= 0 ? this.#blockStart : this.#pos;
    await this.#write(0, keep);
    this.#out.copyWithin(0, keep, this.#pos);
    this.#outOffset += keep;
    this.#pos -= keep;
    if (this.#blockStart >= 0) this.#blockStart = 0;
    if (this.#pos + need > this.#out.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.#out.length * 2, this.#pos + need));
      this.#out.copy(grown, 0, 0, this.#pos);
      this.#out = grown;
    }
  }

  async #write(from: number, to: number): Promise<void> {
    let at = from;
    while (at < to) {
      const { bytesWritten } = await this.#fh.write(this.#out, at, to - at, this.#outOffset + at);
      at += bytesWritten;
    }
  }

  /** Ends the last block, writes the footer and the trailer; resolves with the file's size. */
  async finish(): Promise<number> {
    if (this.#blockStart >= 0) this.#endBlock();
    const footer = this.#footer();
    const footerOffset = this.#outOffset + this.#pos;
    const trailer = Buffer.alloc(TRAILER_BYTES);
    MAGIC.copy(trailer, 0);
    trailer.writeUInt32LE(footerOffset % U32, 8);
    trailer.writeUInt32LE(Math.floor(footerOffset / U32), 12);
    trailer.writeUInt32LE(footer.length, 16);
    trailer.writeUInt32LE(crc32c(footer) >>> 0, 20);
    trailer.writeUInt32LE(crc32c(trailer.subarray(0, 24)) >>> 0, 24);
    await this.#write(0, this.#pos);
    const tail = Buffer.concat([footer, trailer]);
    let at = 0;
    while (at < tail.length) at += (await this.#fh.write(tail, at, tail.length - at, footerOffset + at)).bytesWritten;
    return footerOffset + tail.length;
  }

  #footer(): Buffer {
    const blocks = this.#blockOffsets.length;
    let idsLength = 0;
    for (const id of this.#firstIds) idsLength += id.length;
    // ~1 % false positives at 10 bits and 7 probes per entry; a whole number of bytes.
    const bits = Math.max(64, Math.ceil((this.count * BLOOM_BITS_PER_ENTRY) / 8) * 8);
    if (bits >= U32) throw new RangeError(`run of ${this.count} entries: too many for one file`);
    const bloom = Buffer.alloc(bits / 8);
    for (let e = 0; e < this.count; e++) {
      const h1 = this.#hashes[2 * e]!;
      const h2 = this.#hashes[2 * e + 1]!;
      for (let i = 0; i < BLOOM_K; i++) {
        const bit = bloomBit(h1, h2, i, bits);
        bloom[bit >>> 3]! |= 1 << (bit & 7);
      }
    }
    const footer = Buffer.alloc(FOOTER_HEAD_BYTES + blocks * 12 + (blocks + 1) * 4 + idsLength + bloom.length);
    let at = 0;
    for (const v of [VERSION, blocks, this.count % U32, Math.floor(this.count / U32), bits, BLOOM_K, idsLength]) at = footer.writeUInt32LE(v, at);
    for (let b = 0; b < blocks; b++) {
      at = footer.writeUInt32LE(this.#blockOffsets[b]! % U32, at);
      at = footer.writeUInt32LE(Math.floor(this.#blockOffsets[b]! / U32), at);
      at = footer.writeUInt32LE(this.#blockLengths[b]!, at);
    }
    let idAt = 0;
    for (const id of this.#firstIds) {
      at = footer.writeUInt32LE(idAt, at);
      idAt += id.length;
    }
    at = footer.writeUInt32LE(idAt, at);
    for (const id of this.#firstIds) at += id.copy(footer, at);
    bloom.copy(footer, at);
    return footer;
  }
}

/** A run file opened for lookups and cursors. Its FileHandle stays open until {@link close}. */
export class RunReader {
  readonly path: string;
  /** The file's size in bytes. */
  readonly size: number;
  /** Entries (records and tombstones). */
  readonly count: number;
  readonly #fh: FileHandle;
  /** Each block's first id, concatenated; block b's is `#firstIds[#idOffsets[b], #idOffsets[b + 1])`. */
  readonly #firstIds: Buffer;
  readonly #idOffsets: Uint32Array;
  /** Block b: file offset `#blocks[2b]`, length `#blocks[2b + 1]` (offsets may pass 4 GiB). */
  readonly #blocks: Float64Array;
  readonly #bloom: Buffer;
  readonly #bloomBits: number;
  readonly #bloomK: number;

  private constructor(path: string, fh: FileHandle, size: number, footer: Buffer) {
    this.path = path;
    this.#fh = fh;
    this.size = size;
    const head = (i: number): number => footer.readUInt32LE(4 * i);
    const blocks = head(1);
    this.count = head(2) + head(3) * U32;
    this.#bloomBits = head(4);
    this.#bloomK = head(5);
    const idsLength = head(6);
    const idOffsetsAt = FOOTER_HEAD_BYTES + blocks * 12;
    const idsAt = idOffsetsAt + (blocks + 1) * 4;
    const bloomAt = idsAt + idsLength;
    if (head(0) !== VERSION || this.#bloomBits === 0 || this.#bloomBits % 8 !== 0 || this.#bloomK < 1 || this.#bloomK > 32
      || bloomAt + this.#bloomBits / 8 !== footer.length) {
      throw new RunDamagedError(`${path}: not a run of version ${VERSION}, or its footer is inconsistent`);
    }
    this.#blocks = new Float64Array(2 * blocks);
    this.#idOffsets = new Uint32Array(blocks + 1);
    let expected = 0;
    for (let b = 0; b < blocks; b++) {
      const at = FOOTER_HEAD_BYTES + b * 12;
      const offset = footer.readUInt32LE(at) + footer.readUInt32LE(at + 4) * U32;
      const length = footer.readUInt32LE(at + 8);
      if (offset !== expected || length < BLOCK_HEADER_BYTES) throw new RunDamagedError(`${path}: block index inconsistent at block ${b}`);
      expected += length;
      this.#blocks[2 * b] = offset;
      this.#blocks[2 * b + 1] = length;
    }
    for (let b = 0; b <= blocks; b++) this.#idOffsets[b] = footer.readUInt32LE(idOffsetsAt + 4 * b);
    if (expected + footer.length + TRAILER_BYTES !== size || this.#idOffsets[blocks] !== idsLength) {
      throw new RunDamagedError(`${path}: block index does not match the file's size`);
    }
    this.#firstIds = footer.subarray(idsAt, bloomAt);
    this.#bloom = footer.subarray(bloomAt);
  }

  /** Opens a run, checking its trailer and footer (a bad one throws {@link RunDamagedError}). */
  static async open(path: string): Promise<RunReader> {
    const fh = await open(path, 'r');
    try {
      const size = (await fh.stat()).size;
      if (size < TRAILER_BYTES) throw new RunDamagedError(`${path}: ${size} bytes, too short for a run`);
      const trailer = await readExactly(fh, path, size - TRAILER_BYTES, TRAILER_BYTES);
      if (!trailer.subarray(0, 8).equals(MAGIC) || (crc32c(trailer.subarray(0, 24)) >>> 0) !== trailer.readUInt32LE(24)) {
        throw new RunDamagedError(`${path}: no intact run trailer`);
      }
      const footerOffset = trailer.readUInt32LE(8) + trailer.readUInt32LE(12) * U32;
      const footerLength = trailer.readUInt32LE(16);
      if (footerOffset + footerLength + TRAILER_BYTES !== size || footerLength < FOOTER_HEAD_BYTES + 4) {
        throw new RunDamagedError(`${path}: trailer does not match the file's size`);
      }
      const footer = await readExactly(fh, path, footerOffset, footerLength);
      if ((crc32c(footer) >>> 0) !== trailer.readUInt32LE(20)) throw new RunDamagedError(`${path}: footer CRC mismatch`);
      return new RunReader(path, fh, size, footer);
    } catch (err) {
      await fh.close();
      throw err;
    }
  }

  /** Data blocks (what cursors walk; the methods below are theirs too). */
  get blockCount(): number {
    return this.#blocks.length / 2;
  }

  /** False when the run surely lacks the id (the bloom filter); `hashes` from {@link bloomHashes} spare rehashing. */
  mayContain(id: string | Uint8Array, hashes?: readonly [number, number]): boolean {
    const [h1, h2] = hashes ?? bloomHashes(typeof id === 'string' ? Buffer.from(id, 'utf8') : id);
    for (let i = 0; i < this.#bloomK; i++) {
      const bit = bloomBit(h1, h2, i, this.#bloomBits);
      if ((this.#bloom[bit >>> 3]! & (1 << (bit & 7))) === 0) return false;
    }
    return true;
  }

  /**
   * The run's entry for `id`: undefined when the run has none, `value` null for a tombstone. A damaged block throws
   * (a caller taking it for "absent" would read an older run's record, one this run superseded).
   */
  async get(id: string | Buffer): Promise<{ value: Buffer | null } | undefined> {
    const key = typeof id === 'string' ? Buffer.from(id, 'utf8') : id;
    const b = this.blockFor(key);
    if (b < 0) return undefined;
    const buf = await this.#readBlock(b);
    for (let at = BLOCK_HEADER_BYTES; at < buf.length;) {
      const e = parseEntry(buf, at, buf.length, this.path, this.blockOffset(b));
      const c = buf.compare(key, 0, key.length, e.idStart, e.idEnd);
      // A copy: the value would otherwise pin the whole block for as long as the caller keeps it.
      if (c === 0) return { value: e.kind === 0 ? null : Buffer.from(buf.subarray(e.idEnd, e.end)) };
      if (c > 0) return undefined;
      at = e.end;
    }
    return undefined;
  }

  /** Entries in order from the first id ≥ `from`. */
  cursor(from: string): RunCursor {
    return new BlockCursor(this, from);
  }

  /** Closes the file; nothing may read the run after (the store counts its readers). */
  async close(): Promise<void> {
    await this.#fh.close();
  }

  /** The last block whose first id is ≤ `id`, or -1. */
  blockFor(id: Buffer): number {
    let lo = 0;
    let hi = this.blockCount - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#firstIds.compare(id, 0, id.length, this.#idOffsets[mid]!, this.#idOffsets[mid + 1]!) <= 0) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  blockOffset(b: number): number {
    return this.#blocks[2 * b]!;
  }

  blockLength(b: number): number {
    return this.#blocks[2 * b + 1]!;
  }

  /**
   * Blocks from `first` on, at most `max` of them and `CHUNK_BYTES` (at least one), read in one positional read,
   * each one's CRC checked. A fresh buffer each time: entries handed out keep pointing into it.
   */
  async readBlocks(first: number, max: number): Promise<Buffer> {
    const offset = this.#blocks[2 * first]!;
    let last = first;
    let length = this.#blocks[2 * first + 1]!;
    while (last + 1 < this.blockCount && last + 1 - first < max && length + this.#blocks[2 * last + 3]! <= CHUNK_BYTES) {
      last++;
      length += this.#blocks[2 * last + 1]!;
    }
    return this.#checked(await readExactly(this.#fh, this.path, offset, length), first, last);
  }

  /**
   * One block for a point lookup: through the I/O workers, with the other reads of this turn in one message (a GET
   * reads its record on every drive of the set; a FileHandle read per drive cost the event loop ~30 µs each and took
   * 4 KiB GETs from 9,117 to 6,890/s, docs/performance.md, twenty-third session). With the workers backed up (a hung
   * drive), through libuv's threads.
   */
  async #readBlock(b: number): Promise<Buffer> {
    if (ioPoolSaturated()) return this.readBlocks(b, 1);
    const offset = this.#blocks[2 * b]!;
    const length = this.#blocks[2 * b + 1]!;
    const bytes = await runIoJob({ op: 'read', path: this.path, offset, length }).catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'EIO' ? new RunDamagedError(`${this.path}: ends before offset ${offset + length} (truncated)`) : err;
    });
    return this.#checked(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), b, b);
  }

  /** `buf` holding blocks `first` to `last`, once each block's CRC matched. */
  #checked(buf: Buffer, first: number, last: number): Buffer {
    for (let b = first, at = 0; b <= last; at += this.#blocks[2 * b + 1]!, b++) {
      const payload = buf.readUInt32LE(at);
      if (payload + BLOCK_HEADER_BYTES !== this.#blocks[2 * b + 1]
        || (crc32c(buf.subarray(at + BLOCK_HEADER_BYTES, at + BLOCK_HEADER_BYTES + payload)) >>> 0) !== buf.readUInt32LE(at + 4)) {
        throw new RunDamagedError(`${this.path}: block at offset ${this.#blocks[2 * b]} is damaged (CRC mismatch)`);
      }
    }
    return buf;
  }
}

async function readExactly(fh: FileHandle, path: string, offset: number, length: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await fh.read(buf, got, length - got, offset + got);
    if (bytesRead === 0) throw new RunDamagedError(`${path}: ends before offset ${offset + length} (truncated)`);
    got += bytesRead;
  }
  return buf;
}

interface ParsedEntry {
  kind: number;
  idStart: number;
  idEnd: number;
  end: number;
}

/** The entry at `at` of a block payload ending at `end` (its CRC matched: a bad entry is a bug or a foreign file). */
function parseEntry(buf: Buffer, at: number, end: number, path: string, blockOffset: number): ParsedEntry {
  const idStart = at + ENTRY_HEADER_BYTES;
  if (idStart > end) throw new RunDamagedError(`${path}: block at offset ${blockOffset} has a cut entry`);
  const kind = buf[at + 2]!;
  const idEnd = idStart + buf.readUInt16LE(at);
  const entryEnd = idEnd + buf.readUInt32LE(at + 3);
  if (entryEnd > end || kind > 1 || (kind === 0 && entryEnd !== idEnd)) {
    throw new RunDamagedError(`${path}: block at offset ${blockOffset} has a malformed entry`);
  }
  return { kind, idStart, idEnd, end: entryEnd };
}

/**
 * Sequential reads of a run; a seek past the loaded blocks binary-searches again. Reads grow from one block to
 * `CHUNK_BYTES` while the cursor reads on: a listing of a few keys (most of them) reads one block per run, a long
 * scan reads 256 KiB at a time.
 */
class BlockCursor implements RunCursor {
  readonly #run: RunReader;
  #buf: Buffer | null = null;
  /** The loaded blocks: `#first` to `#last`; the current block `#block`, its entries from `#pos` to `#end`. */
  #first = 0;
  #last = -1;
  #block = -1;
  #blockOffset = 0;
  #pos = 0;
  #end = 0;
  /** Blocks the next sequential read may take. */
  #ahead = 1;
  /** Entries below this are skipped (the start, or a seek's target). */
  #target: Buffer | null;

  constructor(run: RunReader, from: string) {
    this.#run = run;
    this.#target = Buffer.from(from, 'utf8');
  }

  seek(id: string): void {
    const target = Buffer.from(id, 'utf8');
    if (this.#target === null || Buffer.compare(target, this.#target) > 0) this.#target = target;
  }

  async next(): Promise<RunEntry | undefined> {
    if (this.#target !== null) {
      const b = this.#run.blockFor(this.#target);
      if (b > this.#block) await this.#enter(b);
    }
    for (;;) {
      if (this.#pos < this.#end) {
        const buf = this.#buf!;
        const e = parseEntry(buf, this.#pos, this.#end, this.#run.path, this.#blockOffset);
        this.#pos = e.end;
        if (this.#target !== null) {
          if (buf.compare(this.#target, 0, this.#target.length, e.idStart, e.idEnd) < 0) continue;
          this.#target = null;
        }
        return { id: buf.toString('utf8', e.idStart, e.idEnd), value: e.kind === 0 ? null : buf.subarray(e.idEnd, e.end) };
      }
      if (this.#block + 1 >= this.#run.blockCount) {
        this.#block = this.#run.blockCount;
        return undefined;
      }
      await this.#enter(this.#block + 1);
    }
  }

  async #enter(block: number): Promise<void> {
    const run = this.#run;
    if (this.#buf === null || block < this.#first || block > this.#last) {
      if (block === this.#block + 1) {
        this.#ahead = Math.min(this.#ahead * 2, 1024);
      } else {
        this.#ahead = 1;
      }
      const buf = await run.readBlocks(block, this.#ahead);
      this.#buf = buf;
      this.#first = block;
      this.#last = block;
      for (let len = run.blockLength(block); len < buf.length; len += run.blockLength(this.#last)) this.#last++;
    }
    const start = run.blockOffset(block) - run.blockOffset(this.#first);
    this.#block = block;
    this.#blockOffset = run.blockOffset(block);
    this.#pos = start + BLOCK_HEADER_BYTES;
    this.#end = start + run.blockLength(block);
  }
}

/**
 * Every entry of a whole run file read into `buf`, in order, with the offset of its block (tools and tests that look
 * at a drive from outside its process: test/helpers/drive-records.ts, the fault injector). Checks the trailer and each
 * block's CRC as a reader does (a damaged block throws, or is listed in `damaged` and skipped). Values are views of
 * `buf`.
 */
export function decodeRun(buf: Buffer, path: string, damaged?: number[]): (RunEntry & { block: number })[] {
  const trailerAt = buf.length - TRAILER_BYTES;
  if (trailerAt < 0 || !buf.subarray(trailerAt, trailerAt + 8).equals(MAGIC)
    || (crc32c(buf.subarray(trailerAt, trailerAt + 24)) >>> 0) !== buf.readUInt32LE(trailerAt + 24)) {
    throw new RunDamagedError(`${path}: no intact run trailer`);
  }
  const footerAt = buf.readUInt32LE(trailerAt + 8) + buf.readUInt32LE(trailerAt + 12) * U32;
  const out: (RunEntry & { block: number })[] = [];
  for (let at = 0; at < footerAt;) {
    const len = buf.readUInt32LE(at);
    const start = at + BLOCK_HEADER_BYTES;
    const end = start + len;
    if (end > footerAt || (crc32c(buf.subarray(start, end)) >>> 0) !== buf.readUInt32LE(at + 4)) {
      // With `damaged`, a damaged block is noted there and skipped (when its length still leads to the next one).
      if (damaged === undefined || end > footerAt) throw new RunDamagedError(`${path}: block at offset ${at} fails its check`);
      damaged.push(at);
      at = end;
      continue;
    }
    for (let p = start; p < end;) {
      const e = parseEntry(buf, p, end, path, at);
      out.push({ id: buf.toString('utf8', e.idStart, e.idEnd), value: e.kind === 1 ? buf.subarray(e.idEnd, e.end) : null, block: at });
      p = e.end;
    }
    at = end;
  }
  return out;
}
