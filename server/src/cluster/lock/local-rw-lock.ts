/**
 * In-process FIFO reader/writer lock per resource name: writers exclusive, readers shared, waiters served in
 * arrival order (a reader behind a waiting writer waits, so writers are not starved). It orders the lock
 * requests of one node before they go to the lockers, so contention inside a node costs no network round
 * trips or back-off, and alone it is the whole lock of a single-node deployment (like the engine's LocalLocker).
 */

/** Lock mode. */
export type LockMode = 'write' | 'read';

interface Waiter {
  mode: LockMode;
  grant: () => void;
}

interface State {
  writer: boolean;
  readers: number;
  queue: Waiter[];
}

/** Reader/writer lock table of one process. */
export class LocalRwLock {
  readonly #states = new Map<string, State>();

  /**
   * Resolves with a release function once `resource` is held in `mode`; rejects if `signal` aborts first.
   * The release function is idempotent.
   */
  acquire(resource: string, mode: LockMode, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    let st = this.#states.get(resource);
    if (st === undefined) {
      st = { writer: false, readers: 0, queue: [] };
      this.#states.set(resource, st);
    }
    const state = st;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        mode,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.#releaser(resource, state, mode));
        },
      };
      const onAbort = (): void => {
        const i = state.queue.indexOf(waiter);
        if (i < 0) return;
        state.queue.splice(i, 1);
        this.#pump(resource, state);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      state.queue.push(waiter);
      this.#pump(resource, state);
    });
  }

  #releaser(resource: string, state: State, mode: LockMode): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (mode === 'write') state.writer = false;
      else state.readers--;
      this.#pump(resource, state);
    };
  }

  #pump(resource: string, state: State): void {
    while (state.queue.length > 0 && !state.writer) {
      const next = state.queue[0]!;
      if (next.mode === 'write' && state.readers > 0) break;
      state.queue.shift();
      if (next.mode === 'write') state.writer = true;
      else state.readers++;
      next.grant();
    }
    if (!state.writer && state.readers === 0 && state.queue.length === 0 && this.#states.get(resource) === state) {
      this.#states.delete(resource);
    }
  }

  /** Resources currently held or waited for (tests). */
  get size(): number {
    return this.#states.size;
  }
}
