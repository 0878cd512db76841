/**
 * Sync calls that share runs. A call for a key joins a run that has not started yet (it will cover the caller's
 * writes), never one already running (it may have started before them): N callers of one moment cost two runs at
 * most, not N. Used for syncfs per device (sync-fs.ts) and fsync per directory (dir-sync.ts).
 */
interface Lane {
  tail: Promise<void>;
  queued: Promise<void> | null;
  /** Runs not yet settled: the lane goes when none is left (one per directory ever synced would pile up). */
  runs: number;
}

export class SyncLanes {
  readonly #lanes = new Map<string, Lane>();

  /** Runs `sync` for `key` after the run in progress, or joins the one already waiting to start. */
  run(key: string, sync: () => Promise<void>): Promise<void> {
    let lane = this.#lanes.get(key);
    if (lane === undefined) {
      lane = { tail: Promise.resolve(), queued: null, runs: 0 };
      this.#lanes.set(key, lane);
    }
    if (lane.queued !== null) return lane.queued;
    const l = lane;
    const run = l.tail.then(() => {
      l.queued = null;
      return sync();
    });
    l.queued = run;
    l.runs++;
    l.tail = run.catch(() => undefined).then(() => {
      if (--l.runs === 0) this.#lanes.delete(key);
    });
    return run;
  }

  /** Lanes with runs pending (tests). */
  get size(): number {
    return this.#lanes.size;
  }
}
