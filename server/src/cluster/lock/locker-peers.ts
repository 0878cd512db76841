/**
 * The two kinds of {@link LockerPeer}: this node's LockServer called in-process (no HTTP to itself), and a
 * peer's lock server over the RpcClient shared with the storage RPC (same token, pool and deadlines).
 */
import type { RpcClient } from '../rpc/index.js';
import { RpcProtocolError } from '../rpc/index.js';
import { lockPath } from './lock-protocol.js';
import type { LockOp, LockRequest, LockerPeer } from './lock-protocol.js';
import type { LockServer } from './lock-server.js';

/** This node's lock server as a locker of the distributed lock. */
export function localLockerPeer(id: string, server: LockServer): LockerPeer {
  return {
    id,
    lock: async (req) => server.lock(req),
    rlock: async (req) => server.rlock(req),
    unlock: async (resource, uid) => server.unlock(resource, uid),
    runlock: async (resource, uid) => server.runlock(resource, uid),
    refresh: async (resource, uid) => server.refresh(resource, uid),
    forceUnlock: async (resource) => server.forceUnlock(resource),
    health: async () => true,
  };
}

/** A peer's lock server reached through `client` (the caller owns and closes the client). */
export function remoteLockerPeer(id: string, client: RpcClient): LockerPeer {
  const call = async (op: LockOp, args: readonly unknown[]): Promise<boolean> => {
    const value = await client.call(lockPath(op), args);
    if (typeof value !== 'boolean') throw new RpcProtocolError(`node ${client.origin} answered ${op} with a non-boolean value`);
    return value;
  };
  const req = (r: LockRequest): unknown[] => [r.resource, r.uid, r.owner];
  return {
    id,
    lock: (r) => call('lock', req(r)),
    rlock: (r) => call('rlock', req(r)),
    unlock: (resource, uid) => call('unlock', [resource, uid]),
    runlock: (resource, uid) => call('runlock', [resource, uid]),
    refresh: (resource, uid) => call('refresh', [resource, uid]),
    forceUnlock: (resource) => call('force-unlock', [resource]),
    health: () => call('health', []),
  };
}
