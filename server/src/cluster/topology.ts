/**
 * Endpoint arguments → pools → erasure sets, and which drives belong to this node (REFERENCE.md fact 4, §1.3;
 * issue 4 "Endpoints"). Pure: no DNS, no file system; the node's identity is an input.
 *
 * MinIO semantics kept here:
 * - each space-separated argument with an ellipsis is a pool; several plain arguments form one pool;
 * - the last range is iterated outermost (config's expandEllipsis), so a set spans nodes;
 * - set size per pool by config's chooseSetSize (GCD of the argument sizes, symmetric with the ranges);
 * - a URL without a port gets the node's own port (every node listens on the same S3 port);
 * - paths and URLs are never mixed, and a drive may appear once.
 */
import { ConfigError, chooseSetSize, expandEllipsis, hasEllipsis, layoutPool } from '../config/index.js';

/** One drive of the deployment, with its position. */
export interface Endpoint {
  /** Canonical form: `http://host:port/path` (URL form) or the absolute path (path form). */
  readonly id: string;
  /** `host:port` of the node owning the drive ('' in path form). */
  readonly node: string;
  readonly host: string;
  readonly port: number;
  readonly scheme: 'http' | 'https' | '';
  /** Absolute drive path on its node. */
  readonly path: string;
  /** True when the drive belongs to this node (served locally, not over RPC). */
  readonly isLocal: boolean;
  readonly pool: number;
  readonly set: number;
  /** Position inside the set. */
  readonly index: number;
}

/** One pool: its erasure sets and default parity. */
export interface PoolTopology {
  readonly sets: readonly (readonly Endpoint[])[];
  readonly setDriveCount: number;
  readonly parity: number;
}

/** The deployment as seen from this node. */
export interface Topology {
  readonly kind: 'path' | 'url';
  readonly pools: readonly PoolTopology[];
  /** Every drive in pool, set, position order. */
  readonly endpoints: readonly Endpoint[];
  /** `host:port` of this node ('' in path form). */
  readonly self: string;
  /** Distinct `host:port` of the other nodes, in order of first appearance. */
  readonly peers: readonly string[];
  /** Distinct `host:port` of every node (this one included), in order of first appearance. */
  readonly nodes: readonly string[];
}

/** Who this node is: its listen port and every host name or address it answers to. */
export interface NodeIdentity {
  port: number;
  /** Host names and addresses of this node (bind address, hostname, interface addresses); compared case-insensitively. */
  hosts: readonly string[];
}

/** Options of {@link parseTopology}. */
export interface TopologyOptions {
  /** `EC:N` override of the default parity (SVC_STORAGE_CLASS_STANDARD). */
  parity?: string;
}

const USAGE = 'use either drive paths (/data{1...4}) or node URLs (http://node{1...4}:9000/data{1...4}), not both';

interface Parsed {
  id: string;
  node: string;
  host: string;
  port: number;
  scheme: 'http' | 'https' | '';
  path: string;
}

function isUrl(arg: string): boolean {
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(arg);
}

function normHost(host: string): string {
  return host.toLowerCase().replace(/^\[|\]$/g, '');
}

function parseUrlDrive(raw: string, defaultPort: number): Parsed {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(`"${raw}" is not a valid endpoint URL`, 'expected http://<host>:<port>/<absolute path>');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ConfigError(`endpoint "${raw}" has scheme ${u.protocol.slice(0, -1)}`, 'use http:// or https://');
  }
  if (u.username !== '' || u.password !== '' || u.search !== '' || u.hash !== '') {
    throw new ConfigError(`endpoint "${raw}" carries credentials, a query or a fragment`, 'expected http://<host>:<port>/<absolute path>');
  }
  const path = decodeURIComponent(u.pathname).replace(/\/+$/, '');
  if (path === '' || path.split('/').some((seg) => seg === '.' || seg === '..')) {
    throw new ConfigError(`endpoint "${raw}" has no drive path`, 'give the absolute drive path on the node, e.g. http://node1:9000/srv/d1');
  }
  const host = normHost(u.hostname);
  const port = u.port === '' ? defaultPort : Number(u.port);
  const scheme = u.protocol === 'https:' ? 'https' : 'http';
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const node = `${hostPart}:${port}`;
  return { id: `${scheme}://${node}${path}`, node, host, port, scheme, path };
}

function parsePathDrive(raw: string): Parsed {
  if (!raw.startsWith('/')) {
    throw new ConfigError(`drive "${raw}" is not an absolute path`, 'resolve relative drive paths before building the topology');
  }
  const path = raw.length > 1 ? raw.replace(/\/+$/, '') : raw;
  return { id: path, node: '', host: '', port: 0, scheme: '', path };
}

