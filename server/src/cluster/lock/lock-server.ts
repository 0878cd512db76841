/**
 * The in-memory lock table of one node (REFERENCE.md fact 8, MinIO `cmd/local-locker.go`): per resource either
 * one writer or any number of readers, each with its owner node and last refresh. Holders refresh every 10 s;
 * an entry not refreshed for 60 s belongs to a holder that died or lost contact and is dropped, so a crashed
 * node cannot keep a key locked forever.
 */
import type { LockRequest } from './lock-protocol.js';

/** One granted lock as the table records it. */
export interface LockHolder {
  uid: string;
  owner: string;
  /** Clock value when granted. */
  since: number;
  /** Clock value of the last grant or refresh. */
  refreshed: number;
}

/** What a resource is held by. */
export interface LockEntryInfo {
  resource: string;
  writer?: LockHolder;
  readers: LockHolder[];
}

/** Options of {@link LockServer}. */
export interface LockServerOptions {
  /** Entries not refreshed within this long are dropped (default 60 s, dsync `lockValidityDuration`). */
  validityMs?: number;
  /** How often expired entries are swept (default 60 s); the sweep timer never keeps the process alive. */
  sweepIntervalMs?: number;
  now?: () => number;
}

interface Entry {
  writer: LockHolder | undefined;
  readers: Map<string, LockHolder>;
}

/** Lock table served to every node of the cluster (including this one, in-process). */
export class LockServer {
  readonly #table = new Map<string, Entry>();
  readonly #validityMs: number;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;

  constructor(opts: LockServerOptions = {}) {
    this.#validityMs = opts.validityMs ?? 60_000;
    this.#now = opts.now ?? Date.now;
    this.#timer = setInterval(() => this.expire(), opts.sweepIntervalMs ?? 60_000);
    this.#timer.unref();
  }

  #live(resource: string): Entry | undefined {
    const e = this.#table.get(resource);
    if (e === undefined) return undefined;
    // An expired holder never blocks a new grant, even before the next sweep.
    const cutoff = this.#now() - this.#validityMs;
    if (e.writer !== undefined && e.writer.refreshed < cutoff) e.writer = undefined;
    for (const [uid, r] of e.readers) if (r.refreshed < cutoff) e.readers.delete(uid);
    if (e.writer === undefined && e.readers.size === 0) {
      this.#table.delete(resource);
      return undefined;
    }
    return e;
  }

  #holder(req: LockRequest): LockHolder {
    const now = this.#now();
    return { uid: req.uid, owner: req.owner, since: now, refreshed: now };
  }

  /** Grants an exclusive lock when nobody holds `resource`; a repeated request by the same uid is granted again. */
  lock(req: LockRequest): boolean {
    const e = this.#live(req.resource);
    if (e === undefined) {
      this.#table.set(req.resource, { writer: this.#holder(req), readers: new Map() });
      return true;
    }
    if (e.writer?.uid === req.uid && e.readers.size === 0) {
      e.writer.refreshed = this.#now();
      return true;
    }
    return false;
  }

  /** Grants a shared lock unless a writer holds `resource`. */
  rlock(req: LockRequest): boolean {
    const e = this.#live(req.resource);
    if (e === undefined) {
      this.#table.set(req.resource, { writer: undefined, readers: new Map([[req.uid, this.#holder(req)]]) });
      return true;
    }
    if (e.writer !== undefined) return false;
    const r = e.readers.get(req.uid);
    if (r !== undefined) r.refreshed = this.#now();
    else e.readers.set(req.uid, this.#holder(req));
    return true;
  }

  /** Releases the write lock of `uid`; idempotent (false when `uid` does not hold it). */
  unlock(resource: string, uid: string): boolean {
    const e = this.#table.get(resource);
    if (e?.writer?.uid !== uid) return false;
    e.writer = undefined;
    if (e.readers.size === 0) this.#table.delete(resource);
    return true;
  }

  /** Releases the read lock of `uid`; idempotent. */
  runlock(resource: string, uid: string): boolean {
    const e = this.#table.get(resource);
    if (e === undefined || !e.readers.delete(uid)) return false;
    if (e.writer === undefined && e.readers.size === 0) this.#table.delete(resource);
    return true;
  }

  /** Marks the lock of `uid` on `resource` alive; false when this server no longer has it. */
  refresh(resource: string, uid: string): boolean {
    const e = this.#live(resource);
    if (e === undefined) return false;
    const h = e.writer?.uid === uid ? e.writer : e.readers.get(uid);
    if (h === undefined) return false;
    h.refreshed = this.#now();
    return true;
  }

  /** Drops every lock on `resource` whoever holds it (admin); true when something was removed. */
  forceUnlock(resource: string): boolean {
    return this.#table.delete(resource);
  }

  /** Drops entries not refreshed within the validity; returns how many holders were dropped. */
  expire(): number {
    let dropped = 0;
    for (const [resource, e] of [...this.#table]) {
      const before = (e.writer === undefined ? 0 : 1) + e.readers.size;
      const after = this.#live(resource);
      dropped += before - (after === undefined ? 0 : (after.writer === undefined ? 0 : 1) + after.readers.size);
    }
    return dropped;
  }

  /** Current entries (admin listing, tests). */
  entries(): LockEntryInfo[] {
    return [...this.#table].map(([resource, e]) => ({
      resource, readers: [...e.readers.values()].map((h) => ({ ...h })), ...(e.writer === undefined ? {} : { writer: { ...e.writer } }),
    }));
  }

  /** Stops the sweep timer. */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
