import { mkdir, readdir, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDir } from '../../common/index.js';
import { MemorySource, MergedEntries, RangeCursor, runSource, type MergeSource, type StoreCursor } from './record-cursor.js';
import { runJob } from './record-jobs.js';
import { MANIFEST, Run, pad, pickMerge, readManifest, writeManifest, type Manifest, type ManifestRun } from './record-manifest.js';
import { RunReader, bloomHashes, compareIds } from './record-run.js';

export { compareIds } from './record-run.js';
export type { StoreCursor } from './record-cursor.js';

/**
 * A drive's small-object records in one small LSM tree, instead of a metadata file per key (an inode, a temp name
 * and a rename cost ~39 % of a 4 KiB PUT's CPU). Changes go to an in-memory table; the caller flushes it every half
 * second into an immutable sorted run (record-run.ts); background merges keep the runs few and size-tiered, so a
 * record is rewritten O(log n) times. A MANIFEST, replaced atomically, names the live runs (oldest first), the next
 * generation, and the volumes dropped: a run of generation ≤ a drop's holds no live record of that volume, so a
 * bucket's deletion costs one manifest write, and a re-created bucket's later runs are not hidden.
 *
 * Durability is the caller's: what is not flushed is lost in a crash (the commit log replays it). Ids are
 * `${volume}\0${key}` and order in UTF-8 bytes, as S3 lists.
 */

/** A record's id in the store. */
export function recordId(volume: string, key: string): string {
  return `${volume}\0${key}`;
}

/** A drive's record store. Lookups may run concurrently with flushes and merges. */
export class RecordStore {
  readonly #dir: string;
  /** Changes since the last flush (null: deleted). */
  #mem = new Map<string, Buffer | null>();
  /** The changes a flush is writing: still read until its run is in the list. */
  #frozen: Map<string, Buffer | null> | null = null;
  /** Oldest first; replaced, never changed in place (lookups hold the array they started with). */
  #runs: readonly Run[] = [];
  /** Per dropped volume, the generation up to which its records are dropped. */
  readonly #drops: Map<string, number>;
  #nextGen: number;
  /** Flushes, drops and merges' manifest steps, one at a time. */
  #chain: Promise<unknown> = Promise.resolve();
  #merging: Promise<void> | null = null;
  #lastMergeError: unknown;
  /** A manifest was renamed into place but its directory's sync failed: the next flush writes one again. */
  #unsynced = false;
  #closed = false;
  readonly #disposing = new Set<Promise<void>>();

  private constructor(dir: string, manifest: Manifest) {
    this.#dir = dir;
    this.#nextGen = manifest.nextGen;
    this.#drops = new Map(manifest.drops.map((d) => [d.volume, d.gen]));
  }

