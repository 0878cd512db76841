import { closeSync, constants, fstatSync, mkdirSync, openSync, readdirSync, readSync, unlinkSync } from 'node:fs';
import { KIND_DROP_KEY, KIND_DROP_VOLUME, KIND_META, encodeRecord } from '../commit-log-record.js';
import { ManifestError, emptyManifest, readManifest, writeManifest, type Manifest } from './manifest.js';
import { writeSyncedFile, writeSyncedFileFrom } from './sync-files.js';
import { KIND_DELETED, KIND_VALUE, RunBuilder, RunCorruptError, RunReader, entryAt, entryIdKey, idHashes, mergeEntries, type Found, type Place } from './run-file.js';
import { ValueLog, type LogPosition } from './value-log.js';
import { IndexCursor } from './cursor.js';

/**
 * One drive's key index: every object's metadata record, found by `volume \0 key` without a file per key
 * (docs/performance.md, "The index worker: design"; issue 9 point 2). The records live in the drive's value log
 * (value-log.ts), written once; the index maps each id to its record's place:
 *
 * - a table of the places written since the last flush (the only part on the V8 heap, bounded by FLUSH_ENTRIES and by
 *   the flush interval its owner keeps);
 * - sorted runs (run-file.ts) of earlier flushes, merged FAN_IN at a time once as large as each other (size-tiered: an
 *   entry is rewritten about log₄ n times, each time as ~60 bytes, never with its record);
 * - a manifest naming the runs and how far into the value log they cover: opening the index replays the log from
 *   there into the table, so a crash loses nothing a `put` answered.
 *
 * Synchronous and single-threaded by design: it runs on its drive's index worker, which owns the drive's files (the
 * twenty-fifth session's probe measured that arrangement at 1.25-1.36x main's 4 KiB PUTs).
 */

/** Entries in the table that make a flush due whatever the interval (~2-3 MiB of table at most). */
export const FLUSH_ENTRIES = 16_384;
const FAN_IN = 4;
const RUN_PREFIX = 'run-';
/** The most entry bytes a merge may write into one run: its offsets are u32, and the footer follows the blocks. */
const MAX_RUN_BYTES = 0xffffffff - 512 * 1024 * 1024;

/** One commit for {@link DriveIndex.put}. */
export interface PutItem {
  volume: string;
  key: string;
  meta: Uint8Array;
  /** Answer the record this one replaces (null when none). */
  previous?: boolean;
}

interface OpenRun {
  name: string;
  fd: number;
  reader: RunReader;
}

/** The id of a key: `volume \0 key` as UTF-8 bytes read as latin1 (run-file.ts: its order is the bytes' order). */
export function idOf(volume: string, key: string): string {
  const s = `${volume}\0${key}`;
  return /[^\x00-\x7f]/.test(s) ? Buffer.from(s, 'utf8').toString('latin1') : s;
}

/** A copy in its own memory, not a slice of the pool: the worker moves it to the caller instead of cloning a whole slab. */
function ownCopy(bytes: Buffer): Buffer {
  const out = Buffer.from(new ArrayBuffer(bytes.length));
  bytes.copy(out);
  return out;
}

/** The first of the sorted `points` above `at` (undefined when none is). */
function firstAbove(points: readonly string[], at: string): string | undefined {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid]! <= at) lo = mid + 1;
    else hi = mid;
  }
  return points[lo];
}

/** A segment of an id (latin1) back to its text. */
function utf8Of(latin1: string): string {
  return /[^\x00-\x7f]/.test(latin1) ? Buffer.from(latin1, 'latin1').toString('utf8') : latin1;
}

export class DriveIndex {
  readonly #dir: string;
  readonly #log: ValueLog;
  #manifest: Manifest;
  #runs: OpenRun[] = [];
  #table = new Map<string, Found>();
  /** Segments a collection found holding a bucket's drop still in force: not read again by this process. */
  readonly #kept = new Set<number>();
  /** Bytes of live records per value-log segment (what a collection may take back), kept with the manifest. */
  #liveBytes = new Map<number, number>();
  /** The table's ids in order, while the table is unchanged (listings). */
  #sortedIds: string[] | null = null;
  /** Scratch for reads of records (a metadata record is copied out of it). */
  #readBuf = Buffer.allocUnsafe(64 * 1024);
  /** Set once this turn's check found the files in place (#check); cleared by beginTurn. */
  #linkedThisTurn = false;

