/** Public names of the distributed namespace lock (cluster/lock; STYLE.md convention 15: explicit list). */
export { createClusterLocking } from './cluster-locking.js';
export type { ClusterLocking, ClusterLockingOptions } from './cluster-locking.js';
export { DEFAULT_LOCK_TIMING, DistLocker } from './dist-locker.js';
export type { AcquireOptions, DistLockerOptions, LockLease, LockQuorumStatus, LockTiming } from './dist-locker.js';
export { LockLostError, LockQuorumError } from './lock-errors.js';
export { lockPlugin } from './lock-plugin.js';
export type { LockPluginOptions } from './lock-plugin.js';
export { LOCK_PREFIX, lockPath } from './lock-protocol.js';
export type { LockOp, LockRequest, LockerPeer } from './lock-protocol.js';
export { DEFAULT_LOCK_BACKOFF, lockBackoffMs, readLockQuorum, writeLockQuorum } from './lock-quorum.js';
export type { LockBackoff } from './lock-quorum.js';
export { LockServer } from './lock-server.js';
export type { LockEntryInfo, LockHolder, LockServerOptions } from './lock-server.js';
export { LocalRwLock } from './local-rw-lock.js';
export type { LockMode } from './local-rw-lock.js';
export { localLockerPeer, remoteLockerPeer } from './locker-peers.js';
