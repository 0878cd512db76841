/**
 * Human views of the information report (SPEC §2 "Cluster information report"): Overview, node list, disk list
 * and Storage summary, merging mc's per-node block with RustFS rc's overview (REFERENCE.md §1.2). Every line fits
 * in {@link WIDTH} columns (colour escapes excluded).
 */
import { type Palette, stateColor } from './color.js';
import { fitMiddle, humanBytes, humanDuration, ordinal, padEnd, padStart } from './format.js';
import type { InfoDrive, InfoReport, InfoServer } from './info-report.js';

/** The terminal width every view fits in. */
export const WIDTH = 80;

/** mc counts a drive as online when its state is `ok` or `unformatted` (REFERENCE.md §1.2 counting rules). */
export function driveOnline(d: InfoDrive): boolean {
  return d.state === 'ok' || d.state === 'unformatted';
}

function label(name: string, value: string): string {
  return `  ${padEnd(`${name}:`, 12)} ${value}`;
}

function backendLine(r: InfoReport): string {
  const pools = r.backend.pools;
  if (pools.length === 0) return r.backend.type;
  const shape = pools.map((p) => `${p.sets} set${p.sets === 1 ? '' : 's'} of ${p.drivesPerSet} drives`).join(', ');
  return `${r.backend.type}, ${pools.length} pool${pools.length === 1 ? '' : 's'} (${shape})`;
}

/** The Overview block. */
export function renderOverview(r: InfoReport, p: Palette): string[] {
  const online = r.servers.filter((s) => s.state === 'online').length;
  const drivesOnline = r.drives.filter(driveOnline).length;
  const lines = [
    p.bold('Overview'),
    label('Status', stateColor(p, r.status)),
    label('Version', r.serverVersion || '-'),
    label('Servers', `${online}/${r.servers.length} online`),
    label('Disks', `${drivesOnline}/${r.drives.length} online`),
    label('Backend', fitMiddle(backendLine(r), WIDTH - 15)),
    label('EC parity', `${r.backend.standardParity} (EC:${r.backend.standardParity})`),
  ];
  if (r.deploymentId) lines.push(label('Deployment', r.deploymentId));
  if (r.region) lines.push(label('Region', r.region));
  lines.push(label('Buckets', r.buckets.count === null ? '-' : String(r.buckets.count)));
  lines.push(label('Objects', r.objects.count === null ? '-' : String(r.objects.count)));
  return lines;
}

function networkLine(s: InfoServer): string {
  if (s.state !== 'online') return '-';
  // The map holds the peers; the node itself counts as one reachable connection, as in mc's count.
  const peers = Object.values(s.network);
  return `${peers.filter((v) => v === 'online').length + 1}/${peers.length + 1} OK`;
}

/** One node block: dot + endpoint + state, then uptime, version, network, drives and pools. */
export function renderServer(s: InfoServer, p: Palette, detail = false): string[] {
  const dot = s.state === 'online' ? p.green('●') : p.red('●');
  const ok = s.drives.filter(driveOnline).length;
  const lines = [
    `${dot} ${fitMiddle(s.endpoint || '(local)', WIDTH - 14)}  ${stateColor(p, s.state)}`,
    `   Uptime:  ${s.state === 'online' && s.uptimeSeconds !== null ? humanDuration(s.uptimeSeconds) : 'offline'}`,
    `   Version: ${s.version ?? '-'}`,
    `   Network: ${networkLine(s)}`,
    `   Drives:  ${ok}/${s.drives.length} OK`,
    `   Pool:    ${s.pools.length === 0 ? '-' : s.pools.map(ordinal).join(', ')}`,
  ];
  if (detail) {
    for (const [peer, state] of Object.entries(s.network).sort(([a], [b]) => a.localeCompare(b))) {
      lines.push(`     ${padEnd(fitMiddle(peer, 50), 50)} ${stateColor(p, state)}`);
    }
  }
  return lines;
}

/** The node list. */
export function renderServers(r: InfoReport, p: Palette, detail = false): string[] {
  const lines = [p.bold('Servers')];
  const sorted = [...r.servers].sort((a, b) => a.endpoint.localeCompare(b.endpoint));
  for (const s of sorted) lines.push(...renderServer(s, p, detail));
  return lines;
}

const STATE_W = 11;
const SIZE_W = 10;
const PATH_W = WIDTH - (4 + 4 + 5 + 2 + STATE_W + 3 * (SIZE_W + 1) + 1);

/** The longest common directory (ending in `/`) of `paths`, so rows can show only what differs. */
export function commonDir(paths: readonly string[]): string {
  if (paths.length === 0) return '';
  let prefix = paths[0] ?? '';
  for (const p of paths) while (!p.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix.slice(0, prefix.lastIndexOf('/') + 1);
}

/**
 * The disk list: one header, then per server a heading (endpoint and the drives' common directory) and its drives
 * (pool, set, position, state, used/total/available, the rest of the path).
 */
export function renderDisks(r: InfoReport, p: Palette, filter: (d: InfoDrive) => boolean = () => true): string[] {
  const header = `${padStart('POOL', 4)}${padStart('SET', 4)}${padStart('DISK', 5)}  ${padEnd('STATE', STATE_W)}${padStart('USED', SIZE_W + 1)}${padStart('TOTAL', SIZE_W + 1)}${padStart('AVAILABLE', SIZE_W + 1)} PATH`;
  const lines = [p.bold('Disks'), header];
  const byServer = new Map<string, InfoDrive[]>();
  for (const d of r.drives.filter(filter)) {
    const list = byServer.get(d.server) ?? [];
    list.push(d);
    byServer.set(d.server, list);
  }
  for (const [srv, drives] of [...byServer].sort(([a], [b]) => a.localeCompare(b))) {
    const dir = commonDir(drives.map((d) => d.path));
    const head = srv || '(local)';
    lines.push(p.dim(dir ? `${head}  ${fitMiddle(dir, WIDTH - head.length - 2)}` : fitMiddle(head, WIDTH)));
    for (const d of drives.sort((a, b) => a.pool - b.pool || a.set - b.set || a.index - b.index)) {
      const state = d.healing && d.state === 'ok' ? 'healing' : d.state;
      const size = (n: number) => padStart(d.state === 'offline' ? '-' : humanBytes(n), SIZE_W + 1);
      lines.push(`${padStart(String(d.pool), 4)}${padStart(String(d.set), 4)}${padStart(String(d.index), 5)}  ${stateColor(p, state)}${' '.repeat(Math.max(0, STATE_W - state.length))}`
        + `${size(d.usedBytes)}${size(d.totalBytes)}${size(d.availableBytes)} ${fitMiddle(d.path.slice(dir.length) || d.path, PATH_W)}`);
    }
  }
  return lines;
}

/** The Storage summary: used, total, percent (sums over online drives, computed by the server). */
export function renderStorage(r: InfoReport, p: Palette): string[] {
  const u = r.usage;
  return [
    p.bold('Storage'),
    label('Used', `${humanBytes(u.usedBytes)} of ${humanBytes(u.totalBytes)} (${u.usedPercent.toFixed(1)}%)`),
    label('Available', humanBytes(u.availableBytes)),
  ];
}

/** `rc admin info cluster`: all four sections separated by blank lines. */
export function renderCluster(r: InfoReport, p: Palette): string {
  return [...renderOverview(r, p), '', ...renderServers(r, p), '', ...renderDisks(r, p), '', ...renderStorage(r, p)].join('\n');
}
