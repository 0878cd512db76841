import { compareIds, type RunCursor, type RunEntry } from './record-run.js';

/**
 * The merged, ordered views of a record store (record-store.ts): its memtables and runs read side by side, the newest
 * source deciding for an id. Both a listing's cursor and a background merge read through {@link MergedEntries}.
 */

/** One source of a merge, in order; `gen` is its run's generation (what a volume's drop compares with). */
export interface MergeSource {
  readonly gen: number;
  next(): Promise<RunEntry | undefined> | RunEntry | undefined;
  seek(id: string): void;
}

/** An entry as the merge decided it: the newest source's, with that source's generation. */
export interface MergedEntry {
  id: string;
  value: Buffer | null;
  gen: number;
}

/** The live records of a store between two ids, in UTF-8 byte order. */
export interface StoreCursor {
  next(): Promise<{ id: string; value: Buffer } | undefined>;
  /** Jumps forward to the first id ≥ `id` (to skip a whole sub-prefix); never back. */
  seek(id: string): void;
  /** Releases the runs the cursor holds open; required unless `next` returned undefined. */
  close(): Promise<void>;
}

/** A memtable's entries in [lower, upper), sorted when the source is made: later changes do not show. */
export class MemorySource implements MergeSource {
  readonly gen = Infinity;
  readonly #entries: [string, Buffer | null][] = [];
  #at = 0;

  constructor(table: ReadonlyMap<string, Buffer | null>, lower: string, upper: string) {
    for (const e of table) if (compareIds(e[0], lower) >= 0 && compareIds(e[0], upper) < 0) this.#entries.push(e);
    this.#entries.sort((a, b) => compareIds(a[0], b[0]));
  }

  next(): RunEntry | undefined {
    const e = this.#entries[this.#at];
    if (e === undefined) return undefined;
    this.#at++;
    return { id: e[0], value: e[1] };
  }

  seek(id: string): void {
    let lo = this.#at;
    let hi = this.#entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareIds(this.#entries[mid]![0], id) < 0) lo = mid + 1;
      else hi = mid;
    }
    this.#at = lo;
  }
}

/** A run's cursor as a merge source. */
export function runSource(cursor: RunCursor, gen: number): MergeSource {
  return { gen, next: () => cursor.next(), seek: (id) => cursor.seek(id) };
}

/**
 * A k-way merge of sources given newest first: each id once, from the newest source holding it (tombstones
 * included). A linear minimum over the heads: a store has a dozen sources at most.
 */
export class MergedEntries {
  readonly #sources: readonly MergeSource[];
  readonly #heads: (RunEntry | undefined)[];
  readonly #ended: boolean[];
  #target: string | null = null;

  constructor(sources: readonly MergeSource[]) {
    this.#sources = sources;
    this.#heads = sources.map(() => undefined);
    this.#ended = sources.map(() => false);
  }

  seek(id: string): void {
    if (this.#target === null || compareIds(id, this.#target) > 0) this.#target = id;
  }

  async next(): Promise<MergedEntry | undefined> {
    const heads = this.#heads;
    const target = this.#target;
    this.#target = null;
    const pending: Promise<void>[] = [];
    for (let i = 0; i < heads.length; i++) {
      if (this.#ended[i]) continue;
      if (target !== null && heads[i] !== undefined && compareIds(heads[i]!.id, target) < 0) heads[i] = undefined;
      if (heads[i] !== undefined) continue;
      if (target !== null) this.#sources[i]!.seek(target);
      const got = this.#sources[i]!.next();
      if (got instanceof Promise) pending.push(got.then((e) => this.#setHead(i, e)));
      else this.#setHead(i, got);
    }
    if (pending.length > 0) await Promise.all(pending);
    let win = -1;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i];
      if (h !== undefined && (win < 0 || compareIds(h.id, heads[win]!.id) < 0)) win = i;
    }
    if (win < 0) return undefined;
    const { id, value } = heads[win]!;
    for (let i = win; i < heads.length; i++) if (heads[i]?.id === id) heads[i] = undefined;
    return { id, value, gen: this.#sources[win]!.gen };
  }

  #setHead(i: number, e: RunEntry | undefined): void {
    this.#heads[i] = e;
    if (e === undefined) this.#ended[i] = true;
  }
}

/** A merge read up to `upper`, tombstones and `hidden` records (a dropped volume's) left out. */
export class RangeCursor implements StoreCursor {
  readonly #merged: MergedEntries;
  readonly #upper: string;
  readonly #hidden: (id: string, gen: number) => boolean;
  #release: (() => void) | null;

  constructor(merged: MergedEntries, upper: string, hidden: (id: string, gen: number) => boolean, release: () => void) {
    this.#merged = merged;
    this.#upper = upper;
    this.#hidden = hidden;
    this.#release = release;
  }

  async next(): Promise<{ id: string; value: Buffer } | undefined> {
    while (this.#release !== null) {
      const e = await this.#merged.next();
      if (e === undefined || compareIds(e.id, this.#upper) >= 0) break;
      if (e.value !== null && !this.#hidden(e.id, e.gen)) return { id: e.id, value: e.value };
    }
    await this.close();
    return undefined;
  }

  seek(id: string): void {
    this.#merged.seek(id);
  }

  close(): Promise<void> {
    const release = this.#release;
    this.#release = null;
    release?.();
    return Promise.resolve();
  }
}
