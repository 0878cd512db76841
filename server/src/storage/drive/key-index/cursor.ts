import { entryAt, entryIdKey, nextEntry, type Found, type RunReader } from './run-file.js';

/**
 * Ordered iteration over a key index (drive-index.ts): the table's ids and every run's, merged, the newest entry of
 * each id winning (the table, then the runs newest first). A listing walks it with `seek` to skip what it does not
 * need (a subtree under a common prefix) and `next` to go on. Ids are latin1 strings of their UTF-8 bytes, so string
 * order is byte order.
 */

interface Source {
  /** The current id, or undefined at the end. */
  id: string | undefined;
  found(): Found;
  advance(): void;
  seek(idKey: string): void;
}

/** The table's entries, from its ids sorted once per cursor. */
class TableSource implements Source {
  id: string | undefined;
  #at = 0;
  readonly ids: readonly string[];
  readonly table: ReadonlyMap<string, Found>;
  constructor(ids: readonly string[], table: ReadonlyMap<string, Found>) {
    this.ids = ids;
    this.table = table;
  }
  found(): Found {
    return this.table.get(this.id!)!;
  }
  advance(): void {
    this.id = this.ids[++this.#at];
  }
  seek(idKey: string): void {
    let lo = 0;
    let hi = this.ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.ids[mid]! < idKey) lo = mid + 1;
      else hi = mid;
    }
    this.#at = lo;
    this.id = this.ids[lo];
  }
}

/** One run's entries, a block at a time. */
class RunSource implements Source {
  id: string | undefined;
  #block = -1;
  #buf: Buffer | undefined;
  #pos = 0;
  readonly run: RunReader;
  constructor(run: RunReader) {
    this.run = run;
  }
  found(): Found {
    return entryAt(this.#buf!, this.#pos);
  }
  advance(): void {
    this.#pos = nextEntry(this.#buf!, this.#pos);
    this.#settle();
  }
  seek(idKey: string): void {
    const b = Math.max(0, this.run.blockOf(idKey));
    if (b !== this.#block) this.#load(b);
    // Forward within the block (a listing's seeks go in key order): on from here, not from the block's start. Scanning
    // from the start decoded ~half a block of ids per seek and run; the first listing after a burst of writes (many
    // small runs) spent most of the index worker's time there (docs/performance.md, twenty-eighth session).
    else if (this.id === undefined || this.id > idKey) this.#pos = 0;
    this.#settle();
    while (this.id !== undefined && this.id < idKey) this.advance();
  }
  #load(b: number): void {
    this.#block = b;
    this.#buf = b < this.run.blockCount ? this.run.block(b) : undefined;
    this.#pos = 0;
  }
  /** Moves past the end of a block into the next one; sets `id`. */
  #settle(): void {
    while (this.#buf !== undefined && this.#pos >= this.#buf.length) this.#load(this.#block + 1);
    this.id = this.#buf === undefined ? undefined : entryIdKey(this.#buf, this.#pos);
  }
}

export class IndexCursor {
  /** Newest first: the table, then the runs from the newest. */
  readonly #sources: Source[];
  readonly #dead: (id: string, f: Found) => boolean;

  /** `dead` says whether an entry no longer counts (a deletion, or older than a drop of its volume). */
  constructor(tableIds: readonly string[], table: ReadonlyMap<string, Found>, runs: readonly RunReader[], dead: (id: string, f: Found) => boolean) {
    this.#sources = [new TableSource(tableIds, table), ...[...runs].reverse().map((r) => new RunSource(r))];
    this.#dead = dead;
  }

  /** Positions every source at the first id at or after `idKey`. */
  seek(idKey: string): void {
    for (const s of this.#sources) s.seek(idKey);
  }

  /** The next live id and its entry (from the current position on), or undefined at the end. */
  next(): { id: string; found: Found } | undefined {
    for (;;) {
      let min: string | undefined;
      for (const s of this.#sources) if (s.id !== undefined && (min === undefined || s.id < min)) min = s.id;
      if (min === undefined) return undefined;
      let winner: Found | undefined;
      for (const s of this.#sources) {
        if (s.id !== min) continue;
        winner ??= s.found();
        s.advance();
      }
      if (!this.#dead(min, winner!)) return { id: min, found: winner! };
    }
  }
}
