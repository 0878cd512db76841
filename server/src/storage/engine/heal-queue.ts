import type { ErasureSet, HealSink, StorageLogger } from './erasure-set.js';
import { healObject } from './heal.js';

/** MinIO's MRF queue capacity (REFERENCE.md fact 7). */
const CAPACITY = 100_000;

interface Task {
  id: string;
  run(): Promise<void>;
}

/**
 * In-process heal queue ("most recently failed", as MinIO's MRF): reads that saw damage, writes
 * that missed drives, and drives that came back queue work here; one worker runs it in order,
 * de-duplicated by object. `drain()` resolves when the queue is empty and idle (tests, shutdown).
 */
export class HealQueue implements HealSink {
  readonly #logger: StorageLogger;
  readonly #tasks = new Map<string, Task>();
  #running = false;
  #closed = false;
  #idle: (() => void)[] = [];

  constructor(logger: StorageLogger) {
    this.#logger = logger;
  }

  queueObject(set: ErasureSet, bucket: string, key: string, deep: boolean): void {
    const id = `${set.index}\0${bucket}\0${key}`;
    const existing = this.#tasks.get(id);
    if (existing !== undefined && !deep) return;
    this.push({ id, run: async () => { await healObject(set, bucket, key, deep); } });
  }

  /** Queues arbitrary heal work (e.g. a full-drive heal); replaces a pending task with the same id. */
  push(task: Task): void {
    if (this.#closed) return;
    if (this.#tasks.size >= CAPACITY && !this.#tasks.has(task.id)) return;
    this.#tasks.set(task.id, task);
    if (!this.#running) void this.#work();
  }

  get pending(): number {
    return this.#tasks.size;
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
    await this.drain();
  }
}
