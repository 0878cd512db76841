/**
 * Composition of the distributed lock for one node (issue 4): this node's LockServer, the fastify plugin that
 * serves it to peers, and the DistLocker over every node's locker (its own called in-process). main.ts wires
 * `locker` into openStorage, registers `plugin` on the S3 listener and feeds `lockReady` to the health probes.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { RpcClient, RpcCredentials } from '../rpc/index.js';
import { DistLocker } from './dist-locker.js';
import type { LockQuorumStatus, LockTiming } from './dist-locker.js';
import type { LockLostError } from './lock-errors.js';
import { lockPlugin } from './lock-plugin.js';
import { LockServer } from './lock-server.js';
import type { LockMode } from './local-rw-lock.js';
import { localLockerPeer, remoteLockerPeer } from './locker-peers.js';

/** Options of {@link createClusterLocking}. */
export interface ClusterLockingOptions {
  /** This node's id (host:port), recorded as the owner of its locks. */
  self: string;
  /** Every other node with the RPC client that reaches it (the caller owns and closes the clients). */
  peers: readonly { id: string; client: RpcClient }[];
  /** Root credentials: peers must present a node token derived from them. */
  credentials: RpcCredentials;
  /** Clock of the lock table's expiry (tests); node tokens are always checked against the wall clock. */
  now?: () => number;
  /** Overrides of the dsync timing (tests). */
  timing?: Partial<LockTiming>;
  /** Lock table expiry: validity (default 60 s) and sweep period (default 60 s). */
  server?: { validityMs?: number; sweepIntervalMs?: number };
  /** Random source of the back-off (tests). */
  random?: () => number;
  /** Called when a held lock is lost (for the log). */
  onLockLost?: (resource: string, mode: LockMode, err: LockLostError) => void;
}

/** The lock parts of one node. */
export interface ClusterLocking {
  /** The engine's NamespaceLocker (a DistLocker: also `rlock`, `acquire`, `forceUnlock`, `status`). */
  locker: DistLocker;
  /** Serves this node's lock table under /svc/peer/lock/ (register it on the S3 listener; no options). */
  plugin: FastifyPluginAsync;
  /** True when a write-lock quorum of lockers is reachable (health: `lock_quorum_unavailable` otherwise). */
  lockReady(): Promise<boolean>;
  /** Counts behind `lockReady` (health `details.lock`). */
  lockStatus(): Promise<LockQuorumStatus>;
  /** This node's lock table (admin listing). */
  server: LockServer;
  /** Stops timers and waits for unlock calls in flight; does not close the peers' RPC clients. */
  close(): Promise<void>;
}

/** Builds the lock server, its plugin and the distributed locker of this node. */
export function createClusterLocking(opts: ClusterLockingOptions): ClusterLocking {
  const server = new LockServer({ ...opts.server, ...(opts.now === undefined ? {} : { now: opts.now }) });
  const locker = new DistLocker({
    self: opts.self,
    lockers: [localLockerPeer(opts.self, server), ...opts.peers.map((p) => remoteLockerPeer(p.id, p.client))],
    ...(opts.timing === undefined ? {} : { timing: opts.timing }),
    ...(opts.random === undefined ? {} : { random: opts.random }),
    ...(opts.onLockLost === undefined ? {} : { onLockLost: opts.onLockLost }),
  });
  const pluginOpts = { credentials: opts.credentials, server };
  const plugin: FastifyPluginAsync = async (app) => {
    await app.register(lockPlugin, pluginOpts);
  };
  return {
    locker,
    plugin,
    server,
    lockReady: async () => (await locker.status()).ready,
    lockStatus: () => locker.status(),
    close: async () => {
      server.close();
      await locker.close();
    },
  };
}
