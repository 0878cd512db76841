/**
 * Which peers answer right now (issue 4 "Health with cluster semantics"): a cheap authenticated ping of every peer,
 * in the background and on demand from the probes. A peer that is down costs one call deadline, never a hang.
 */
import { RpcTokenSource } from '../rpc/index.js';
import type { RpcCredentials } from '../rpc/index.js';
import type { Topology } from '../topology.js';
import { fetchPeerInfo } from './peer-client.js';
import { nodeQuorum } from './quorum.js';

/** Options of {@link PeerMonitor}. */
export interface PeerMonitorOptions {
  topology: Topology;
  credentials: RpcCredentials;
  /** Background ping period (default 2 s). */
  intervalMs?: number;
  /** Deadline of one ping (default 1 s). */
  callTimeoutMs?: number;
}

/** Tracks reachable peers. */
export class PeerMonitor {
  readonly #topology: Topology;
  readonly #tokens: RpcTokenSource;
  readonly #callTimeout: number;
  readonly #timer: NodeJS.Timeout;
  #reachable = new Set<string>();
  #round: Promise<void> | undefined;

  constructor(opts: PeerMonitorOptions) {
    this.#topology = opts.topology;
    this.#tokens = new RpcTokenSource(opts.credentials);
    this.#callTimeout = opts.callTimeoutMs ?? 1_000;
    this.#timer = setInterval(() => { void this.refresh(); }, opts.intervalMs ?? 2_000);
    this.#timer.unref();
  }

  /** Peers that answered the last round. */
  reachable(): ReadonlySet<string> {
    return this.#reachable;
  }

  /** Pings every peer now (concurrent callers share one round). */
  refresh(): Promise<void> {
    this.#round ??= (async () => {
      try {
        const answers = await Promise.all(this.#topology.peers.map(async (node) => ({
          node, ok: (await fetchPeerInfo(node, this.#tokens, this.#callTimeout)).kind === 'ok',
        })));
        this.#reachable = new Set(answers.filter((a) => a.ok).map((a) => a.node));
      } finally {
        this.#round = undefined;
      }
    })();
    return this.#round;
  }

  /** True when a majority of the nodes (this one included) answers: the lockers' write quorum (REFERENCE.md fact 8). */
  async majorityReachable(): Promise<boolean> {
    await this.refresh();
    return this.#reachable.size + 1 >= nodeQuorum(this.#topology.nodes.length);
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
