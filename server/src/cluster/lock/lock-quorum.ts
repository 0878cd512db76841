/**
 * Quorum and retry arithmetic of the distributed namespace lock (REFERENCE.md fact 8, MinIO dsync
 * `internal/dsync/drwmutex.go`): pure functions, table-tested.
 */

/**
 * Lockers that must grant a write lock among `n`: ⌊n/2⌋+1, a strict majority, so two writers can never
 * both hold one resource (any two majorities share a locker).
 */
export function writeLockQuorum(n: number): number {
  return Math.floor(n / 2) + 1;
}

/**
 * Lockers that must grant a read lock among `n`: ⌈n/2⌉. A read quorum and a write quorum always
 * intersect (⌈n/2⌉ + ⌊n/2⌋+1 > n), so a reader and a writer never hold one resource together.
 */
export function readLockQuorum(n: number): number {
  return Math.ceil(n / 2);
}

/** Randomized back-off between acquire attempts (dsync `lockRetryBackOff`). */
export interface LockBackoff {
  /** Least wait between two attempts (dsync: 250 ms). */
  baseMs: number;
  /** Random spread unit, doubled per attempt (dsync: 100 ms). */
  jitterMs: number;
  /** Largest wait (dsync: 5 s). */
  capMs: number;
}

/** dsync's values (REFERENCE.md fact 8). */
export const DEFAULT_LOCK_BACKOFF: Readonly<LockBackoff> = Object.freeze({ baseMs: 250, jitterMs: 100, capMs: 5_000 });

/**
 * Wait before retry number `attempt` (0-based): `base + random·min(cap, jitter·2^attempt)`, never above `cap`.
 * The random part spreads contending nodes apart; its growth bounds the load a long wait puts on the lockers.
 */
export function lockBackoffMs(attempt: number, random: number, b: LockBackoff = DEFAULT_LOCK_BACKOFF): number {
  const spread = Math.min(b.capMs, b.jitterMs * 2 ** Math.min(Math.max(0, attempt), 30));
  return Math.min(b.capMs, b.baseMs + Math.min(1, Math.max(0, random)) * spread);
}
