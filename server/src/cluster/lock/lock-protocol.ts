/**
 * Wire contract of the lock RPC (issue 4: peer calls "under /svc/peer/"; REFERENCE.md fact 8, MinIO
 * `cmd/lock-rest-server.go`). Every call is `POST /svc/peer/lock/<op>` with `{"args":[…]}` and answers
 * `200 {"value":…}` through the same RpcClient and node token as the storage RPC.
 *
 * - `lock|rlock [resource, uid, owner]` → `true` when granted, `false` when held by another.
 * - `unlock|runlock [resource, uid]` → `true` when this uid held it (idempotent: `false` otherwise, never an error).
 * - `refresh [resource, uid]` → `false` when the server no longer knows the lock (expired or forced away).
 * - `force-unlock [resource]` → `true` when something was removed (admin).
 * - `health []` → `true` (lock-quorum probe).
 */

/** URL prefix of the lock RPC. */
export const LOCK_PREFIX = '/svc/peer/lock';

/** Operations of the lock RPC. */
export const LOCK_OPS = ['lock', 'rlock', 'unlock', 'runlock', 'refresh', 'force-unlock', 'health'] as const;

/** One operation of the lock RPC. */
export type LockOp = (typeof LOCK_OPS)[number];

/** URL path of a lock call. */
export function lockPath(op: LockOp): string {
  return `${LOCK_PREFIX}/${op}`;
}

/** Longest resource name accepted (bucket + "/" + 1024-byte key, with room for system prefixes). */
export const MAX_RESOURCE_LENGTH = 2048;

/** Who asks for a lock: a random id per acquisition, and the node that asked (for admin listings). */
export interface LockRequest {
  resource: string;
  uid: string;
  owner: string;
}

/**
 * One lock server as a distributed lock sees it: the local one called in-process, or a peer's over RPC.
 * Transport failures reject (the locker counts as offline); refusals resolve `false`.
 */
export interface LockerPeer {
  /** Node id of the locker (for messages). */
  readonly id: string;
  lock(req: LockRequest): Promise<boolean>;
  rlock(req: LockRequest): Promise<boolean>;
  unlock(resource: string, uid: string): Promise<boolean>;
  runlock(resource: string, uid: string): Promise<boolean>;
  refresh(resource: string, uid: string): Promise<boolean>;
  forceUnlock(resource: string): Promise<boolean>;
  health(): Promise<boolean>;
}
