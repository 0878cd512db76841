/**
 * The servers of the whole deployment for the cluster information report (issue 5 "any node answers for the
 * whole deployment"): this node's own report, and each peer's, asked with a deadline. A peer that does not answer
 * in time is reported offline with all its drives offline — never as missing, never a hang.
 */
import { request } from 'undici';
import { RpcTokenSource } from '../rpc/index.js';
import type { RpcCredentials } from '../rpc/index.js';
import type { Topology } from '../topology.js';
import { SERVER_INFO_PATH } from './server-info-plugin.js';
import { offlineServerReport } from './server-info.js';
import type { DrivePlace, ServerReport } from './server-info.js';

/** Options of {@link ServerReports}. */
export interface ServerReportsOptions {
  topology: Topology;
  credentials: RpcCredentials;
  /** This node's own report. */
  local: () => Promise<ServerReport>;
  /** Deadline of one peer call (default 3 s, the admin API contract). */
  timeoutMs?: number;
}

/** The drives of `node` in the topology, as report places. */
export function drivePlacesOf(topology: Topology, node: string): DrivePlace[] {
  return topology.endpoints.filter((e) => e.node === node)
    .map((e) => ({ endpoint: e.id, path: e.path, pool: e.pool, set: e.set, index: e.index }));
}

function isServerReport(v: unknown): v is ServerReport {
  const r = v as Partial<ServerReport> | null;
  return typeof r === 'object' && r !== null && typeof r.endpoint === 'string' && r.state === 'online'
    && Array.isArray(r.drives) && Array.isArray(r.pools) && typeof r.network === 'object' && r.network !== null;
}

/** GET a peer's report with the node token, bounded by `timeoutMs`; undefined when it does not answer properly. */
export async function fetchServerReport(node: string, tokens: RpcTokenSource, timeoutMs: number): Promise<ServerReport | undefined> {
  try {
    const res = await request(`http://${node}${SERVER_INFO_PATH}`, {
      method: 'GET', headers: { authorization: tokens.header() },
      signal: AbortSignal.timeout(timeoutMs), headersTimeout: timeoutMs, bodyTimeout: timeoutMs,
    });
    if (res.statusCode !== 200) {
      await res.body.dump();
      return undefined;
    }
    const body: unknown = await res.body.json();
    return isServerReport(body) ? body : undefined;
  } catch {
    return undefined;
  }
}

/** Every server of the deployment, in topology order. */
export class ServerReports {
  readonly #topology: Topology;
  readonly #tokens: RpcTokenSource;
  readonly #local: () => Promise<ServerReport>;
  readonly #timeoutMs: number;

  constructor(opts: ServerReportsOptions) {
    this.#topology = opts.topology;
    this.#tokens = new RpcTokenSource(opts.credentials);
    this.#local = opts.local;
    this.#timeoutMs = opts.timeoutMs ?? 3_000;
  }

  /** Asks every peer at once; resolves within about one deadline. */
  async all(): Promise<ServerReport[]> {
    const t = this.#topology;
    return Promise.all(t.nodes.map(async (node) => {
      if (node === t.self) return this.#local();
      // The peer's own endpoint name is the topology's: the report keys servers by the endpoint list.
      const answer = await fetchServerReport(node, this.#tokens, this.#timeoutMs);
      return answer === undefined ? offlineServerReport(node, drivePlacesOf(t, node)) : { ...answer, endpoint: node };
    }));
  }
}

/** This node's view of its peers after a fresh ping round (the `network` map of its report). */
export async function peerNetwork(topology: Topology, monitor: { refresh(): Promise<void>; reachable(): ReadonlySet<string> }): Promise<Record<string, 'online' | 'offline'>> {
  await monitor.refresh();
  const up = monitor.reachable();
  return Object.fromEntries(topology.peers.map((p) => [p, up.has(p) ? 'online' : 'offline'] as const));
}
