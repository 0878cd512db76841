import { ioError, runIoJob } from './io-pool.js';
import { COMMIT_CREATED, COMMIT_EXISTED, COMMIT_NO_VOLUME, type CommitItem } from './io-worker-source.js';

/** How an inline commit's metadata file was written (io-worker-source.ts CommitsJob). */
export type CommitOutcome = typeof COMMIT_CREATED | typeof COMMIT_EXISTED | typeof COMMIT_NO_VOLUME;

/** An inline commit's outcome, and the metadata file it replaced when the item asked for it (null: none). */
export interface CommitDone {
  outcome: CommitOutcome;
  previous: Buffer | null;
}

interface Queued {
  item: CommitItem;
  resolve(done: CommitDone): void;
  reject(err: Error): void;
}

/**
 * Unsynced inline commits (the commit log makes them durable, commit-log.ts). Those asked for in one turn of the
 * event loop go to an I/O worker as one message: five fs/promises round trips per commit (mkdir, open, write, close,
 * rename) cost the event loop more than the system calls (docs/performance.md, eleventh session).
 *
 * One queue per erasure set, shared by its local drives (LocalDrive.shareInlineCommits, open-storage.ts): a 4 KiB
 * PUT commits on every drive of its set in the same turn, and one message for them all instead of one per drive
 * gave 5-7 % more PUTs/s at 7-10 % less server CPU each (a message each way wakes a thread: ~70 µs of the event
 * loop per message under that load; docs/performance.md, twentieth session). Not shared across sets: a hung drive
 * holds the commits of its messages, which are its own set's (whose PUTs wait for that drive anyway, ErasureSet.each),
 * never another set's. A drive outside any set (tests, tools) has a queue of its own.
 */
export class InlineCommits {
  #queue: Queued[] = [];

  run(item: CommitItem): Promise<CommitDone> {
    return new Promise((resolve, reject) => {
      if (this.#queue.length === 0) setImmediate(() => this.#flush());
      this.#queue.push({ item, resolve, reject });
    });
  }

  #flush(): void {
    const batch = this.#queue;
    this.#queue = [];
    runIoJob({ op: 'commits', items: batch.map((q) => q.item) }).then((a) => {
      batch.forEach((q, i) => {
        const r = a.results[i]!;
        const previous = a.previous[i] ?? null;
        if (r === COMMIT_CREATED || r === COMMIT_EXISTED || r === COMMIT_NO_VOLUME) {
          q.resolve({ outcome: r, previous: previous === null ? null : Buffer.from(previous.buffer, previous.byteOffset, previous.byteLength) });
        } else {
          q.reject(ioError(r, a.errnos[i]));
        }
      });
    }, (err: Error) => { for (const q of batch) q.reject(err); });
  }
}
