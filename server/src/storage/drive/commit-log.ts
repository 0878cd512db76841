import { readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDir } from '../../common/index.js';
import { recordsToReplay, type LogRecord } from './commit-log-record.js';

export type { LogRecord } from './commit-log-record.js';

/**
 * The commit logs an earlier version of svc may have left on a drive. That version appended each small object's
 * metadata record to a log (group commit) and wrote the key's metadata file without a sync, which a checkpoint made
 * durable about once a second; a crash left the records of the last second in the log. Small objects' records now go
 * to the drive's inline index (inline-index.ts), durable when written, and no log is written any more; logs found at
 * start are replayed once (the last record of each key, unless a later one dropped the key or its bucket) before the
 * drive is used, then deleted.
 */

const LOG_DIR = 'log';
const LOG_SUFFIX = '.log';

const logs = new Map<string, CommitLog>();

/** The commit log of the drive at `root` (one per root in a process, like its change log). */
export function commitLogFor(root: string, sysDir: string, replay: (r: LogRecord) => Promise<void>): CommitLog {
  let log = logs.get(root);
  if (log === undefined) {
    log = new CommitLog(join(sysDir, LOG_DIR), replay);
    logs.set(root, log);
  }
  return log;
}

export class CommitLog {
  readonly #dir: string;
  readonly #replay: (r: LogRecord) => Promise<void>;
  #ready: Promise<void> | undefined;

  constructor(dir: string, replay: (r: LogRecord) => Promise<void>) {
    this.#dir = dir;
    this.#replay = replay;
  }

  /**
   * Replays the logs an earlier process left (once; again after a failure). Every change of the drive waits for it:
   * a change made before the replay would be undone by it (a peer's call may reach a drive before its node opened it).
   */
  ready(): Promise<void> {
    this.#ready ??= this.#recover().catch((err: unknown) => {
      this.#ready = undefined;
      throw err;
    });
    return this.#ready;
  }

  async #recover(): Promise<void> {
    const names = await this.#logNames();
    if (names.length === 0) return;
    const bufs = await Promise.all(names.map((n) => readFile(join(this.#dir, n))));
    // Each replayed record is durable before the logs go (the replay function's contract).
    for (const r of recordsToReplay(bufs)) await this.#replay(r);
    for (const n of names) await unlink(join(this.#dir, n));
    // A deleted log must not come back after a power cut and be replayed over later changes (dir-sync.ts).
    await syncDir(this.#dir);
  }

  async #logNames(): Promise<string[]> {
    try {
      return (await readdir(this.#dir)).filter((n) => n.endsWith(LOG_SUFFIX)).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }
}
