/**
 * The cluster information report of `GET /svc/admin/v3/info` (docs/admin-api.md, SPEC §2) as `rc` reads it.
 * The server is another program: its answer is checked here once, so renderers can trust the shape.
 */
import { EXIT, RcError } from './errors.js';

/** A drive of the report. Sizes in bytes, indexes 1-based. */
export interface InfoDrive {
  endpoint: string;
  server: string;
  path: string;
  state: string;
  uuid: string;
  pool: number;
  set: number;
  index: number;
  totalBytes: number;
  usedBytes: number;
  availableBytes: number;
  healing: boolean;
}

/** A server (node) of the report. */
export interface InfoServer {
  endpoint: string;
  state: string;
  uptimeSeconds: number | null;
  version: string | null;
  pools: number[];
  network: Record<string, string>;
  drives: InfoDrive[];
}

/** A pool of the backend. */
export interface InfoPool {
  pool: number;
  sets: number;
  drivesPerSet: number;
  parity: number;
  readQuorum: number;
  writeQuorum: number;
}

/** The whole report (format version 1). */
export interface InfoReport {
  version: number;
  status: string;
  serverVersion: string;
  deploymentId: string;
  region: string;
  backend: { type: string; onlineDrives: number; offlineDrives: number; standardParity: number; pools: InfoPool[] };
  servers: InfoServer[];
  drives: InfoDrive[];
  usage: { totalBytes: number; usedBytes: number; availableBytes: number; usedPercent: number };
  buckets: { count: number | null };
  objects: { count: number | null };
}

/** The report format versions this `rc` understands. */
export const SUPPORTED_INFO_VERSIONS: readonly number[] = [1];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown, d = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : d);
const str = (v: unknown, d = ''): string => (typeof v === 'string' ? v : d);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function drive(v: unknown): InfoDrive {
  const d = isObj(v) ? v : {};
  return {
    endpoint: str(d['endpoint']), server: str(d['server']), path: str(d['path'], str(d['endpoint'])), state: str(d['state'], 'unknown'),
    uuid: str(d['uuid']), pool: num(d['pool']), set: num(d['set']), index: num(d['index']),
    totalBytes: num(d['totalBytes']), usedBytes: num(d['usedBytes']), availableBytes: num(d['availableBytes']), healing: d['healing'] === true,
  };
}

function server(v: unknown): InfoServer {
  const s = isObj(v) ? v : {};
  const network: Record<string, string> = {};
  if (isObj(s['network'])) for (const [k, val] of Object.entries(s['network'])) network[k] = str(val, 'unknown');
  return {
    endpoint: str(s['endpoint']), state: str(s['state'], 'unknown'),
    uptimeSeconds: typeof s['uptimeSeconds'] === 'number' ? s['uptimeSeconds'] : null,
    version: typeof s['version'] === 'string' ? s['version'] : null,
    pools: arr(s['pools']).filter((p): p is number => typeof p === 'number'),
    network, drives: arr(s['drives']).map(drive),
  };
}

const count = (v: unknown): { count: number | null } => ({ count: isObj(v) && typeof v['count'] === 'number' ? v['count'] : null });

/** Checks and normalizes the server's answer; an unknown format version or a non-report is a clear error. */
export function parseInfoReport(raw: unknown): InfoReport {
  if (!isObj(raw) || typeof raw['version'] !== 'number' || !Array.isArray(raw['servers'])) {
    throw new RcError(EXIT.failure, 'the server answered something that is not a cluster information report', { hint: 'is the alias URL an svc server?' });
  }
  const version = raw['version'];
  if (!SUPPORTED_INFO_VERSIONS.includes(version)) {
    throw new RcError(EXIT.failure, `the server's information report has format version ${version}; this rc reads version ${SUPPORTED_INFO_VERSIONS.join(', ')}`, { hint: 'upgrade rc, or use --json to see the raw report' });
  }
  const b = isObj(raw['backend']) ? raw['backend'] : {};
  const u = isObj(raw['usage']) ? raw['usage'] : {};
  return {
    version, status: str(raw['status'], 'unknown'), serverVersion: str(raw['serverVersion']), deploymentId: str(raw['deploymentId']), region: str(raw['region']),
    backend: {
      type: str(b['type'], 'Erasure'), onlineDrives: num(b['onlineDrives']), offlineDrives: num(b['offlineDrives']), standardParity: num(b['standardParity']),
      pools: arr(b['pools']).map((p) => {
        const o = isObj(p) ? p : {};
        return { pool: num(o['pool']), sets: num(o['sets']), drivesPerSet: num(o['drivesPerSet']), parity: num(o['parity']), readQuorum: num(o['readQuorum']), writeQuorum: num(o['writeQuorum']) };
      }),
    },
    servers: raw['servers'].map(server),
    drives: arr(raw['drives']).map(drive),
    usage: { totalBytes: num(u['totalBytes']), usedBytes: num(u['usedBytes']), availableBytes: num(u['availableBytes']), usedPercent: num(u['usedPercent']) },
    buckets: count(raw['buckets']), objects: count(raw['objects']),
  };
}