  /** Opens (or creates) the index in `dir`: its runs, its log, and the log's records since the last flush replayed. */
  constructor(dir: string, opts: { segmentBytes?: number } = {}) {
    this.#dir = dir;
    mkdirSync(dir, { recursive: true });
    this.#manifest = this.#openRuns();
    for (const [seg, bytes] of Object.entries(this.#manifest.live ?? {})) this.#liveBytes.set(Number(seg), bytes);
    this.#removeStrays();
    this.#log = new ValueLog(dir, opts.segmentBytes);
    for (const r of this.#log.replay(this.#manifest.covered)) {
      // The live bytes the manifest recorded are brought up to date as the records are applied again.
      if (r.kind === KIND_META || r.kind === KIND_DROP_KEY) {
        const id = idOf(r.volume, r.key);
        this.#replaced(this.#live(id), r.kind === KIND_META ? r.place : null);
        this.#tableSet(id, { kind: r.kind === KIND_META ? KIND_VALUE : KIND_DELETED, place: r.place });
      } else if (r.kind === KIND_DROP_VOLUME) {
        this.#forgetVolume(r.volume);
        this.#dropInTable(r.volume, { gen: r.gen, offset: r.place.offset });
      }
    }
  }

  /**
   * The manifest, with its runs opened. A manifest or run that cannot be read (flipped bits, a file gone) is not fatal:
   * the value log holds every live record and every deletion still in force (a collection writes both again), so the
   * index starts over from all of it,
   * under a manifest written at once (a crash before the next flush must not find the old one naming removed runs).
   */
  #openRuns(): Manifest {
    let m: Manifest | null = null;
    try {
      m = readManifest(this.#dir);
      for (const name of m?.runs ?? []) this.#runs.push(this.#openRun(name));
      return m ?? emptyManifest();
    } catch (err) {
      if (!(err instanceof RunCorruptError || err instanceof SyntaxError || (err as NodeJS.ErrnoException).code === 'ENOENT' || err instanceof ManifestError)) throw err;
      for (const r of this.#runs) closeSync(r.fd);
      this.#runs = [];
      let runSeq = m?.runSeq ?? 0;
      for (const n of readdirSync(this.#dir)) if (n.startsWith(RUN_PREFIX)) runSeq = Math.max(runSeq, Number(n.slice(RUN_PREFIX.length)) || 0);
      const fresh = { ...emptyManifest(), runSeq };
      writeManifest(this.#dir, fresh);
      return fresh;
    }
  }

  /** Run files a crash left unnamed by the manifest (a flush or merge cut short). */
  #removeStrays(): void {
    const named = new Set(this.#manifest.runs);
    for (const n of readdirSync(this.#dir)) if (n.startsWith(RUN_PREFIX) && !named.has(n)) unlinkSync(`${this.#dir}/${n}`);
  }

  #openRun(name: string): OpenRun {
    const fd = openSync(`${this.#dir}/${name}`, constants.O_RDONLY);
    try {
      const reader = new RunReader(fstatSync(fd).size, (offset, length, into) => {
        const b = into !== undefined && into.length >= length ? into.subarray(0, length) : Buffer.allocUnsafe(length);
        if (readSync(fd, b, 0, length, offset) !== length) throw new Error(`key index: short read of ${name}`);
        return b;
      });
      return { name, fd, reader };
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /** Throws ENOENT once the index's files lost their names or moved away (value-log.ts linked): nothing is answered from them. */
  #check(): void {
    if (this.#linkedThisTurn) return;
    if (!this.#log.linked()) throw Object.assign(new Error(`key index ${this.#dir}: its files were removed`), { code: 'ENOENT' });
    this.#linkedThisTurn = true;
  }

  /** How many runs the index has and how many entries they hold (tests; what merges left). */
  get runStats(): { runs: number; entries: number } {
    return { runs: this.#runs.length, entries: this.#runs.reduce((n, r) => n + r.reader.count, 0) };
  }

  /**
   * A new turn of the worker: the next call checks again that the files are where the drive's path leads (once per
   * turn and index, not per operation: two stats).
   */
  beginTurn(): void {
    this.#linkedThisTurn = false;
  }

  /** Whether the index's files still have names (value-log.ts `linked`). */
  get linked(): boolean {
    return this.#log.linked();
  }

  /** The newest entry of `id` when it is a live record (not deleted, not dropped). */
  #live(id: string): Found | undefined {
    const f = this.#find(id);
    return f === undefined || f.kind === KIND_DELETED ? undefined : f;
  }

  /** Live bytes per segment: a record replaced (or deleted) no longer counts, the new one does. */
  #replaced(before: Found | undefined, now: Place | null): void {
    if (before !== undefined) this.#liveBytes.set(before.place.segment, (this.#liveBytes.get(before.place.segment) ?? 0) - before.place.length);
    if (now !== null) this.#liveBytes.set(now.segment, (this.#liveBytes.get(now.segment) ?? 0) + now.length);
  }

  /** Every live record of `volume` stops counting (it is about to be dropped). */
  #forgetVolume(volume: string): void {
    const prefix = idOf(volume, '');
    const cur = this.#cursor();
    cur.seek(prefix);
    for (let e = cur.next(); e !== undefined && e.id.startsWith(prefix); e = cur.next()) this.#replaced(e.found, null);
  }

  /**
   * Takes back the space of one segment wholly before the manifest's covered position whose live records fill less
   * than half of it (docs/performance.md, twenty-fifth session, "Left"): each record its id's newest entry still points
   * at is written again (an append like a put's; a deletion still in force too), then the segment is deleted. Only
   * segments before the covered position: every deletion and drop written in them is already in a run or the manifest,
   * so replay needs nothing from them. Returns whether a segment was collected.
   */
  collect(): boolean {
    this.#check();
    for (const candidate of this.#log.segmentsBefore(this.#manifest.covered)) {
      if (this.#kept.has(candidate.segment) || (this.#liveBytes.get(candidate.segment) ?? 0) >= candidate.bytes / 2) continue;
      if (this.#collect(candidate.segment)) return true;
      this.#kept.add(candidate.segment);
    }
    return false;
  }

  /** Collects one segment (see collect); false when it holds a bucket's drop the manifest still names. */
  #collect(segment: number): boolean {
    const moving: { kind: number; volume: string; key: string; meta: Buffer | null }[] = [];
    // The oldest segment's deletions go with it: every older record of their keys is in it, so nothing is left for
    // them to hide from a rebuild (without this, deletions would be written again at every collection, for good).
    const oldest = this.#log.oldestSegment() === segment;
    for (const { kind, volume, key, place } of this.#log.records(segment)) {
      if (kind === KIND_DROP_VOLUME) {
        // A bucket's drop stays where it was written (its position decides which entries it hides): a segment holding
        // one the manifest still names is kept.
        if (this.#manifest.drops.some((d) => d.volume === volume)) return false;
        continue;
      }
      const id = idOf(volume, key);
      const f = this.#find(id);
      // A deletion still in force moves too: a rebuild from the log (a damaged run) must not bring back an older record
      // of the key from a segment not collected. In force: its id's newest entry, or no entry at all (a merge into the
      // oldest run leaves deletions out) unless a bucket's drop hides it.
      const deletionInForce = kind !== KIND_META && (f === undefined ? !this.#dropped(id, place) : f.kind === KIND_DELETED && samePlace(f.place, place));
      if (kind === KIND_META ? f === undefined || !samePlace(f.place, place) : !deletionInForce || oldest) continue;
      moving.push({ kind, volume, key, meta: kind === KIND_META ? this.#readMeta(place) : null });
    }
    this.#rewrite(moving);
    this.#log.remove(segment);
    this.#liveBytes.delete(segment);
    return true;
  }

  /** Writes records again (a collection), in one synced write, and points their ids at the new places. */
  #rewrite(records: readonly { kind: number; volume: string; key: string; meta: Buffer | null }[]): void {
    if (records.length === 0) return;
    const places = this.#log.append(records.map((r) => (seed: number) => encodeRecord(r.kind, r.volume, r.key, r.meta, seed)));
    records.forEach((r, i) => {
      const id = idOf(r.volume, r.key);
      if (r.kind === KIND_META) {
        this.#replaced(this.#live(id), places[i]!);
        this.#tableSet(id, { kind: KIND_VALUE, place: places[i]! });
      } else {
        this.#tableSet(id, { kind: KIND_DELETED, place: places[i]! });
      }
    });
  }

  /** Live record bytes per segment (tests). */
  get liveBytes(): ReadonlyMap<number, number> {
    return this.#liveBytes;
  }

  #tableSet(id: string, f: Found): void {
    this.#table.set(id, f);
    this.#sortedIds = null;
  }

  /** Number of entries in the table (not yet flushed). */
  get tableSize(): number {
    return this.#table.size;
  }

  get runCount(): number {
    return this.#runs.length;
  }

  /**
   * Commits `items` durably (one synced write of their records) and indexes them, in order; answers, per item asking
   * for it, the record it replaced (null when none; a later item of the same key sees the earlier one).
   */
  put(items: readonly PutItem[]): (Buffer | null)[] {
    this.#check();
    const places = this.#log.append(items.map((it) => (seed: number) => encodeRecord(KIND_META, it.volume, it.key, it.meta, seed)));
    return items.map((it, i) => {
      const id = idOf(it.volume, it.key);
      const before = this.#live(id);
      const previous = it.previous === true && before !== undefined ? this.#readMeta(before.place) : null;
      this.#replaced(before, places[i]!);
      this.#tableSet(id, { kind: KIND_VALUE, place: places[i]! });
      return previous;
    });
  }

  /** Deletes a key durably; answers the record it had (null when none). */
  delete(volume: string, key: string): Buffer | null {
    this.#check();
    const [place] = this.#log.append([(seed) => encodeRecord(KIND_DROP_KEY, volume, key, null, seed)]);
    const id = idOf(volume, key);
    const before = this.#live(id);
    const previous = before === undefined ? null : this.#readMeta(before.place);
    this.#replaced(before, null);
    this.#tableSet(id, { kind: KIND_DELETED, place: place! });
    return previous;
  }

  /** Drops every key of `volume` durably (a bucket deleted with its contents). */
  dropVolume(volume: string): void {
    this.#check();
    this.#forgetVolume(volume);
    const [place] = this.#log.append([(seed) => encodeRecord(KIND_DROP_VOLUME, volume, '', null, seed)]);
    this.#dropInTable(volume, { gen: this.#log.genOf(place!.segment), offset: place!.offset });
  }

  #dropInTable(volume: string, at: LogPosition): void {
    const prefix = idOf(volume, '');
    for (const id of this.#table.keys()) if (id.startsWith(prefix)) this.#table.delete(id);
    this.#sortedIds = null;
    this.#manifest.drops = [...this.#manifest.drops.filter((d) => d.volume !== volume), { volume, at }];
  }

  /** The key's record, or null. */
  get(volume: string, key: string): Buffer | null {
    this.#check();
    const found = this.#live(idOf(volume, key));
    return found === undefined ? null : this.#readMeta(found.place);
  }

  /** The newest entry of `id`: the table's, else the newest run's that has one; undefined when none (or dropped). */
  #find(id: string): Found | undefined {
    const held = this.#table.get(id);
    if (held !== undefined) return held;
    if (this.#runs.length === 0) return undefined;
    const bytes = Buffer.from(id, 'latin1');
    const [h1, h2] = idHashes(bytes);
    for (let r = this.#runs.length - 1; r >= 0; r--) {
      const f = this.#runs[r]!.reader.find(bytes, id, h1, h2);
      if (f !== undefined) return this.#dropped(id, f.place) ? undefined : f;
    }
    return undefined;
  }

  /** Whether a run's entry is older than a drop of its volume. */
  #dropped(id: string, place: Place): boolean {
    if (this.#manifest.drops.length === 0) return false;
    const gen = this.#log.genOf(place.segment);
    for (const d of this.#manifest.drops) {
      if (id.startsWith(idOf(d.volume, '')) && (gen < d.at.gen || (gen === d.at.gen && place.offset < d.at.offset))) return true;
    }
    return false;
  }

  /** A cursor over the live ids (cursor.ts), from the state the index has now. */
  #cursor(): IndexCursor {
    this.#sortedIds ??= [...this.#table.keys()].sort();
    return new IndexCursor(this.#sortedIds, this.#table, this.#runs.map((r) => r.reader), (id, f) => f.kind === KIND_DELETED || this.#dropped(id, f.place));
  }

  /**
   * The child segments of `dirKey` ("" or a prefix ending in "/") in `volume`: each key directly under it, and each
   * first segment of the deeper keys (a subtree is skipped with one seek once its name is known). In UTF-8 byte order.
   */
  children(volume: string, dirKey: string): string[] {
    this.#check();
    const prefix = idOf(volume, dirKey);
    const cur = this.#cursor();
    cur.seek(prefix);
    const names: string[] = [];
    for (let e = cur.next(); e !== undefined && e.id.startsWith(prefix); e = cur.next()) {
      const rest = e.id.slice(prefix.length);
      const slash = rest.indexOf('/');
      const name = slash < 0 ? rest : rest.slice(0, slash);
      if (names[names.length - 1] !== name) names.push(name);
      // '0' follows '/': the first id past every key under `name/`.
      if (slash >= 0) cur.seek(`${prefix}${name}0`);
    }
    // A name both a key and a directory ("a", then "a!b", then "a/c") comes out twice, apart.
    return [...new Set(names)].map(utf8Of);
  }

  /**
   * Per name (a child segment of `dirKey`): its record when `withMeta` (null when none), and whether keys lie under it.
   * One forward pass over the ids from the first name's to the end of the last subtree, a subtree skipped with one
   * seek once it is known to be there: a listing's batch holds neighbouring names of the directory, so the pass meets
   * little else. The end is not the last name: "a" < "a!b" < "a-" < "a/x", so the keys under the first name of a
   * batch can lie past its last. Two seeks per name (the key, then `name/`) decoded ~2 ids
   * per run and seek, most of the first listing's index-worker time (docs/performance.md, thirtieth session). Names
   * may come in any order and more than once.
   */
  childStates(volume: string, dirKey: string, names: readonly string[], withMeta: boolean): { meta: Buffer | null; children: boolean }[] {
    this.#check();
    const out = names.map(() => ({ meta: null as Buffer | null, children: false }));
    if (names.length === 0) return out;
    const prefix = idOf(volume, dirKey);
    // The names as their ids' last segment (latin1 of UTF-8, byte order), with where each is asked.
    const asked = new Map<string, number[]>();
    names.forEach((name, j) => {
      const seg = idOf(volume, `${dirKey}${name}`).slice(prefix.length);
      const at = asked.get(seg);
      if (at === undefined) asked.set(seg, [j]);
      else at.push(j);
    });
    // Where the asked names' ids begin (the key, then its subtree), in order. Past an asked key the pass steps on; past
    // a subtree or a name not asked it seeks to the next of these (many names between "log" and "log/", such as
    // "log-1" … "log-9999", cost one seek), and ends when none is left.
    const starts = [...asked.keys()].flatMap((seg) => [seg, `${seg}/`]).sort();
    const cur = this.#cursor();
    cur.seek(prefix + starts[0]!);
    for (let e = cur.next(); e !== undefined && e.id.startsWith(prefix); e = cur.next()) {
      const rest = e.id.slice(prefix.length);
      const slash = rest.indexOf('/');
      const at = asked.get(slash < 0 ? rest : rest.slice(0, slash));
      if (at !== undefined && slash < 0) {
        if (withMeta) {
          const meta = this.#readMeta(e.found.place);
          // One read per key; a name asked twice gets its own copy (each answer's memory is moved to the caller).
          at.forEach((j, n) => { out[j]!.meta = n === 0 ? meta : ownCopy(meta); });
        }
        continue;
      }
      if (at !== undefined) for (const j of at) out[j]!.children = true;
      // No start lies inside a subtree (a name holds no '/'): the next one above is past it.
      const next = firstAbove(starts, rest);
      if (next === undefined) break;
      cur.seek(prefix + next);
    }
    return out;
  }

  #readMeta(place: Place): Buffer {
    if (this.#readBuf.length < place.length) this.#readBuf = Buffer.allocUnsafe(place.length);
    const r = this.#log.read(place, this.#readBuf);
    if (r === null) throw new Error(`key index: the record at segment ${place.segment} offset ${place.offset} is damaged`);
    return ownCopy(r.meta);
  }

  /**
   * Writes the table as a run (synced), names it in the manifest with the log position it covers, and merges runs
   * that have grown alike. Nothing to do when the table is empty.
   */
  flush(): void {
    if (this.#table.size === 0) return;
    const covered = this.#log.position();
    const ids = [...this.#table.keys()].sort();
    const b = new RunBuilder(ids.length);
    for (const id of ids) {
      const f = this.#table.get(id)!;
      b.add(Buffer.from(id, 'latin1'), f.kind, f.place);
    }
    const name = this.#writeRun(b);
    this.#runs.push(this.#openRun(name));
    this.#manifest = { ...this.#manifest, runs: this.#runs.map((r) => r.name), covered, live: Object.fromEntries(this.#liveBytes) };
    writeManifest(this.#dir, this.#manifest);
    this.#table = new Map();
    this.#sortedIds = null;
    this.#mergeAlike();
  }

  #writeRun(b: RunBuilder): string {
    const name = this.#nextRunName();
    writeSyncedFile(`${this.#dir}/${name}`, ...b.finish());
    return name;
  }

  #nextRunName(): string {
    return `${RUN_PREFIX}${String(++this.#manifest.runSeq).padStart(8, '0')}`;
  }

  /** Size-tiered: the newest FAN_IN runs are merged while the oldest of them is at most FAN_IN times the newest. */
  #mergeAlike(): void {
    for (;;) {
      const n = this.#runs.length;
      if (n < FAN_IN) return;
      const oldest = this.#runs[n - FAN_IN]!.reader.dataBytes;
      const newest = this.#runs[n - 1]!.reader.dataBytes;
      if (oldest > FAN_IN * newest) return;
      // A run's offsets are u32 (run-file.ts): runs whose merge could pass 4 GiB stay as they are (lookups check one
      // more run; ~60 million keys each).
      let bytes = 0;
      for (const r of this.#runs.slice(n - FAN_IN)) bytes += r.reader.dataBytes;
      if (bytes > MAX_RUN_BYTES) return;
      this.#merge(n - FAN_IN, FAN_IN);
    }
  }

  /** Merges runs [at, at + count) into one, in their place. */
  #merge(at: number, count: number): void {
    const inputs = this.#runs.slice(at, at + count);
    // Entries a bucket's drop hides go: merges purge a deleted bucket's keys from the runs.
    const hidden = this.#manifest.drops.length === 0 ? undefined : (r: Buffer, e: number): boolean => this.#dropped(entryIdKey(r, e), entryAt(r, e).place);
    const name = this.#nextRunName();
    writeSyncedFileFrom(`${this.#dir}/${name}`, (write) => {
      const b = new RunBuilder(inputs.reduce((a, r) => a + r.reader.count, 0), write);
      mergeEntries(inputs.map((r) => r.reader.entries()), b, at === 0, hidden);
      for (const part of b.finish()) write(part);
    });
    this.#runs.splice(at, count, this.#openRun(name));
    this.#manifest = { ...this.#manifest, runs: this.#runs.map((r) => r.name) };
    writeManifest(this.#dir, this.#manifest);
    for (const r of inputs) {
      closeSync(r.fd);
      unlinkSync(`${this.#dir}/${r.name}`);
    }
  }

  close(): void {
    for (const r of this.#runs) closeSync(r.fd);
    this.#runs = [];
    this.#log.close();
  }
}

function samePlace(a: Place, b: Place): boolean {
  return a.segment === b.segment && a.offset === b.offset;
}
