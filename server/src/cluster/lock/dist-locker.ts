/**
 * The distributed namespace lock (REFERENCE.md fact 8, MinIO `internal/dsync/drwmutex.go`): a lock is held when
 * a quorum of the cluster's lockers (one per node) granted it — ⌊n/2⌋+1 for writing, ⌈n/2⌉ for reading — so
 * concurrent writers of one key on different nodes never interleave their commits. It implements the engine's
 * NamespaceLocker port: the erasure layer cannot tell it from the in-process LocalLocker.
 *
 * - Acquire: ask every locker at once; below quorum, release the partial grants and retry after a randomized
 *   back-off (250 ms + jitter, capped at 5 s) until the deadline. Too few reachable lockers fails fast.
 * - Hold: refresh every 10 s (5 s per call); when more than n − quorum lockers answer "not found", the lock is
 *   lost: the lease's signal aborts and `onLockLost` is called.
 * - Release: fire-and-forget unlock calls (30 s each); the caller never waits on a slow peer.
 * - Requests of one node first queue in-process (FIFO), so only one per resource and node contends remotely;
 *   with a single locker that local queue is the whole lock (the LocalLocker behaviour, no round trips).
 */
import { randomUUID } from 'node:crypto';
import type { NamespaceLocker, Unlock } from '../../storage/index.js';
import { LockLostError, LockQuorumError } from './lock-errors.js';
import type { LockerPeer } from './lock-protocol.js';
import { DEFAULT_LOCK_BACKOFF, lockBackoffMs, readLockQuorum, writeLockQuorum } from './lock-quorum.js';
import type { LockBackoff } from './lock-quorum.js';
import { LocalRwLock } from './local-rw-lock.js';
import type { LockMode } from './local-rw-lock.js';

/** Timing of the distributed lock (dsync values by default). */
export interface LockTiming {
  /** Deadline of `lock`/`rlock`, and of `acquire` without its own (default 30 s). */
  acquireTimeoutMs: number;
  /** Wait for one locker's answer in one attempt (default 2 s); a later grant is released. */
  acquireCallTimeoutMs: number;
  /** Attempts in a row with fewer reachable lockers than the quorum before failing (default 3). */
  unreachableAttempts: number;
  /** Holders refresh this often (default 10 s). */
  refreshIntervalMs: number;
  /** Deadline of one refresh call (default 5 s); no answer counts as offline, not as "not found". */
  refreshCallTimeoutMs: number;
  /** Deadline of one unlock call (default 30 s). */
  unlockCallTimeoutMs: number;
  backoff: LockBackoff;
}

/** dsync's timing (REFERENCE.md fact 8). */
export const DEFAULT_LOCK_TIMING: Readonly<LockTiming> = Object.freeze({
  acquireTimeoutMs: 30_000, acquireCallTimeoutMs: 2_000, unreachableAttempts: 3,
  refreshIntervalMs: 10_000, refreshCallTimeoutMs: 5_000, unlockCallTimeoutMs: 30_000, backoff: DEFAULT_LOCK_BACKOFF,
});

/** Options of {@link DistLocker}. */
export interface DistLockerOptions {
  /** This node's id (recorded as the owner of its locks). */
  self: string;
  /** Every node's locker, this node's included. */
  lockers: readonly LockerPeer[];
  timing?: Partial<LockTiming>;
  /** Random source of the back-off (tests). */
  random?: () => number;
  /** Called once when a held lock is lost (the lease's signal aborts at the same time). */
  onLockLost?: (resource: string, mode: LockMode, err: LockLostError) => void;
}

/** Options of {@link DistLocker.acquire}. */
export interface AcquireOptions {
  /** Default `write`. */
  mode?: LockMode;
  /** Gives up (rejecting with the signal's reason) when aborted. */
  signal?: AbortSignal;
  /** Deadline in ms (default `timing.acquireTimeoutMs`); then LockQuorumError. */
  timeoutMs?: number;
}

/** A held lock. */
export interface LockLease {
  readonly resource: string;
  readonly mode: LockMode;
  /** Aborted with a LockLostError when the lock is lost while held. */
  readonly signal: AbortSignal;
  /** Releases the lock; idempotent, returns at once. */
  unlock(): void;
}

/** Lock quorum health (issue 4: `lock_quorum_unavailable`). */
export interface LockQuorumStatus {
  lockers: number;
  online: number;
  writeQuorum: number;
  readQuorum: number;
  /** A write lock can be granted: `online ≥ writeQuorum`. */
  ready: boolean;
}

interface Grants {
  uid: string;
  held: Set<LockerPeer>;
  /** The lease was released: a late grant is given back at once. */
  released: boolean;
  ok: boolean;
  /** Lockers that failed or did not answer in time, counted until the decision. */
  offline: number;
}

const TIMEOUT = Symbol('timeout');

