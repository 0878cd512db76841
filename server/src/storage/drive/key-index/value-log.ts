import { closeSync, constants, existsSync, fstatSync, openSync, statSync, unlinkSync, readdirSync, readSync, writeSync, writevSync } from 'node:fs';
import { randomInt } from 'node:crypto';
import { syncDirSync } from './sync-files.js';
import { USE_HEADER_BYTES, encodeUseHeader, readUseHeader, recordAt } from '../commit-log-record.js';
import type { Place } from './run-file.js';

/**
 * A drive's value log: where the key index's records live (docs/performance.md, "The index worker: design"). Records
 * are the commit log's (commit-log-record.ts: kind, volume, key, metadata record, CRC32C seeded by the segment's use),
 * appended to fixed-size segment files and never moved while they are current; the key index holds their places.
 *
 * Written by one thread (the drive's index worker), synchronously: a batch of records is one positional O_DSYNC write
 * per segment it touches. Synchronous because a write submitted to a thread pool costs a hand-off (25-45 µs on this
 * VM) and the probe of the twenty-fifth session measured the writes done in place, one drive after the other, at
 * 1.25-1.36x the 4 KiB PUTs of asynchronous ones. Positional into space written beforehand (zeros, PREPARE_BYTES at a
 * time, synced) because a synced write that allocates blocks waits for the journal on ext4 as deployed: appends made
 * the same probe slower than main's code.
 *
 * A segment is named by its number; each use of it starts with a use header (a generation, increasing across the
 * drive's uses, and the CRC seed of its records), so that records of an earlier use fail their check and end a replay
 * there. Replay reads the uses in generation order from a position the index has covered.
 */

export const SEGMENT_BYTES = 64 * 1024 * 1024;
/** How far ahead of the write position a segment is written with zeros (and synced). */
export const PREPARE_BYTES = 4 * 1024 * 1024;
const SEG_PREFIX = 'seg-';

/** A position in the log: a use's generation and an offset in its segment. */
export interface LogPosition {
  gen: number;
  offset: number;
}

/** One record read back from the log (replay). */
export interface LoggedRecord {
  kind: number;
  volume: string;
  key: string;
  place: Place;
  /** The use's generation (replay's order). */
  gen: number;
}

interface Segment {
  number: number;
  fd: number;
  /** Current use: generation and CRC seed (0 when the segment holds no intact use). */
  gen: number;
  seed: number;
  /** Next write offset (current segment) or end of its records (earlier ones). */
  end: number;
  /** Bytes written with zeros (or records) so far: writes below it do not allocate. */
  prepared: number;
}

const ZEROS = Buffer.alloc(PREPARE_BYTES);

export class ValueLog {
  readonly #dir: string;
  readonly #epoch = randomInt(2 ** 32);
  readonly #segments = new Map<number, Segment>();
  #current: Segment | undefined;
  #gen = 0;
  readonly #segmentBytes: number;