/** Groups the arguments into pools: each ellipsis argument alone, all plain arguments together. */
function groupPools(args: readonly string[]): string[][] {
  const withRanges = args.filter(hasEllipsis);
  if (withRanges.length === 0) return [[...args]];
  if (withRanges.length !== args.length) {
    const plain = args.filter((a) => !hasEllipsis(a));
    throw new ConfigError(
      `endpoint arguments mix ellipsis and plain forms: ${plain.map((a) => `"${a}"`).join(', ')} has no {a...b} range`,
      'either write every pool with ranges (http://node{1...4}:9000/d{1...4}) or list every drive as a plain argument',
    );
  }
  return args.map((a) => [a]);
}

function rangeSizesOf(arg: string): number[] {
  // Ranges are counted by expanding each one alone (config's ellipsis parser is the one source of truth).
  const sizes: number[] = [];
  const re = /\{[0-9a-fA-F]+\.\.\.[0-9a-fA-F]+\}/g;
  for (const m of arg.matchAll(re)) sizes.push(expandEllipsis(m[0]).length);
  return sizes;
}

/**
 * Parses `svc server` endpoint arguments into the deployment topology and marks this node's drives.
 * Throws ConfigError (exit code 2) naming the offending argument: mixed forms, bad URLs, duplicates,
 * drive counts that cannot be split into sets of 2..16, or (URL form) no drive on this node.
 */
export function parseTopology(args: readonly string[], self: NodeIdentity, opts: TopologyOptions = {}): Topology {
  if (args.length === 0) throw new ConfigError('no drives given', 'give drive paths or node URLs, e.g. http://node{1...4}:9000/srv/d{1...4}');
  const urls = args.filter(isUrl);
  if (urls.length !== 0 && urls.length !== args.length) {
    const path = args.find((a) => !isUrl(a)) ?? '';
    throw new ConfigError(`"${path}" is a path but "${urls[0]}" is a URL`, USAGE);
  }
  const kind = urls.length === 0 ? 'path' : 'url';
  const selfHosts = new Set(self.hosts.map(normHost));
  const seen = new Set<string>();
  const endpoints: Endpoint[] = [];
  const pools: PoolTopology[] = [];
  for (const poolArgs of groupPools(args)) {
    const expanded = poolArgs.map((a) => expandEllipsis(a));
    const parsed = expanded.flat().map((d) => (kind === 'url' ? parseUrlDrive(d, self.port) : parsePathDrive(d)));
    for (const p of parsed) {
      if (seen.has(p.id)) throw new ConfigError(`drive "${p.id}" is given twice`, 'each drive may appear once across all pools');
      seen.add(p.id);
    }
    const setSize = chooseSetSize(expanded.map((e) => e.length), poolArgs.flatMap(rangeSizesOf));
    const layout = layoutPool(parsed.map((p) => p.id), setSize, opts.parity);
    const byId = new Map(parsed.map((p) => [p.id, p]));
    const poolIndex = pools.length;
    const sets = layout.sets.map((ids, s) => ids.map((id, index): Endpoint => {
      const p = byId.get(id)!;
      const isLocal = kind === 'path' || (p.port === self.port && selfHosts.has(p.host));
      const e: Endpoint = { ...p, isLocal, pool: poolIndex, set: s, index };
      endpoints.push(e);
      return e;
    }));
    pools.push({ sets, setDriveCount: layout.setDriveCount, parity: layout.parity });
  }
  const nodes = [...new Set(endpoints.map((e) => e.node))];
  const local = [...new Set(endpoints.filter((e) => e.isLocal).map((e) => e.node))];
  if (kind === 'url' && local.length === 0) {
    throw new ConfigError(
      `none of the endpoints is on this node (port ${self.port}, host ${[...selfHosts].join(', ') || 'unknown'})`,
      'start every node with the same endpoint list, and let each node listen on the host:port its endpoints name',
    );
  }
  if (local.length > 1) {
    throw new ConfigError(`endpoints name this node twice (${local.join(' and ')})`, 'use one host name per node in the endpoint list');
  }
  const selfNode = kind === 'url' ? local[0]! : '';
  return Object.freeze({
    kind, pools, endpoints, self: selfNode, nodes: kind === 'url' ? nodes : [], peers: kind === 'url' ? nodes.filter((n) => n !== selfNode) : [],
  });
}
