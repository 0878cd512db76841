import { randomInt } from 'node:crypto';
import { mkdir, open, readdir, readFile, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { constants, writev } from 'node:fs';
import { syncDir } from '../../common/index.js';
import { KIND_DROP_KEY, KIND_DROP_VOLUME, KIND_META, USE_HEADER_BYTES, encodeRecord, encodeUseHeader, recordsToReplay, type LogRecord } from './commit-log-record.js';
import { syncFileSystem } from './sync-fs.js';

export type { LogRecord } from './commit-log-record.js';

/**
 * A drive's commit log: how a small object's commit becomes durable with a share of one sync instead of a sync of
 * its own (README "Small objects' durability"; docs/performance.md, eleventh session).
 *
 * Before, every inline commit wrote its metadata file with O_DSYNC, on every drive: four synced files per 4 KiB PUT
 * on one device, and that kernel work bounded small PUTs at ~1,000/s here. Now the commit's metadata record is
 * appended to this log and the metadata file is written next to it without a sync; the appends of one moment share
 * one O_DSYNC write (group commit), and the commit answers once both are done. Every half second (CHECKPOINT_MS) a
 * checkpoint makes the written files durable with one syncfs (sync-fs.ts) and voids the log they were in (its header
 * overwritten; the file is then written again from its start: `checkpoint` says why). A crash loses at most unsynced
 * files whose records are still in a log: the next process replays those logs before the drive is used (`ready`), and
 * deletes them.
 *
 * Replay must never bring back something older than what a later change left. So a key whose record is still in a
 * log (pending) gets a "dropped" record, synced, before anything else changes it (a delete, a large object's commit,
 * a bucket deleted: `drop`, `dropVolume`); replay applies the last record of each key unless it is such a drop.
 * A key stops being pending only once the log holding its record is voided, synced, so a log can never be replayed
 * after a crash with records a later change superseded.
 */

/**
 * How long written files may stay unsynced (and their records in a log). 500 ms, not 1 s: on ext4 with its journal
 * (as deployed) 4 KiB PUTs at 16 in flight went 5-7 % faster at 4-6 % less server CPU each; without the journal (this
 * machine's root file system) no difference; 4 s was 3-6 % slower (`npm run bench:ab [--no-journal]`, three pairs
 * each; docs/performance.md, twentieth session).
 */
export const CHECKPOINT_MS = 500;
const LOG_DIR = 'log';
/** Voided log files kept for reuse per drive: a checkpoint retires one file at a time (two after a failed one). */
const KEPT_FILES = 2;
/**
 * A voided log file larger than this is deleted, not kept: a file grows to what one use held, and a use lasts as long
 * as its checkpoint takes (a slow disk's syncfs, seconds), so a file that grew past ~6,000 small records (16 MiB at
 * 2.5 KiB each) would keep that space taken for good.
 */
export const KEPT_FILE_MAX_BYTES = 16 * 1024 * 1024;
const LOG_SUFFIX = '.log';

/**
 * One log file being written: group commit of the appends that arrive while the previous write syncs. `fh` must be
 * opened with O_DSYNC. Writes are positional: a file is reused after its checkpoint, overwritten from its start
 * (`begin`; CommitLog.checkpoint says why). (Also what the bench's ceiling server appends with:
 * server/bench/ceiling-server.ts.)
 */
export class LogFile {
  gen: number;
  readonly path: string;
  /** Seed of this use's record CRCs (commit-log-record.ts); 0 without a use header (the ceiling server's files). */
  seed = 0;
  readonly #fh: FileHandle;
  #offset = 0;
  /** The most bytes a use of this file wrote (its size, as far as this process wrote it). */
  #size = 0;
  /** This use's header, written with its first records. */
  #header: Buffer | null = null;
  #queue: { data: Buffer; resolve(): void; reject(err: Error): void }[] = [];
  #flushing = false;
  /** The write that failed: nothing more is written to this file (the bytes after a failed write are unknown). */
  #failed: Error | undefined;
  /** Commits and drops not finished (their apply or their append). */
  inflight = 0;
  #drained: (() => void) | undefined;

  constructor(gen: number, path: string, fh: FileHandle) {
    this.gen = gen;
    this.path = path;
    this.#fh = fh;
  }

  /** Starts a use of the file: written from offset 0, `header` first (commit-log-record.ts encodeUseHeader). */
  begin(gen: number, header: Buffer, seed: number): void {
    this.gen = gen;
    this.seed = seed;
    this.#header = header;
    this.#offset = 0;
  }

  /** How large the file is (what this process wrote to it). */
  get size(): number {
    return this.#size;
  }

  /** A write failed: the file takes no more (CommitLog puts a new one in its place). */
  get broken(): boolean {
    return this.#failed !== undefined;
  }

  append(data: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.#failed !== undefined) {
        reject(this.#failed);
        return;
      }
      this.#queue.push({ data, resolve, reject });
      if (!this.#flushing) {
        this.#flushing = true;
        // Appends made in this turn of the event loop share the first write.
        setImmediate(() => void this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue;
      this.#queue = [];
      if (this.#failed !== undefined) {
        for (const b of batch) b.reject(this.#failed);
        continue;
      }
      const bufs = batch.map((b) => b.data);
      if (this.#header !== null) bufs.unshift(this.#header);
      const at = this.#offset;
      try {
        // O_DSYNC (CommitLog.#openNext): the write returns once its bytes (and the file's new size, when it grew) are
        // on stable storage.
        // fs.writev with a callback, not FileHandle.writev: the promise API's bookkeeping cost the event loop ~8 µs more
        // per call (33.6 against 24.6 µs to submit a write, scratch loop); 4 KiB PUTs at 16 in flight: 2-5 % less
        // server CPU each, PUTs/s +1-5 % in warm rounds (`npm run bench:ab`, with and without the journal).
        let total = 0;
        for (const b of bufs) total += b.length;
        await new Promise<void>((resolve, reject) => {
          writev(this.#fh.fd, bufs, at, (err, written) => {
            if (err !== null) reject(err);
            // A full file system can take part of a write and answer with its length, not an error: the records cut
            // short would end the replay there, so the write counts as failed.
            else if (written !== total) reject(Object.assign(new Error(`ENOSPC: short write to the commit log (${written} of ${total} bytes)`), { code: 'ENOSPC', errno: -28 }));
            else resolve();
          });
        });
        this.#header = null;
        this.#offset += total;
        if (this.#offset > this.#size) this.#size = this.#offset;
        for (const b of batch) b.resolve();
      } catch (err) {
        this.#failed = err as Error;
        for (const b of batch) b.reject(err as Error);
      }
    }
    this.#flushing = false;
  }

  done(): void {
    this.inflight--;
    if (this.inflight === 0) this.#drained?.();
  }

  /** Resolves once nothing is in flight on this file (no new work comes: it is no longer the current file). */
  drain(): Promise<void> {
    if (this.inflight === 0) return Promise.resolve();
    return new Promise((resolve) => { this.#drained = resolve; });
  }

  /**
   * Ends this use for replay: its header overwritten with zeros, synced (O_DSYNC). Nothing to do when the use wrote
   * nothing (the file then still starts with an earlier use's voided header, or is empty).
   */
  async void(): Promise<void> {
    // After a failed write the file may hold part of it: voided whatever was written.
    if (this.#failed === undefined && (this.#header !== null || this.#offset === 0)) return;
    await this.#fh.write(Buffer.alloc(USE_HEADER_BYTES), 0, USE_HEADER_BYTES, 0);
  }

  /** Whether the file still has a name (a wiped drive's files are gone: writes to them would reach no replay). */
  async linked(): Promise<boolean> {
    return this.#fh.stat().then((s) => s.nlink > 0, () => false);
  }

  close(): Promise<void> {
    return this.#fh.close();
  }
}

const logs = new Map<string, CommitLog>();

/** The commit log of the drive at `root` (one per root in a process, like its change log). */
export function commitLogFor(root: string, sysDir: string, replay: (r: LogRecord) => Promise<void>): CommitLog {
  let log = logs.get(root);
  if (log === undefined) {
    log = new CommitLog(root, join(sysDir, LOG_DIR), replay);
    logs.set(root, log);
  }
  return log;
}

export class CommitLog {
  readonly #root: string;
  readonly #dir: string;
  readonly #replay: (r: LogRecord) => Promise<void>;
  #ready: Promise<boolean> | undefined;
  #device = '';
  #gen = 0;
  /** Names this process's uses of its log files (commit-log-record.ts encodeUseHeader). */
  readonly #epoch = randomInt(2 ** 32);
  #file: Promise<LogFile> | undefined;
  /** The file `#file` resolved to. */
  #currentFile: LogFile | undefined;
  /** Files whose use ended but is not yet voided (a checkpoint failed half-way, or a write): done by the next one. */
  #retired: LogFile[] = [];
  /** Voided files, kept open for the next uses (CommitLog.checkpoint). */
  #free: LogFile[] = [];
  /** Key id → generation of the newest log file holding a record of it. */
  readonly #pending = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #checkpointing = false;

  constructor(root: string, dir: string, replay: (r: LogRecord) => Promise<void>) {
    this.#root = root;
    this.#dir = dir;
    this.#replay = replay;
  }

  /**
   * Replays the logs an earlier process left (once; again after a failure) and tells whether the log can be used:
   * false when the file system cannot be synced as a whole here (no `sync` command), and commits stay synced one by one.
   */
  ready(): Promise<boolean> {
    this.#ready ??= this.#recover().catch((err: unknown) => {
      this.#ready = undefined;
      throw err;
    });
    return this.#ready;
  }

  async #recover(): Promise<boolean> {
    this.#device = String((await stat(this.#root)).dev);
    const names = await this.#logNames();
    const bufs = await Promise.all(names.map((n) => readFile(join(this.#dir, n))));
    // The replay's writes are synced one by one (the caller's classic commit): replay does not depend on syncfs.
    for (const r of recordsToReplay(bufs)) await this.#replay(r);
    for (const n of names) await unlink(join(this.#dir, n));
    try {
      await syncFileSystem(this.#root, this.#device);
      return true;
    } catch {
      return false;
    }
  }

  async #logNames(): Promise<string[]> {
    try {
      return (await readdir(this.#dir)).filter((n) => n.endsWith(LOG_SUFFIX)).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }

  /**
   * Commits a key's metadata `meta`: its record appended (durable once this resolves) while `apply` writes the
   * metadata file without a sync. When `apply` fails, the record is dropped again (replay must not redo a commit
   * that failed here), and the error is thrown.
   */
  async commit(volume: string, key: string, meta: Uint8Array, apply: () => Promise<void>): Promise<void> {
    const file = await this.#acquire();
    const id = `${volume}\0${key}`;
    this.#pending.set(id, file.gen);
    try {
      const [wrote, applied] = await Promise.allSettled([file.append(encodeRecord(KIND_META, volume, key, meta, file.seed)), apply()]);
      if (applied.status === 'rejected') {
        await file.append(encodeRecord(KIND_DROP_KEY, volume, key, null, file.seed)).catch(() => undefined);
        throw applied.reason;
      }
      if (wrote.status === 'rejected') throw wrote.reason;
    } finally {
      file.done();
      this.#schedule();
    }
  }

  /**
   * Before `key` is changed another way: a synced record that replay must not bring its logged commit back. Waits for
   * the replay of earlier logs first (a peer's call may reach a drive before its node opened it): a change made
   * before that replay would be undone by it.
   */
  async drop(volume: string, key: string): Promise<void> {
    await this.ready();
    if (!this.#pending.has(`${volume}\0${key}`)) return;
    await this.#appendDrop(KIND_DROP_KEY, volume, key);
  }

  /** Before a whole volume goes: its pending keys' records must not come back either. */
  async dropVolume(volume: string): Promise<void> {
    await this.ready();
    const prefix = `${volume}\0`;
    let any = false;
    for (const id of this.#pending.keys()) if (id.startsWith(prefix)) { any = true; break; }
    if (any) await this.#appendDrop(KIND_DROP_VOLUME, volume, '');
  }

  async #appendDrop(kind: number, volume: string, key: string): Promise<void> {
    const file = await this.#acquire();
    try {
      await file.append(encodeRecord(kind, volume, key, null, file.seed));
    } finally {
      file.done();
      this.#schedule();
    }
  }

  /**
   * The file new records go to, with a commit counted in flight on it (the caller calls `done`). Counted in the same
   * step that checks the file is still current: a checkpoint retires the current file synchronously, then waits for
   * what is in flight on it before it syncs and voids it, so no record lands in a file being voided or reused. A file
   * whose write failed is retired (the checkpoint voids it) and another one opened.
   */
  async #acquire(): Promise<LogFile> {
    for (;;) {
      const file = this.#currentFile ?? await this.#opened();
      if (file !== this.#currentFile) continue;
      if (file.broken) {
        this.#file = undefined;
        this.#currentFile = undefined;
        this.#retired.push(file);
        continue;
      }
      file.inflight++;
      return file;
    }
  }

  #opened(): Promise<LogFile> {
    if (this.#file === undefined) {
      const opening: Promise<LogFile> = this.#openNext().then((f) => {
        // Unless a checkpoint retired it while it opened.
        if (this.#file === opening) this.#currentFile = f;
        return f;
      }, (err: unknown) => {
        if (this.#file === opening) this.#file = undefined;
        throw err;
      });
      this.#file = opening;
    }
    return this.#file;
  }

  /**
   * The next use of a log file: a voided one reused (checkpoint), else a new file, its directory entry synced before
   * its first record counts (ext4 without a journal needs that). Files are named by the generation of their first
   * use; replay orders uses by the generation in their headers.
   */
  async #openNext(): Promise<LogFile> {
    const gen = ++this.#gen;
    const { header, seed } = encodeUseHeader(this.#epoch, gen);
    for (let f = this.#free.pop(); f !== undefined; f = this.#free.pop()) {
      if (await f.linked()) {
        f.begin(gen, header, seed);
        return f;
      }
      await f.close().catch(() => undefined);
    }
    // Not recursive: a wiped drive (no system area) must fail its writes, not get a system area back.
    await mkdir(this.#dir).catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    });
    const path = join(this.#dir, `${String(gen).padStart(9, '0')}-${Date.now()}${LOG_SUFFIX}`);
    // One call per group instead of write + fdatasync (two thread-pool round trips). Not O_APPEND: writes are positional.
    const fh = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_DSYNC);
    try {
      await syncDir(this.#dir);
    } catch (err) {
      await fh.close();
      await unlink(path).catch(() => undefined);
      throw err;
    }
    const file = new LogFile(gen, path, fh);
    file.begin(gen, header, seed);
    return file;
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#checkpointing) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.checkpoint();
    }, CHECKPOINT_MS);
    // A process may exit with records still logged: the next one replays them.
    this.#timer.unref();
  }

  /**
   * Makes every commit so far durable without its record: the current file's use ends (new commits start the next
   * one), its commits finish, the file system is synced, and the use is voided: its header overwritten, synced.
   *
   * The file is then kept and written again from its start, not deleted. An O_DSYNC append grows its file, and on ext4
   * with its journal (as deployed) every such write waited for a journal commit, which the metadata of the per-key
   * files keeps busy; a write into blocks the file already has changes no metadata and syncs without the journal.
   * Voiding replaces deleting the file and the second syncfs that made the deletion durable. 4 KiB PUTs at 16 in
   * flight, warm rounds: 11-15 % more per second with the journal, 3-4 % without, at 2-9 % less server CPU each
   * (`npm run bench:ab [--no-journal]`, three pairs each; docs/performance.md, twenty-first session).
   */
  async checkpoint(): Promise<void> {
    if (this.#checkpointing) return;
    this.#checkpointing = true;
    try {
      const current = this.#file;
      this.#file = undefined;
      this.#currentFile = undefined;
      if (current !== undefined) {
        const file = await current.catch(() => undefined);
        if (file !== undefined) this.#retired.push(file);
      }
      if (this.#retired.length === 0) return;
      for (const f of this.#retired) await f.drain();
      await syncFileSystem(this.#root, this.#device);
      const done = this.#retired;
      for (const f of done) await f.void();
      this.#retired = [];
      const upTo = Math.max(...done.map((f) => f.gen));
      for (const [id, gen] of this.#pending) if (gen <= upTo) this.#pending.delete(id);
      for (const f of done) {
        if (!f.broken && f.size <= KEPT_FILE_MAX_BYTES && this.#free.length < KEPT_FILES) this.#free.push(f);
        else await this.#discard(f);
      }
    } catch {
      // Tried again a moment later; the records stay in their logs until then. A drive whose root is gone (removed
      // or unmounted) has nothing left to sync: its state is forgotten, and a remount replays what its logs hold.
      if (!(await stat(this.#root).then(() => true, () => false))) {
        // A file opened since goes too: its name went with the root, and a remount's replay must find what is written.
        const opened = this.#currentFile;
        this.#file = undefined;
        this.#currentFile = undefined;
        for (const f of [...this.#retired, ...this.#free]) await f.close().catch(() => undefined);
        if (opened !== undefined) void opened.drain().then(() => opened.close()).catch(() => undefined);
        this.#retired = [];
        this.#free = [];
        this.#pending.clear();
        this.#ready = undefined;
      }
    } finally {
      this.#checkpointing = false;
      if (this.#file !== undefined || this.#retired.length > 0) this.#schedule();
    }
  }

  /** A voided file not kept: deleted (unsynced: were it back after a crash, it replays nothing). */
  async #discard(f: LogFile): Promise<void> {
    await f.close().catch(() => undefined);
    await unlink(f.path).catch(() => undefined);
  }

  /** Number of keys whose records are still in a log (tests). */
  get pendingCount(): number {
    return this.#pending.size;
  }
}