  /** Opens the log in `dir` (which must exist): reads each segment's use header; writes nothing yet. */
  constructor(dir: string, segmentBytes = SEGMENT_BYTES) {
    this.#dir = dir;
    this.#segmentBytes = segmentBytes;
    for (const name of readdirSync(dir)) {
      if (!name.startsWith(SEG_PREFIX)) continue;
      const number = Number(name.slice(SEG_PREFIX.length));
      if (!Number.isSafeInteger(number)) continue;
      const fd = openSync(`${dir}/${name}`, constants.O_RDWR | constants.O_DSYNC);
      const size = fstatSync(fd).size;
      const head = Buffer.alloc(USE_HEADER_BYTES);
      readSync(fd, head, 0, USE_HEADER_BYTES, 0);
      const use = readUseHeader(head);
      const seg: Segment = { number, fd, gen: use?.gen ?? 0, seed: use?.seed ?? 0, end: USE_HEADER_BYTES, prepared: size };
      this.#segments.set(number, seg);
      if (seg.gen > this.#gen) this.#gen = seg.gen;
    }
  }

  /** Segments in the order of their uses (oldest first), with an intact use. */
  #inUseOrder(): Segment[] {
    return [...this.#segments.values()].filter((s) => s.gen > 0).sort((a, b) => a.gen - b.gen);
  }

  /**
   * The records written from `from` on (every use with a later generation, and the rest of `from`'s own), in order,
   * up to the first torn or damaged one of each use. Leaves each segment's end where its records end.
   */
  *replay(from: LogPosition): Generator<LoggedRecord> {
    for (const seg of this.#inUseOrder()) {
      if (seg.gen < from.gen) continue;
      let end = seg.gen === from.gen ? Math.max(from.offset, USE_HEADER_BYTES) : USE_HEADER_BYTES;
      for (const r of this.#records(seg, end)) {
        yield { ...r, gen: seg.gen };
        end = r.place.offset + r.place.length;
      }
      seg.end = end;
    }
  }

  /** A segment's intact records from offset `from` on, up to the first torn or damaged one (one read of the rest). */
  #records(seg: Segment, from: number): { kind: number; volume: string; key: string; place: Place }[] {
    const buf = Buffer.allocUnsafe(Math.max(0, seg.prepared - from));
    if (buf.length > 0) readSync(seg.fd, buf, 0, buf.length, from);
    const out: { kind: number; volume: string; key: string; place: Place }[] = [];
    for (let at = 0; ;) {
      const r = recordAt(buf, at, seg.seed);
      if (r === null) return out;
      out.push({ kind: r.kind, volume: r.volume, key: r.key, place: { segment: seg.number, offset: from + at, length: r.length } });
      at += r.length;
    }
  }