  /**
   * Opens the store in `dir`, made if missing, but not its parent: a wiped drive must fail (ENOENT), not get its
   * system area back. Files the manifest does not name are what an interrupted flush or merge left: deleted.
   */
  static async open(dir: string): Promise<RecordStore> {
    await mkdir(dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
    const manifest = await readManifest(dir);
    const store = new RecordStore(dir, manifest);
    const runs: Run[] = [];
    try {
      for (const meta of manifest.runs) runs.push(store.#run(meta, await RunReader.open(join(dir, meta.file))));
    } catch (err) {
      await Promise.all(runs.map((r) => r.reader.close().catch(() => undefined)));
      throw err;
    }
    store.#runs = runs;
    const listed = new Set([MANIFEST, ...manifest.runs.map((r) => r.file)]);
    for (const e of await readdir(dir, { withFileTypes: true })) {
      if (!listed.has(e.name) && !e.isDirectory()) await unlink(join(dir, e.name));
    }
    return store;
  }

  /** Runs in the list (tests watch merges with it). */
  get runCount(): number {
    return this.#runs.length;
  }

  /** Entries in memory, flushing ones included. */
  get memtableSize(): number {
    return this.#mem.size + (this.#frozen?.size ?? 0);
  }

  /** Why the last background merge failed (undefined after one succeeded); it is tried again after the next flush. */
  get lastMergeError(): unknown {
    return this.#lastMergeError;
  }

  /** Sets the record of `id` (a copy of `value`: the caller may reuse its buffer). */
  put(id: string, value: Uint8Array): void {
    this.#open();
    this.#mem.set(id, Buffer.from(value));
  }

  /** Deletes the record of `id`: a tombstone, hiding what older runs hold. */
  del(id: string): void {
    this.#open();
    this.#mem.set(id, null);
  }

  /** The change in memory for `id` (null: deleted), or undefined when memory has none. */
  peek(id: string): Buffer | null | undefined {
    const v = this.#mem.get(id);
    return v !== undefined ? v : this.#frozen?.get(id);
  }

  /** The live record of `id`, or null. A damaged block rejects (code ESVCRUN), never answers "absent". */
  async get(id: string): Promise<Buffer | null> {
    this.#open();
    const held = this.peek(id);
    if (held !== undefined) return held;
    const runs = this.#runs;
    if (runs.length === 0) return null;
    const dropped = this.#droppedUpTo(id);
    const key = Buffer.from(id, 'utf8');
    const hashes = bloomHashes(key);
    for (const r of runs) r.acquire();
    try {
      // Newest first; runs are in generation order, so once one is dropped so are all older ones.
      for (let i = runs.length - 1; i >= 0 && runs[i]!.gen > dropped; i--) {
        const r = runs[i]!;
        if (!r.reader.mayContain(key, hashes)) continue;
        const got = await r.reader.get(key);
        if (got !== undefined) return got.value;
      }
      return null;
    } finally {
      for (const r of runs) r.release();
    }
  }

  /** False when the store surely holds nothing for `id` (neither a record nor a deletion): a cheap check, sync. */
  mayHave(id: string): boolean {
    if (this.peek(id) !== undefined) return true;
    const dropped = this.#droppedUpTo(id);
    const key = Buffer.from(id, 'utf8');
    const hashes = bloomHashes(key);
    return this.#runs.some((r) => r.gen > dropped && r.reader.mayContain(key, hashes));
  }

  /** The live records with lower ≤ id < upper, in UTF-8 byte order, as of now; to be closed. */
  cursor(lower: string, upper: string): StoreCursor {
    this.#open();
    const sources: MergeSource[] = [new MemorySource(this.#mem, lower, upper)];
    if (this.#frozen !== null) sources.push(new MemorySource(this.#frozen, lower, upper));
    const runs = this.#runs;
    for (let i = runs.length - 1; i >= 0; i--) {
      runs[i]!.acquire();
      sources.push(runSource(runs[i]!.reader.cursor(lower), runs[i]!.gen));
    }
    const drops = new Map(this.#drops);
    const hidden = (id: string, gen: number): boolean => drops.size > 0 && gen <= droppedUpTo(drops, id);
    return new RangeCursor(new MergedEntries(sources), upper, hidden, () => {
      for (const r of runs) r.release();
    });
  }

  /**
   * Writes the memtable to a new synced run and names it in the manifest. On failure (ENOSPC, EIO, a wiped drive's
   * ENOENT) nothing is lost: the changes go back to memory, under any made since, and the error is thrown as is.
   */
  flush(): Promise<void> {
    if (this.#closed) return Promise.reject(this.#closedError());
    return this.#exclusive(async () => {
      if (this.#mem.size === 0) {
        if (this.#unsynced) await this.#commit(this.#runs, () => undefined);
        return;
      }
      const snap = this.#mem;
      this.#mem = new Map();
      this.#frozen = snap;
      const gen = this.#nextGen++;
      const file = `run-${pad(gen)}.run`;
      const tmp = join(this.#dir, `run-${pad(gen)}.tmp`);
      let run: Run | undefined;
      let installed = false;
      try {
        const ids = [...snap.keys()].sort(compareIds);
        // Tombstones hide older runs' records: without runs there are none.
        const info = await runJob({ op: 'write', path: tmp, ...memEntries(ids, snap, this.#runs.length > 0) });
        if (info.count === 0) {
          await unlink(tmp);
          this.#frozen = null;
          return;
        }
        await this.#place(tmp, file);
        run = this.#run({ gen, file, size: info.size, count: info.count }, await RunReader.open(join(this.#dir, file)));
        const runs = [...this.#runs, run];
        await this.#commit(runs, () => {
          installed = true;
          this.#runs = runs;
          this.#frozen = null;
        });
      } catch (err) {
        if (!installed) {
          this.#frozen = null;
          for (const [id, v] of snap) if (!this.#mem.has(id)) this.#mem.set(id, v);
          if (run !== undefined) run.retire(true);
          else await Promise.all([tmp, join(this.#dir, file)].map((p) => unlink(p).catch(() => undefined)));
        }
        throw err;
      }
      this.#scheduleMerge();
    });
  }

  /**
   * Drops every record of `volume`, durably once resolved: at once from memory, and for the runs there are now by a
   * drop in the manifest (records written later, a re-created bucket's, stay visible).
   */
  dropVolume(volume: string): Promise<void> {
    if (this.#closed) return Promise.reject(this.#closedError());
    const prefix = `${volume}\0`;
    // nextGen - 1 covers a run a flush is writing now: its changes were made before the drop.
    this.#drops.set(volume, Math.max(this.#drops.get(volume) ?? 0, this.#nextGen - 1));
    for (const table of [this.#mem, this.#frozen]) {
      if (table !== null) for (const id of table.keys()) if (id.startsWith(prefix)) table.delete(id);
    }
    return this.#exclusive(() => this.#commit(this.#runs, () => undefined));
  }

  /** Resolves once no flush, drop or background merge is running (for tests and benchmarks). */
  async idle(): Promise<void> {
    for (;;) {
      await this.#chain;
      if (this.#merging === null) return;
      await this.#merging;
    }
  }

  /** Waits for a running flush or merge, then closes the runs (the memtable is not flushed). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#merging;
    await this.#chain;
    for (const r of this.#runs) r.retire(false);
    this.#runs = [];
    await Promise.all(this.#disposing);
  }

  #open(): void {
    if (this.#closed) throw this.#closedError();
  }

  #closedError(): Error {
    return new Error(`record store ${this.#dir} is closed`);
  }

  #run(meta: ManifestRun, reader: RunReader): Run {
    return new Run(this.#dir, meta, reader, (done) => {
      this.#disposing.add(done);
      void done.then(() => this.#disposing.delete(done));
    });
  }

  /**
   * Gives a written run its name, durably before a manifest names it: without a journal (ext4 -O ^has_journal) the
   * directory's blocks reach the disk in no set order, and a manifest naming a file that a crash lost fails the open.
   */
  async #place(tmp: string, file: string): Promise<void> {
    await rename(tmp, join(this.#dir, file));
    await syncDir(this.#dir);
  }

  #droppedUpTo(id: string): number {
    return this.#drops.size === 0 ? 0 : droppedUpTo(this.#drops, id);
  }

  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.#chain.then(fn);
    this.#chain = p.catch(() => undefined);
    return p;
  }

  /**
   * Replaces the manifest with one naming `runs` (atomically: a synced temp file renamed over it, then the directory
   * synced). `installed` runs once the new manifest is in place, before the directory's sync: if that sync fails
   * the new state is the one on disk, which the caller must then hold too. Drops no run needs any more are left out.
   */
  async #commit(runs: readonly Run[], installed: () => void): Promise<void> {
    const oldest = runs.length === 0 ? Infinity : runs[0]!.gen;
    const drops = [...this.#drops].filter(([, gen]) => gen >= oldest).map(([volume, gen]) => ({ volume, gen }));
    const manifest: Manifest = { version: 1, nextGen: this.#nextGen, runs: runs.map((r) => r.meta), drops };
    await writeManifest(this.#dir, manifest);
    this.#unsynced = true;
    installed();
    for (const [volume, gen] of [...this.#drops]) if (gen < oldest) this.#drops.delete(volume);
    await syncDir(this.#dir);
    this.#unsynced = false;
  }

  #scheduleMerge(): void {
    if (this.#merging !== null || this.#closed) return;
    this.#merging = this.#mergeWhileNeeded().finally(() => {
      this.#merging = null;
    });
  }

  /** Merges until the list is in shape; a failure is kept (lastMergeError) and never thrown: the next flush retries. */
  async #mergeWhileNeeded(): Promise<void> {
    try {
      for (let inputs = pickMerge(this.#runs); inputs !== null && !this.#closed; inputs = pickMerge(this.#runs)) await this.#merge(inputs);
      this.#lastMergeError = undefined;
    } catch (err) {
      this.#lastMergeError = err;
    }
  }

  /**
   * Rewrites adjacent runs as one, of their newest generation (so drops compare with it as before), outside the
   * mutex: runs are immutable and only merges, one at a time, take runs out. Records of dropped volumes go; tombstones
   * go too when the oldest run is merged (nothing older is left for them to hide).
   */
  async #merge(inputs: readonly Run[]): Promise<void> {
    const gen = inputs[inputs.length - 1]!.gen;
    const name = `run-${pad(gen)}-${pad(this.#nextGen++)}`;
    const tmp = join(this.#dir, `${name}.tmp`);
    const file = `${name}.run`;
    const keepTombstones = inputs[0] !== this.#runs[0];
    const drops = new Map(this.#drops);
    for (const r of inputs) r.acquire();
    let out: Run | null | undefined;
    let installed = false;
    let synced = false;
    try {
      const info = await runJob({
        op: 'merge', inputs: inputs.map((r) => ({ path: r.reader.path, gen: r.gen })).reverse(), out: tmp, drops: [...drops], keepTombstones,
      });
      if (this.#closed) throw this.#closedError();
      if (info.count > 0) {
        await this.#place(tmp, file);
        out = this.#run({ gen, file, size: info.size, count: info.count }, await RunReader.open(join(this.#dir, file)));
      } else {
        await unlink(tmp);
        out = null;
      }
      const output = out;
      await this.#exclusive(async () => {
        const at = this.#runs.indexOf(inputs[0]!);
        const runs = [...this.#runs.slice(0, at), ...(output === null ? [] : [output]), ...this.#runs.slice(at + inputs.length)];
        await this.#commit(runs, () => {
          installed = true;
          this.#runs = runs;
        });
        synced = true;
      });
    } catch (err) {
      if (!installed) {
        if (out) out.retire(true);
        else await Promise.all([tmp, join(this.#dir, file)].map((p) => unlink(p).catch(() => undefined)));
      }
      throw err;
    } finally {
      for (const r of inputs) r.release();
      // Out of a manifest that may not be durable yet (its directory's sync failed): the next open deletes them.
      if (installed) for (const r of inputs) r.retire(synced);
    }
  }

}

/**
 * The entries of a flush (record-jobs.ts RunJob): the table's, in `ids` order, tombstones left out when nothing older
 * is there to hide, their values copied into one buffer.
 */
function memEntries(ids: readonly string[], table: ReadonlyMap<string, Buffer | null>, tombstones: boolean): { ids: string[]; ends: Int32Array; data: Uint8Array } {
  const kept: string[] = [];
  let total = 0;
  for (const id of ids) {
    // Gone when a volume was dropped while the flush ran (the drop hides what was written already).
    const value = table.get(id);
    if (value === undefined || (value === null && !tombstones)) continue;
    kept.push(id);
    total += value?.length ?? 0;
  }
  const data = new Uint8Array(total);
  const ends = new Int32Array(kept.length);
  let at = 0;
  kept.forEach((id, i) => {
    const value = table.get(id)!;
    if (value === null) {
      ends[i] = -1;
      return;
    }
    data.set(value, at);
    at += value.length;
    ends[i] = at;
  });
  return { ids: kept, ends, data };
}

/** The generation up to which the volume of `id` is dropped (0: not dropped; generations start at 1). */
function droppedUpTo(drops: ReadonlyMap<string, number>, id: string): number {
  return drops.get(id.slice(0, id.indexOf('\0'))) ?? 0;
}

