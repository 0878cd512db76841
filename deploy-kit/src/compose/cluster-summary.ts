/**
 * The short cluster summary `status` shows, read from the admin API's information report
 * (`GET /svc/admin/v3/info`, docs/admin-api.md, report format version 1): status, servers and drives online,
 * used of total capacity. Pure: the report is untrusted JSON, so every field is checked and a report that does not
 * have the documented shape is refused with the reason (never a crash).
 */

/** What `status` shows about the cluster. */
export interface ClusterSummary {
  /** "online" | "degraded" | "offline" as the report says (docs/admin-api.md). */
  readonly status: string;
  readonly servers: { readonly online: number; readonly total: number };
  readonly drives: { readonly online: number; readonly total: number };
  /** Sums over online drives (bytes; percent 0..100). */
  readonly usage: { readonly usedBytes: number; readonly totalBytes: number; readonly usedPercent: number };
  readonly serverVersion: string;
}

/** The summary, or why the report could not be read. */
export type ClusterSummaryResult = { readonly ok: true; readonly summary: ClusterSummary } | { readonly ok: false; readonly error: string };

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function count(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
}

function bytes(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** Reads the summary out of an information report (format version 1). */
export function summarizeClusterInfo(report: unknown): ClusterSummaryResult {
  const bad = (what: string): ClusterSummaryResult => ({ ok: false, error: `the admin info report ${what}` });
  if (!isObj(report)) return bad('is not a JSON object');
  if (report['version'] !== 1) return bad(`has format version ${JSON.stringify(report['version'])}, not 1`);
  const status = report['status'];
  if (typeof status !== 'string' || status === '') return bad('has no status');
  const backend = report['backend'];
  if (!isObj(backend)) return bad('has no backend');
  const online = count(backend['onlineDrives']);
  const offline = count(backend['offlineDrives']);
  if (online === undefined || offline === undefined) return bad('has no drive counts');
  const servers = report['servers'];
  if (!Array.isArray(servers) || !servers.every(isObj)) return bad('has no server list');
  const usage = report['usage'];
  if (!isObj(usage)) return bad('has no usage');
  const usedBytes = bytes(usage['usedBytes']);
  const totalBytes = bytes(usage['totalBytes']);
  const usedPercent = bytes(usage['usedPercent']);
  if (usedBytes === undefined || totalBytes === undefined || usedPercent === undefined) return bad('has no usage figures');
  return {
    ok: true,
    summary: {
      status,
      servers: { online: servers.filter((s) => s['state'] === 'online').length, total: servers.length },
      drives: { online, total: online + offline },
      usage: { usedBytes, totalBytes, usedPercent },
      serverVersion: typeof report['serverVersion'] === 'string' ? report['serverVersion'] : '',
    },
  };
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'] as const;

/** Bytes for people: 1 decimal in binary units (1536 → "1.5 KiB"). */
export function formatBytes(n: number): string {
  let v = n;
  let unit = 0;
  while (v >= 1024 && unit < UNITS.length - 1) {
    v /= 1024;
    unit++;
  }
  return unit === 0 ? `${v} B` : `${v.toFixed(1)} ${UNITS[unit]}`;
}

/** The figures after the status: `servers 4/4 online, drives 4/4 online, 1.2 GiB used of 40.0 GiB (3.0%)`. */
export function describeClusterFigures(s: ClusterSummary): string {
  return `servers ${s.servers.online}/${s.servers.total} online, drives ${s.drives.online}/${s.drives.total} online, `
    + `${formatBytes(s.usage.usedBytes)} used of ${formatBytes(s.usage.totalBytes)} (${s.usage.usedPercent.toFixed(1)}%)`;
}
