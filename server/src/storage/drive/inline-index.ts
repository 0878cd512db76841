import { statSync } from 'node:fs';
import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { syncDirs } from './dir-sync.js';

/**
 * Where a drive keeps its inline objects' metadata records (README "Small objects"; docs/performance.md, thirteenth
 * session): one LMDB database per drive, in `.svc.sys/index/`, keyed by `<volume>\0<key>` (UTF-8: LMDB's byte order is
 * S3's listing order), instead of a directory and a file per key.
 *
 * Why: a directory, a file and their write-back per key and drive cost two thirds of a 4 KiB PUT's CPU (issue 9;
 * docs/performance.md, eleventh session). LMDB's writes of one moment share one transaction, written and synced
 * (fdatasync) by its own thread, so the records of many PUTs cost one sync per drive. The records stay off the V8 heap
 * (issue 9: the object index never lives on it): reads come from LMDB's memory map.
 *
 * Durability: a write resolves once its transaction is flushed (`separateFlushed`). `overlappingSync` keeps the
 * previous transaction's root until the next one is flushed, and `safeRestore` makes the database start from the last
 * flushed transaction, never from one the kernel may not have written: a power cut loses nothing acknowledged and
 * cannot leave a half-written tree (`server/src/storage/drive/crash-durability.test.ts`).
 *
 * A record here wins over a metadata file of the same key (local-drive.ts keeps at most one of them, and a crash
 * between the two steps of a change leaves the index's side, which is either the old or the new object).
 */

const DATA_FILE = 'data.mdb';
/** Larger than every inline record of a small object (~2.6 KiB for 4 KiB on EC 2+2), so it stays in its leaf page. */
const PAGE_SIZE = 8192;
const SLASH = 0x2f;
/** The byte after '/': the first key past every `<segment>/…`. */
const AFTER_SLASH = Buffer.from([0x30]);
/** Never in UTF-8: past every key of a prefix. */
const LAST = Buffer.from([0xff]);
/** Keys removed per transaction when a bucket goes. */
const REMOVE_CHUNK = 10_000;

/** What the index holds for one child segment of a key directory. */
export interface IndexChild {
  /** A record of `<dirKey><segment>` itself. */
  meta: boolean;
  /** Records of keys below `<dirKey><segment>/`. */
  deeper: boolean;
}

const indexes = new Map<string, InlineIndex>();

/**
 * A failed commit (a full disk) makes lmdb-js 3.5 reject promises no caller holds (write.js: rejectCommit's promise
 * for the writes queued behind, and `commitError`), and an unhandled rejection ends the process. Those alone are
 * dropped here: the writes' own promises carry the error to their callers (#write). Any other unhandled rejection is
 * thrown again, which ends the process as it would without a handler.
 */
let guarded = false;
function guardCommitFailures(): void {
  if (guarded) return;
  guarded = true;
  process.on('unhandledRejection', (reason) => {
    if (isLmdbCommitFailure(reason)) return;
    throw reason;
  });
}

function isLmdbCommitFailure(reason: unknown): boolean {
  if (!(reason instanceof Error)) return false;
  if ('commitError' in reason) return true;
  return typeof (reason as { code?: unknown }).code === 'number' && /[/\\]lmdb[/\\]/.test(reason.stack ?? '');
}

/** The inline index of the drive whose system directory is `sys` (one per drive in a process, like its change log). */
export function inlineIndexFor(sys: string): InlineIndex {
  let index = indexes.get(sys);
  if (index === undefined) {
    index = new InlineIndex(sys);
    indexes.set(sys, index);
  }
  return index;
}

export class InlineIndex {
  readonly #sys: string;
  readonly #dir: string;
  #db: RootDatabase | null = null;
  /** Inode of the open database file: another one at its path is another drive (wiped, replaced). */
  #ino = -1;
  /** The file was checked in this turn of the event loop. */
  #checked = false;
  /** The new database's names synced (once, before its first write counts). */
  #created: Promise<void> | null = null;
  /** Per volume: changes so far (listing stamps, local-listing.ts), from a base no earlier process used. */
  readonly #gens = new Map<string, number>();
  readonly #base = Date.now();

