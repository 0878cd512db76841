import type { ErasureSet, HealSink, StorageLogger } from './erasure-set.js';
import { healObject } from './heal.js';
import type { HealResult } from './heal.js';

/** MinIO's MRF queue capacity (REFERENCE.md fact 7). */
const CAPACITY = 100_000;

interface Task {
  id: string;
  run(): Promise<void>;
}

/** Outcome of one queued object heal, as told to a caller that asked for it (the scanner). */
export type HealOutcome = { ok: true; result: HealResult } | { ok: false; error: Error };

/** Counters of the heal queue since the storage was opened (JSON-serializable). */
export interface HealQueueStatus {
  /** Tasks waiting (object heals and full-drive heals). */
  queued: number;
  /** Tasks running now (the queue has one worker: 0 or 1). */
  running: number;
  /** Object heals run to the end, whether or not anything needed rewriting. */
  completed: number;
  /** Object heals that rewrote at least one drive. */
  healedObjects: number;
  /** Object heals that threw (logged). */
  failed: number;
  /** Tasks refused because the queue was full. */
  dropped: number;
  /** Shard bytes rebuilt by object heals (data and parity chunks, without bitrot checksums). */
  bytesHealed: number;
}

/**
 * In-process heal queue ("most recently failed", as MinIO's MRF): reads that saw damage, writes
 * that missed drives, the scanner's findings and drives that came back queue work here; one worker
 * runs it in order, de-duplicated by object. `drain()` resolves when the queue is empty and idle (tests, shutdown).
 */
export class HealQueue implements HealSink {
  readonly #logger: StorageLogger;
  readonly #tasks = new Map<string, Task>();
  /** Callers waiting for the outcome of a pending object heal, by task id. */
  readonly #waiters = new Map<string, ((o: HealOutcome) => void)[]>();
  #running = false;
  #closed = false;
  #idle: (() => void)[] = [];
  readonly #counts = { completed: 0, healedObjects: 0, failed: 0, dropped: 0, bytesHealed: 0 };

  constructor(logger: StorageLogger) {
    this.#logger = logger;
  }

  /**
   * Queues a heal of one object; a pending non-deep heal of it is upgraded by a deep request. `onDone`
   * (if given) is told the outcome of the heal that covers this request; never when the queue drops it.
   */
  queueObject(set: ErasureSet, bucket: string, key: string, deep: boolean, onDone?: (o: HealOutcome) => void): void {
    const id = `${set.index}\0${bucket}\0${key}`;
    if (onDone !== undefined && !this.#closed) {
      const list = this.#waiters.get(id) ?? [];
      list.push(onDone);
      this.#waiters.set(id, list);
    }
    const existing = this.#tasks.get(id);
    if (existing !== undefined && !deep) return;
    this.push({
      id,
      run: async () => {
        const waiters = this.#waiters.get(id) ?? [];
        this.#waiters.delete(id);
        let outcome: HealOutcome;
        try {
          const result = await healObject(set, bucket, key, deep);
          this.#counts.completed++;
          if (result.healed.length > 0) this.#counts.healedObjects++;
          this.#counts.bytesHealed += result.bytes;
          outcome = { ok: true, result };
        } catch (err) {
          this.#counts.failed++;
          outcome = { ok: false, error: err as Error };
        }
        for (const w of waiters) w(outcome);
        if (!outcome.ok) throw outcome.error;
      },
    });
  }

  /** Queues arbitrary heal work (e.g. a full-drive heal); replaces a pending task with the same id. */
  push(task: Task): void {
    if (this.#closed) return;
    if (this.#tasks.size >= CAPACITY && !this.#tasks.has(task.id)) {
      this.#counts.dropped++;
      this.#waiters.delete(task.id);
      return;
    }
    this.#tasks.set(task.id, task);
    if (!this.#running) void this.#work();
  }

  get pending(): number {
    return this.#tasks.size;
  }

  /** Counters since opening. */
  status(): HealQueueStatus {
    return { queued: this.#tasks.size, running: this.#running ? 1 : 0, ...this.#counts };
  }

  async #work(): Promise<void> {
    this.#running = true;
    while (!this.#closed) {
      const next = this.#tasks.values().next();
      if (next.done === true) break;
      const task = next.value;
      this.#tasks.delete(task.id);
      try {
        await task.run();
      } catch (err) {
        this.#logger.warn(`heal of ${task.id.replaceAll('\0', '/')} failed: ${(err as Error).message}`);
      }
    }
    this.#running = false;
    const waiters = this.#idle;
    this.#idle = [];
    for (const w of waiters) w();
  }

  /** Resolves once every queued heal has run. */
  drain(): Promise<void> {
    if (!this.#running && this.#tasks.size === 0) return Promise.resolve();
    return new Promise((resolve) => { this.#idle.push(resolve); });
  }

  /** Drops pending work; the running task finishes. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#tasks.clear();
    this.#waiters.clear();
    await this.drain();
  }
}