  /**
   * Segments wholly written before `pos` (an earlier use than its own, and not the one being written): those a
   * collection may take (drive-index.ts `collect`), with the bytes each spans.
   */
  segmentsBefore(pos: LogPosition): { segment: number; bytes: number }[] {
    return [...this.#segments.values()]
      .filter((s) => s.gen > 0 && s.gen < pos.gen && s !== this.#current)
      .map((s) => ({ segment: s.number, bytes: Math.max(s.prepared, USE_HEADER_BYTES) }));
  }

  /** The segment of the oldest use still in the log (every record before a position in it is in it too). */
  oldestSegment(): number | undefined {
    return this.#inUseOrder()[0]?.number;
  }

  /** Every intact record of a segment's use, in order (a collection's walk). */
  records(segment: number): { kind: number; volume: string; key: string; place: Place }[] {
    const seg = this.#segments.get(segment);
    return seg === undefined || seg.gen === 0 ? [] : this.#records(seg, USE_HEADER_BYTES);
  }

  /** Deletes a segment no live record is left in (its name's removal synced: a replay must not find it again). */
  remove(segment: number): void {
    const seg = this.#segments.get(segment);
    if (seg === undefined || seg === this.#current) return;
    this.#segments.delete(segment);
    closeSync(seg.fd);
    unlinkSync(this.#path(segment));
    syncDirSync(this.#dir);
  }

  /** Where the next record will be written (the index's flushes record it as covered). */
  position(): LogPosition {
    const seg = this.#current;
    return seg === undefined ? { gen: this.#gen + 1, offset: USE_HEADER_BYTES } : { gen: seg.gen, offset: seg.end };
  }

  /** The generation of a segment's current use (0: none). */
  genOf(segment: number): number {
    return this.#segments.get(segment)?.gen ?? 0;
  }

  /**
   * Writes `records` (encoded with `encode(seed)`, each a commit-log record) synchronously and durably; returns each
   * one's place. Records are never split across segments: a batch that does not fit starts the next segment.
   */
  append(records: readonly ((seed: number) => Buffer)[]): Place[] {
    const places: Place[] = [];
    let seg = this.#writable();
    let bufs: Buffer[] = [];
    let start = seg.end;
    let at = start;
    const flush = (): void => {
      if (bufs.length === 0) return;
      this.#prepare(seg, at);
      const n = writevSync(seg.fd, bufs, start);
      if (n !== at - start) throw Object.assign(new Error(`ENOSPC: short write to the value log (${n} of ${at - start} bytes)`), { code: 'ENOSPC', errno: -28 });
      seg.end = at;
    };
    for (const encode of records) {
      let rec = encode(seg.seed);
      if (at + rec.length > this.#segmentBytes && at > USE_HEADER_BYTES) {
        flush();
        seg = this.#next();
        bufs = [];
        start = seg.end;
        at = start;
        rec = encode(seg.seed);
      }
      bufs.push(rec);
      places.push({ segment: seg.number, offset: at, length: rec.length });
      at += rec.length;
    }
    flush();
    return places;
  }

  /** The record at `place`: its kind, volume, key and metadata, checked against its use's seed; null if not intact. */
  read(place: Place, into?: Buffer): { kind: number; volume: string; key: string; meta: Buffer } | null {
    const seg = this.#segments.get(place.segment);
    if (seg === undefined || seg.gen === 0) return null;
    const buf = into !== undefined && into.length >= place.length ? into.subarray(0, place.length) : Buffer.allocUnsafe(place.length);
    if (readSync(seg.fd, buf, 0, place.length, place.offset) !== place.length) return null;
    const r = recordAt(buf, 0, seg.seed);
    if (r === null || r.length !== place.length) return null;
    return { kind: r.kind, volume: r.volume, key: r.key, meta: buf.subarray(r.metaAt, r.length) };
  }

  #writable(): Segment {
    return this.#current ?? this.#next();
  }

  /** Starts the next use: a new segment file (the freeing of old ones comes with the log's space taken back). */
  #next(): Segment {
    let number = 0;
    for (const n of this.#segments.keys()) if (n >= number) number = n + 1;
    const path = this.#path(number);
    const fd = openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_DSYNC);
    syncDirSync(this.#dir);
    const gen = ++this.#gen;
    const { header, seed } = encodeUseHeader(this.#epoch, gen);
    const seg: Segment = { number, fd, gen, seed, end: USE_HEADER_BYTES, prepared: 0 };
    this.#prepare(seg, USE_HEADER_BYTES);
    writeSync(fd, header, 0, header.length, 0);
    this.#segments.set(number, seg);
    this.#current = seg;
    return seg;
  }

  /**
   * Writes zeros ahead of `upTo` (synced: the fd is O_DSYNC), so that the records' synced writes never allocate. Once
   * less than half of PREPARE_BYTES is left ahead, up to PREPARE_BYTES more (bounded by the segment's size): one
   * synced 2-4 MiB write per ~1,000 small records, not one per batch.
   */
  #prepare(seg: Segment, upTo: number): void {
    if (seg.prepared >= upTo + PREPARE_BYTES / 2 || (seg.prepared >= upTo && seg.prepared >= this.#segmentBytes)) return;
    const target = Math.max(upTo, Math.min(upTo + PREPARE_BYTES, this.#segmentBytes));
    while (seg.prepared < target) {
      const n = Math.min(PREPARE_BYTES, target - seg.prepared);
      writeSync(seg.fd, ZEROS, 0, n, seg.prepared);
      seg.prepared += n;
    }
  }

  /**
   * Whether the log's files are still where the drive's path leads: a drive wiped under a running server leaves its
   * index writing into unlinked files, and a root moved away (renamed, unmounted lazily, replaced by another disk)
   * into files no longer at its path; no replay of the drive would read either. One fstat and one stat of the path.
   */
  linked(): boolean {
    const seg = this.#current ?? this.#segments.values().next().value;
    if (seg === undefined) return existsSync(this.#dir);
    const open = fstatSync(seg.fd);
    const named = statSync(this.#path(seg.number), { throwIfNoEntry: false });
    return open.nlink > 0 && named !== undefined && named.ino === open.ino && named.dev === open.dev;
  }

  #path(segment: number): string {
    return `${this.#dir}/${SEG_PREFIX}${String(segment).padStart(8, '0')}`;
  }

  close(): void {
    for (const s of this.#segments.values()) closeSync(s.fd);
    this.#segments.clear();
    this.#current = undefined;
  }
}
