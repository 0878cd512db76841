/**
 * Node-level quorum arithmetic (REFERENCE.md facts 2 and 8): a majority of the nodes for the namespace lock, and
 * MinIO's `?maintenance=true` question — would every erasure set keep write quorum without this node's drives.
 */
import type { Topology } from '../topology.js';

/** Write-lock quorum over `n` lockers (one per node): ⌊n/2⌋+1. */
export function nodeQuorum(n: number): number {
  return Math.floor(n / 2) + 1;
}

/** Write quorum of a set of `n` drives with `parity`: K, or K+1 when K == M (REFERENCE.md fact 2). */
export function setWriteQuorum(n: number, parity: number): number {
  const k = n - parity;
  return k === parity ? k + 1 : k;
}

/**
 * True when some set would lose write quorum if this node went down: its drives on the other nodes that are
 * reachable (`online(node)`) are counted, this node's are not (REFERENCE.md §1.1 "skips drives local to the node").
 */
export function losesQuorumWithoutSelf(t: Topology, online: (node: string) => boolean): boolean {
  return t.pools.some((pool) => pool.sets.some((set) => {
    const up = set.filter((e) => !e.isLocal && online(e.node)).length;
    return up < setWriteQuorum(set.length, pool.parity);
  }));
}
