/**
 * Namespace lock port (implemented in-process here, by cluster/lock across nodes). Writers of
 * one object (PUT commit, delete, heal, multipart complete) are serialized so that every drive
 * sees the same commit order; reads take no lock (drives agree on a version by quorum).
 */
export interface NamespaceLocker {
  /** Resolves with an unlock function once `resource` is held exclusively. */
  lock(resource: string): Promise<() => void>;
}

/** In-process FIFO lock per resource name. */
export class LocalLocker implements NamespaceLocker {
  readonly #tails = new Map<string, Promise<void>>();

  async lock(resource: string): Promise<() => void> {
    const prev = this.#tails.get(resource) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => { release = r; });
    const tail = prev.then(() => mine);
    this.#tails.set(resource, tail);
    await prev;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      release();
      if (this.#tails.get(resource) === tail) this.#tails.delete(resource);
    };
  }
}