function within<T>(p: Promise<T>, ms: number): Promise<T | typeof TIMEOUT> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<typeof TIMEOUT>((resolve) => { timer = setTimeout(() => resolve(TIMEOUT), ms); timer.unref(); });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) { reject(signal.reason as Error); return; }
    const onAbort = (): void => { clearTimeout(timer); reject(signal?.reason as Error); };
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** NamespaceLocker over a quorum of lock servers. */
export class DistLocker implements NamespaceLocker {
  readonly #self: string;
  readonly #lockers: readonly LockerPeer[];
  readonly #timing: LockTiming;
  readonly #random: () => number;
  readonly #onLockLost: DistLockerOptions['onLockLost'];
  readonly #local = new LocalRwLock();
  readonly #pending = new Set<Promise<unknown>>();
  readonly #refreshers = new Set<NodeJS.Timeout>();
  #closed = false;

  constructor(opts: DistLockerOptions) {
    if (opts.lockers.length === 0) throw new RangeError('a distributed lock needs at least one locker');
    this.#self = opts.self;
    this.#lockers = [...opts.lockers];
    this.#timing = { ...DEFAULT_LOCK_TIMING, ...opts.timing };
    this.#random = opts.random ?? Math.random;
    this.#onLockLost = opts.onLockLost;
  }

  /** Number of lockers (nodes). */
  get lockers(): number {
    return this.#lockers.length;
  }

  /**
   * The NamespaceLocker port: an exclusive lock within the default deadline. The unlock function carries the
   * lease's signal, so the storage engine refuses to commit once the lock is lost.
   */
  async lock(resource: string): Promise<Unlock> {
    const lease = await this.acquire(resource, { mode: 'write' });
    return Object.assign(() => lease.unlock(), { signal: lease.signal });
  }

  /** A shared lock within the default deadline. */
  async rlock(resource: string): Promise<() => void> {
    const lease = await this.acquire(resource, { mode: 'read' });
    return () => lease.unlock();
  }

