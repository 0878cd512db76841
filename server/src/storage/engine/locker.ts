import { InsufficientWriteQuorumError } from './storage-errors.js';

/**
 * Namespace lock port (implemented in-process here, by cluster/lock across nodes). Writers of
 * one object (PUT commit, delete, heal, multipart complete) are serialized so that every drive
 * sees the same commit order; reads take no lock (drives agree on a version by quorum).
 */
export interface NamespaceLocker {
  /** Resolves with an unlock function once `resource` is held exclusively. */
  lock(resource: string): Promise<Unlock>;
}

/**
 * Releases a namespace lock. A distributed lock also carries `signal`, aborted when the lock is lost while held
 * (its refresh no longer reaches a quorum of lockers, REFERENCE.md fact 8): another node may then take it, so the
 * holder must not commit anything after that.
 */
export type Unlock = (() => void) & { readonly signal?: AbortSignal };

/** Throws before a commit when the lock on `resource` was lost: nothing is written, the client may retry. */
export function assertHeld(unlock: Unlock, resource: string): void {
  if (unlock.signal?.aborted !== true) return;
  const why = unlock.signal.reason instanceof Error ? `: ${unlock.signal.reason.message}` : '';
  throw new InsufficientWriteQuorumError(`the lock on ${resource} was lost before the commit${why}; nothing was written, retry`);
}

/** In-process FIFO lock per resource name. */
export class LocalLocker implements NamespaceLocker {
  readonly #tails = new Map<string, Promise<void>>();

  async lock(resource: string): Promise<Unlock> {
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
