/**
 * Startup handshake with the other nodes (issue 4 "Startup waits for peers … a node started with a different
 * layout or credentials is refused with a message that names the difference"). Each peer is asked for its info
 * until it answers; a peer that refuses our token, or reports another endpoint list, ends the start with a
 * ConfigError (exit code 2) naming that peer and the difference.
 */
import { ConfigError } from '../../config/index.js';
import { RpcTokenSource, RpcUnavailableError } from '../rpc/index.js';
import type { RpcCredentials } from '../rpc/index.js';
import type { Topology } from '../topology.js';
import { fetchPeerInfo } from './peer-client.js';
import { credentialsFingerprint, endpointsFingerprint } from './peer-info.js';
import type { PeerInfo } from './peer-info.js';
import { nodeQuorum } from './quorum.js';

/** Options of {@link waitForPeers}. */
export interface PeerWaitOptions {
  topology: Topology;
  credentials: RpcCredentials;
  /** Give up after this long (default 120 s): RpcUnavailableError naming the missing nodes. */
  timeoutMs?: number;
  /** Pause between rounds (default 1 s). */
  intervalMs?: number;
  /** Deadline of one info call (default 2 s). */
  callTimeoutMs?: number;
  /**
   * Once this long has passed, a majority of the nodes (this one included) is enough to go on (default 5 s):
   * a node restarted while another is down must not wait for it.
   */
  graceMs?: number;
  /** Called about every 5 s while nodes are missing, with their `host:port`. */
  onWait?: (missing: readonly string[]) => void;
}

/** What the handshake saw. */
export interface PeerWaitResult {
  reached: string[];
  missing: string[];
}

function check(node: string, info: PeerInfo, ours: { endpoints: string; credentials: string; drives: number }): void {
  if (info.credentials !== ours.credentials) {
    throw new ConfigError(`peer ${node} rejects our credentials: SVC_ACCESS_KEY/SVC_SECRET_KEY differ`,
      'start every node with the same root credentials');
  }
  if (info.endpoints !== ours.endpoints) {
    const count = info.drives === ours.drives ? `the same number of drives (${ours.drives}) in another order or layout` : `${info.drives} drives, we have ${ours.drives}`;
    throw new ConfigError(`peer ${node} was started with a different drive list (${count})`,
      'start every node with the same endpoint arguments and the same SVC_STORAGE_CLASS_STANDARD');
  }
}

/** Resolves once every peer answered (or, after the grace period, a majority of the nodes); see the module comment. */
export async function waitForPeers(opts: PeerWaitOptions): Promise<PeerWaitResult> {
  const { topology } = opts;
  const started = Date.now();
  const timeout = opts.timeoutMs ?? 120_000;
  const interval = opts.intervalMs ?? 1_000;
  const grace = opts.graceMs ?? 5_000;
  const tokens = new RpcTokenSource(opts.credentials);
  const ours = {
    endpoints: endpointsFingerprint(topology),
    credentials: credentialsFingerprint(opts.credentials),
    drives: topology.endpoints.length,
  };
  const reached = new Set<string>();
  const quorum = nodeQuorum(topology.nodes.length);
  let lastReport = started;
  for (;;) {
    const pending = topology.peers.filter((p) => !reached.has(p));
    const answers = await Promise.all(pending.map(async (node) => ({ node, answer: await fetchPeerInfo(node, tokens, opts.callTimeoutMs ?? 2_000) })));
    for (const { node, answer } of answers) {
      if (answer.kind === 'rejected') {
        throw new ConfigError(`peer ${node} rejects our credentials: SVC_ACCESS_KEY/SVC_SECRET_KEY differ`,
          'start every node with the same root credentials');
      }
      if (answer.kind === 'ok') {
        check(node, answer.info, ours);
        reached.add(node);
      }
    }
    const missing = topology.peers.filter((p) => !reached.has(p));
    const elapsed = Date.now() - started;
    if (missing.length === 0 || (reached.size + 1 >= quorum && elapsed >= grace)) return { reached: [...reached], missing };
    if (elapsed + interval > timeout) {
      throw new RpcUnavailableError('cluster', `peers not reachable within ${Math.round(timeout / 1000)} s: ${missing.join(', ')}`);
    }
    if (Date.now() - lastReport >= 5_000) {
      lastReport = Date.now();
      opts.onWait?.(missing);
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}