  /** Takes `resource` in `opts.mode`; rejects with LockQuorumError at the deadline or when lockers are unreachable. */
  async acquire(resource: string, opts: AcquireOptions = {}): Promise<LockLease> {
    if (this.#closed) throw new LockQuorumError(resource, 'the lock client is closed');
    const mode = opts.mode ?? 'write';
    const timeoutMs = opts.timeoutMs ?? this.#timing.acquireTimeoutMs;
    const deadline = Date.now() + timeoutMs;
    const waitLocal = new AbortController();
    const timer = setTimeout(() => waitLocal.abort(new LockQuorumError(resource, `not granted within ${timeoutMs} ms (held on this node)`)), timeoutMs);
    timer.unref();
    const signals = opts.signal === undefined ? [waitLocal.signal] : [waitLocal.signal, opts.signal];
    let releaseLocal: () => void;
    try {
      releaseLocal = await this.#local.acquire(resource, mode, AbortSignal.any(signals));
    } finally {
      clearTimeout(timer);
    }
    const lost = new AbortController();
    if (this.#lockers.length === 1) return { resource, mode, signal: lost.signal, unlock: releaseLocal };
    let grants: Grants;
    try {
      grants = await this.#acquireRemote(resource, mode, deadline, timeoutMs, opts.signal);
    } catch (err) {
      releaseLocal();
      throw err;
    }
    return this.#lease(resource, mode, grants, lost, releaseLocal);
  }

  #quorum(mode: LockMode): number {
    return mode === 'write' ? writeLockQuorum(this.#lockers.length) : readLockQuorum(this.#lockers.length);
  }

  async #acquireRemote(resource: string, mode: LockMode, deadline: number, timeoutMs: number, signal?: AbortSignal): Promise<Grants> {
    const quorum = this.#quorum(mode);
    let unreachable = 0;
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      const grants = await this.#attempt(resource, mode, randomUUID());
      if (grants.ok) return grants;
      const reachable = this.#lockers.length - grants.offline;
      unreachable = reachable < quorum ? unreachable + 1 : 0;
      if (unreachable >= this.#timing.unreachableAttempts) {
        throw new LockQuorumError(resource, `lock quorum unavailable: ${reachable} of ${this.#lockers.length} lockers reachable, ${quorum} needed`);
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new LockQuorumError(resource, `not granted by ${quorum} of ${this.#lockers.length} lockers within ${timeoutMs} ms`);
      await sleep(Math.min(left, lockBackoffMs(attempt, this.#random(), this.#timing.backoff)), signal);
    }
  }

  /** One round: ask every locker, decide as soon as the quorum is reached or out of reach. */
  #attempt(resource: string, mode: LockMode, uid: string): Promise<Grants> {
    const n = this.#lockers.length;
    const quorum = this.#quorum(mode);
    const req = { resource, uid, owner: this.#self };
    const grants: Grants = { uid, held: new Set(), released: false, ok: false, offline: 0 };
    return new Promise((resolve) => {
      let refused = 0;
      let decided = false;
      const check = (): void => {
        if (decided) return;
        if (grants.held.size >= quorum) grants.ok = true;
        else if (refused + grants.offline <= n - quorum) return;
        decided = true;
        if (grants.ok) { resolve(grants); return; }
        // Give the partial grants back before retrying, so that they do not make the other contenders fail too.
        const releases = [...grants.held].map((l) => this.#release(l, resource, uid, mode));
        grants.held.clear();
        void within(Promise.all(releases), this.#timing.acquireCallTimeoutMs).finally(() => resolve(grants));
      };
      for (const l of this.#lockers) {
        const call = mode === 'write' ? l.lock(req) : l.rlock(req);
        void within(call, this.#timing.acquireCallTimeoutMs).then((answer) => {
          if (answer === TIMEOUT) {
            if (!decided) grants.offline++;
            // A grant arriving after we stopped waiting is not ours to keep.
            void call.then((late) => { if (late) this.#release(l, resource, uid, mode); }, () => undefined);
          } else if (!decided) {
            if (answer) grants.held.add(l);
            else refused++;
          } else if (answer) {
            // Decided already: keep a late grant while the lease holds (unlock and refresh include it).
            if (grants.ok && !grants.released) grants.held.add(l);
            else this.#release(l, resource, uid, mode);
          }
          check();
        }, () => { if (!decided) grants.offline++; check(); });
      }
    });
  }

  #track(p: Promise<unknown>): void {
    const q = p.catch(() => undefined).finally(() => this.#pending.delete(q));
    this.#pending.add(q);
  }

  #release(l: LockerPeer, resource: string, uid: string, mode: LockMode): Promise<unknown> {
    const call = mode === 'write' ? l.unlock(resource, uid) : l.runlock(resource, uid);
    const p = within(call, this.#timing.unlockCallTimeoutMs).catch(() => undefined);
    this.#track(p);
    return p;
  }

  #lease(resource: string, mode: LockMode, grants: Grants, lost: AbortController, releaseLocal: () => void): LockLease {
    let timer: NodeJS.Timeout | undefined;
    const stop = (): void => {
      if (timer !== undefined) this.#refreshers.delete(timer);
      clearTimeout(timer);
      timer = undefined;
    };
    const schedule = (): void => {
      if (grants.released || lost.signal.aborted || this.#closed) return;
      timer = setTimeout(() => {
        this.#refreshers.delete(timer!);
        const p = this.#refresh(resource, grants.uid).then((notFound) => {
          if (grants.released) return;
          const n = this.#lockers.length;
          if (notFound > n - this.#quorum(mode)) {
            const err = new LockLostError(resource, notFound, n);
            lost.abort(err);
            this.#onLockLost?.(resource, mode, err);
            return;
          }
          schedule();
        });
        this.#track(p);
      }, this.#timing.refreshIntervalMs);
      timer.unref();
      this.#refreshers.add(timer);
    };
    schedule();
    return {
      resource, mode, signal: lost.signal,
      unlock: () => {
        if (grants.released) return;
        grants.released = true;
        stop();
        const releases = [...grants.held].map((l) => this.#release(l, resource, grants.uid, mode));
        // The next waiter on this node goes once the lockers let go (or after one call deadline), so it does
        // not find its own node's lock still held and back off for nothing.
        void within(Promise.all(releases), this.#timing.acquireCallTimeoutMs).finally(releaseLocal);
      },
    };
  }

  /** Asks every locker whether it still holds `uid`; resolves with how many answered "not found". */
  async #refresh(resource: string, uid: string): Promise<number> {
    const answers = await Promise.all(this.#lockers.map((l) =>
      within(l.refresh(resource, uid), this.#timing.refreshCallTimeoutMs).catch(() => TIMEOUT)));
    return answers.filter((a) => a === false).length;
  }

  /** Drops every lock on `resource` on every reachable locker (admin); resolves with how many had one. */
  async forceUnlock(resource: string): Promise<number> {
    const answers = await Promise.all(this.#lockers.map((l) =>
      within(l.forceUnlock(resource), this.#timing.unlockCallTimeoutMs).catch(() => TIMEOUT)));
    return answers.filter((a) => a === true).length;
  }

  /** Probes every locker (one acquire-call deadline each): the lock quorum health. */
  async status(): Promise<LockQuorumStatus> {
    const n = this.#lockers.length;
    const answers = await Promise.all(this.#lockers.map((l) =>
      within(l.health(), this.#timing.acquireCallTimeoutMs).catch(() => TIMEOUT)));
    const online = answers.filter((a) => a === true).length;
    const writeQuorum = writeLockQuorum(n);
    return { lockers: n, online, writeQuorum, readQuorum: readLockQuorum(n), ready: online >= writeQuorum };
  }

  /** Stops refreshing, refuses new locks and waits for the unlock calls in flight (each bounded by its deadline). */
  async close(): Promise<void> {
    this.#closed = true;
    for (const t of this.#refreshers) clearTimeout(t);
    this.#refreshers.clear();
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }
}
