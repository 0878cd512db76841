/**
 * The Status page (SPEC §4): cluster state, servers, used/total capacity, every disk — the admin info report,
 * pushed over the WebSocket /svc/console/ws so changes show without a reload.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from './api.js';
import { bytes, duration } from './format.js';

interface Drive {
  endpoint: string; server: string; path: string; state: string; pool: number; set: number; index: number;
  totalBytes: number; usedBytes: number; availableBytes: number; healing: boolean;
}
interface Server {
  endpoint: string; state: 'online' | 'offline'; uptimeSeconds: number | null; version: string | null;
  network: Record<string, 'online' | 'offline'>; drives: Drive[];
}
interface Report {
  status: 'online' | 'degraded' | 'offline';
  serverVersion: string;
  backend: { onlineDrives: number; offlineDrives: number; standardParity: number };
  servers: Server[];
  drives: Drive[];
  usage: { totalBytes: number; usedBytes: number; availableBytes: number; usedPercent: number };
  buckets: { count: number };
  objects: { count: number | null };
}

type Link = 'connecting' | 'live' | 'reconnecting';

function network(s: Server): string {
  const peers = Object.values(s.network);
  if (s.state === 'offline') return '—';
  return `${peers.filter((p) => p === 'online').length + 1}/${peers.length + 1}`;
}

/** See the module comment. */
export function Status() {
  const [report, setReport] = useState<Report | undefined>(undefined);
  const [error, setError] = useState('');
  const [link, setLink] = useState<Link>('connecting');

  useEffect(() => {
    let socket: WebSocket | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const connect = () => {
      socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/svc/console/ws`);
      socket.onopen = () => setLink('live');
      socket.onmessage = (e) => {
        const msg = JSON.parse(String(e.data)) as { type: string; report?: Report; message?: string };
        if (msg.type === 'status' && msg.report !== undefined) {
          setReport(msg.report);
          setError('');
        } else if (msg.type === 'error') {
          setError(msg.message ?? 'The report failed.');
        }
      };
      socket.onclose = (e) => {
        if (stopped) return;
        setLink('reconnecting');
        if (e.code === 4401) {
          setError(e.reason || 'Your session ended; sign in again.');
          // Ask once over HTTP: a 401 sends the page back to sign-in, a 403 explains the permission.
          void api('GET', '/status').catch((err: unknown) => { if (err instanceof ApiError) setError(err.message); });
          return;
        }
        retry = setTimeout(connect, 2000);
      };
    };
    // The first answer over HTTP gives a clear refusal (403 without admin:ServerInfo) before the socket opens.
    api<Report>('GET', '/status').then((r) => { setReport(r); connect(); }, (err: unknown) => {
      setError(err instanceof ApiError ? err.message : 'The server cannot be reached.');
      if (!(err instanceof ApiError) || err.status >= 500) connect();
    });
    return () => {
      stopped = true;
      if (retry !== undefined) clearTimeout(retry);
      socket?.close();
    };
  }, []);

  if (report === undefined) {
    return <section><h1>Status</h1>{error !== '' ? <p class="error" role="alert" data-testid="error">{error}</p> : <p>Loading…</p>}</section>;
  }
  const drivesTotal = report.drives.length;
  const serversOnline = report.servers.filter((s) => s.state === 'online').length;
  return (
    <section>
      <div class="title-row">
        <h1>Status</h1>
        <span class={`pill ${link}`} data-testid="live">{link === 'live' ? 'live' : link}</span>
      </div>
      {error !== '' && <p class="error" role="alert" data-testid="error">{error}</p>}
      <div class="cards">
        <div class="card"><h2>Cluster</h2><p class={`state ${report.status}`} data-testid="cluster-status">{report.status}</p></div>
        <div class="card"><h2>Servers</h2><p data-testid="servers-count" data-online={serversOnline}>{report.servers.length}</p><small>{serversOnline} online</small></div>
        <div class="card"><h2>Drives online</h2><p data-testid="drives-online">{report.backend.onlineDrives}/{drivesTotal}</p><small>EC:{report.backend.standardParity}</small></div>
        <div class="card wide">
          <h2>Capacity</h2>
          <p><span data-testid="usage-used" data-bytes={report.usage.usedBytes}>{bytes(report.usage.usedBytes)}</span> used of{' '}
            <span data-testid="usage-total" data-bytes={report.usage.totalBytes}>{bytes(report.usage.totalBytes)}</span></p>
          <meter min={0} max={100} value={report.usage.usedPercent} aria-label="Used capacity">{report.usage.usedPercent}%</meter>
          <small>{report.usage.usedPercent}% · {report.buckets.count} buckets · {report.objects.count ?? 'many'} objects</small>
        </div>
      </div>
      <h2>Servers</h2>
      <div class="scroll">
        <table data-testid="servers">
          <thead><tr><th>Server</th><th>State</th><th>Uptime</th><th>Network</th><th>Drives</th><th>Version</th></tr></thead>
          <tbody>
            {report.servers.map((s) => (
              <tr key={s.endpoint} data-testid="server-row" data-endpoint={s.endpoint} data-state={s.state}>
                <td>{s.endpoint}</td>
                <td><span class={`state ${s.state}`}>{s.state}</span></td>
                <td>{duration(s.uptimeSeconds)}</td>
                <td>{network(s)}</td>
                <td>{s.drives.filter((d) => d.state === 'ok').length}/{s.drives.length}</td>
                <td>{s.version ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>Drives</h2>
      <div class="scroll">
        <table data-testid="drives">
          <thead><tr><th>Pool / set / position</th><th>Drive</th><th>State</th><th>Capacity</th><th>Free</th><th>Used</th></tr></thead>
          <tbody>
            {report.drives.map((d) => (
              <tr key={d.endpoint} data-testid="drive-row" data-state={d.state}>
                <td>{d.pool} / {d.set} / {d.index}</td>
                <td>{d.endpoint}</td>
                <td><span class={`state ${d.state === 'ok' ? 'online' : 'offline'}`}>{d.state}{d.healing ? ' (healing)' : ''}</span></td>
                <td>{bytes(d.totalBytes)}</td>
                <td>{bytes(d.availableBytes)}</td>
                <td><meter min={0} max={d.totalBytes || 1} value={d.usedBytes} aria-label={`Used on ${d.endpoint}`} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