  constructor(sys: string) {
    this.#sys = sys;
    this.#dir = join(sys, 'index');
  }

  /**
   * The database, or null when this drive has none: never created, or its file is gone or another one (the drive was
   * wiped or replaced under this process). Checked once per turn of the event loop: a stat answered from the kernel's
   * name cache, where a read of a metadata file would be a thread-pool round trip.
   */
  #open(create: boolean): RootDatabase | null {
    if (this.#db !== null && this.#checked) return this.#db;
    try {
      return this.#reopen(create);
    } catch (err) {
      throw indexError(err);
    }
  }

  #reopen(create: boolean): RootDatabase | null {
    const st = statSync(join(this.#dir, DATA_FILE), { throwIfNoEntry: false });
    if (this.#db !== null) {
      if (st !== undefined && st.ino === this.#ino) {
        this.#markChecked();
        return this.#db;
      }
      const old = this.#db;
      this.#db = null;
      this.#created = null;
      void old.close().catch(() => undefined);
    }
    // A drive whose system area is gone (wiped) must fail its writes, not get an index back (local-drive.ts).
    if (st === undefined && (!create || statSync(join(this.#sys, 'tmp'), { throwIfNoEntry: false }) === undefined)) return null;
    guardCommitFailures();
    // `safeRestore` is an option of lmdb-js's native side its types leave out (open.js).
    const db = open({
      path: this.#dir, encoding: 'binary', keyEncoding: 'binary', pageSize: PAGE_SIZE,
      separateFlushed: true, overlappingSync: true, ...{ safeRestore: true },
    });
    this.#db = db;
    this.#ino = statSync(join(this.#dir, DATA_FILE)).ino;
    // ext4 without a journal: the new files' and directory's names are durable only once their directories are synced.
    if (st === undefined) this.#created = syncDirs([this.#dir, this.#sys]);
    this.#markChecked();
    return db;
  }

  #markChecked(): void {
    this.#checked = true;
    setImmediate(() => { this.#checked = false; });
  }

  /**
   * Drops this process's read snapshot: the next read sees every transaction committed so far. lmdb-js renews its
   * snapshot once per turn of the event loop, so a read later in the same turn may not see a commit that finished
   * in between (LocalDrive.readMeta and the listing need it when a record moves from its file to the index).
   */
  refresh(): void {
    this.#db?.resetReadTxn();
  }

  /** The record of `key`, or undefined. */
  get(volume: string, key: string): Buffer | undefined {
    const db = this.#open(false);
    if (db === null) return undefined;
    try {
      return db.get(entryKey(volume, key)) as Buffer | undefined;
    } catch (err) {
      throw indexError(err);
    }
  }

  /** Stores the record of `key`; resolves once it is on stable storage. */
  async put(volume: string, key: string, meta: Uint8Array): Promise<void> {
    const db = this.#open(true);
    if (db === null) throw Object.assign(new Error('the drive has no system area'), { code: 'ENOENT', errno: -2 });
    if (this.#created !== null) await this.#created;
    await this.#write(volume, db.put(entryKey(volume, key), meta));
  }

  /** Removes the record of `key` (durably) when there is one; tells whether there was. */
  async remove(volume: string, key: string): Promise<boolean> {
    const db = this.#open(false);
    if (db === null) return false;
    const k = entryKey(volume, key);
    if (!db.doesExist(k)) return false;
    await this.#write(volume, db.remove(k));
    return true;
  }

  /** Removes every record of `volume`, durably. */
  async removeVolume(volume: string): Promise<void> {
    const db = this.#open(false);
    if (db === null) return;
    const prefix = Buffer.from(`${volume}\0`, 'utf8');
    for (;;) {
      const keys = [...db.getKeys({ start: prefix, end: Buffer.concat([prefix, LAST]), limit: REMOVE_CHUNK })] as Buffer[];
      if (keys.length === 0) return;
      let last: Promise<boolean> | undefined;
      for (const k of keys) last = db.remove(k);
      await this.#write(volume, last!);
    }
  }

  /** A number that changes whenever a record of `volume` changes (this process's listing stamps). */
  gen(volume: string): number {
    return this.#base + (this.#gens.get(volume) ?? 0);
  }

  /**
   * A write's promise resolves at commit, when readers see it; `flushed` (separateFlushed) once it is synced. The
   * volume's stamp moves at the commit: a listing that read before it holds the earlier stamp.
   */
  async #write(volume: string, p: Promise<boolean>): Promise<void> {
    const flushed = (p as Promise<boolean> & { flushed?: Promise<void> }).flushed;
    // Settled by lmdb-js on its own; a failed commit must reach the caller, never the process as an unhandled rejection.
    flushed?.catch(() => undefined);
    try {
      await p;
      this.#gens.set(volume, (this.#gens.get(volume) ?? 0) + 1);
      await flushed;
    } catch (err) {
      // lmdb-js rejects each write of a failed commit with a generic error whose `commitError` promise holds the
      // cause (a full disk: ENOSPC); that promise is rejected too and nothing else handles it.
      const cause = (err as { commitError?: Promise<unknown> }).commitError;
      throw indexError(cause === undefined ? err : await cause.then(() => err, (e: unknown) => e));
    }
  }

  /** The child segments of `dirKey` ('' or ending in '/') that records exist for, at or below them. */
  children(volume: string, dirKey: string): Map<string, IndexChild> {
    const out = new Map<string, IndexChild>();
    const db = this.#open(false);
    if (db === null) return out;
    const prefix = Buffer.from(`${volume}\0${dirKey}`, 'utf8');
    const end = Buffer.concat([prefix, LAST]);
    let start = prefix;
    scan: for (;;) {
      for (const k of db.getKeys({ start, end }) as Iterable<Buffer>) {
        const rest = k.subarray(prefix.length);
        const slash = rest.indexOf(SLASH);
        const name = (slash < 0 ? rest : rest.subarray(0, slash)).toString('utf8');
        const c = out.get(name) ?? { meta: false, deeper: false };
        out.set(name, c);
        if (slash < 0) {
          c.meta = true;
          continue;
        }
        c.deeper = true;
        // Everything under `<segment>/` says the same: skip past it.
        start = Buffer.concat([prefix, rest.subarray(0, slash), AFTER_SLASH]);
        continue scan;
      }
      return out;
    }
  }

  /** What the index holds for `<dirKey><name>`: its record (or undefined) and whether keys below it exist. */
  child(volume: string, dirKey: string, name: string): { meta: Buffer | undefined; deeper: boolean } {
    const db = this.#open(false);
    if (db === null) return { meta: undefined, deeper: false };
    const k = entryKey(volume, `${dirKey}${name}`);
    const below = Buffer.concat([k, Buffer.from([SLASH])]);
    let deeper = false;
    for (const _ of db.getKeys({ start: below, end: Buffer.concat([k, AFTER_SLASH]), limit: 1 })) deeper = true;
    return { meta: db.get(k) as Buffer | undefined, deeper };
  }

  /** Every record of `volume`, in key order (tests: what a drive holds, byte for byte). */
  *records(volume: string): Generator<[string, Buffer]> {
    const db = this.#open(false);
    if (db === null) return;
    const prefix = Buffer.from(`${volume}\0`, 'utf8');
    for (const { key, value } of db.getRange({ start: prefix, end: Buffer.concat([prefix, LAST]) }) as Iterable<{ key: Buffer; value: Buffer }>) {
      yield [key.subarray(prefix.length).toString('utf8'), Buffer.from(value)];
    }
  }
}

/**
 * LMDB's errors as the fs errors the drive maps (DriveLayout.mapError): a full disk is ENOSPC, anything else the
 * index failing (EIO: a faulty drive).
 */
export function indexError(err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  const code = /ENOSPC|No space|MDB_MAP_FULL/i.test(message) ? 'ENOSPC' : 'EIO';
  return Object.assign(new Error(`inline index: ${message}`, { cause: err }), { code, errno: code === 'ENOSPC' ? -28 : -5 });
}

function entryKey(volume: string, key: string): Buffer {
  return Buffer.from(`${volume}\0${key}`, 'utf8');
}
