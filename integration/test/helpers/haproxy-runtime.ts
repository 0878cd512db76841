/**
 * HAProxy's runtime API read the way `deploy-kit status` reads it (DOCKER.md §2): `show stat` over the stats socket
 * on the proxy container's loopback, reached with `docker exec` and bash's /dev/tcp. Rows keep every CSV column by
 * name (status, check_status, chkfail, chkdown, check_rise, check_fall, stot…), so tests can assert the counters.
 */
import { spawn } from 'node:child_process';
import { docker } from './env.js';

/** One `show stat` row: column name → value. */
export type StatRow = Readonly<Record<string, string>>;

const SHOW_STAT = 'exec 3<>/dev/tcp/127.0.0.1/9999; echo "show stat" >&3; cat <&3';
const MARK = '@@sample';

/** Parses `show stat` CSV into rows keyed by the header's column names (frontend and BACKEND rows included). */
export function parseStatCsv(csv: string): StatRow[] {
  const lines = csv.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const header = lines.find((l) => l.startsWith('# '));
  if (header === undefined) return [];
  const cols = header.slice(2).split(',');
  return lines.filter((l) => !l.startsWith('#')).map((l) => {
    const f = l.split(',');
    return Object.fromEntries(cols.map((c, i) => [c, f[i] ?? '']));
  });
}

/** The current `show stat` of the HAProxy in `container`. */
export function showStat(container: string): StatRow[] {
  return parseStatCsv(docker(['exec', container, 'bash', '-c', SHOW_STAT], 30_000));
}

/** The row of one server (`backend/server`); throws when HAProxy does not list it. */
export function serverRow(rows: readonly StatRow[], backend: string, server: string): StatRow {
  const row = rows.find((r) => r['pxname'] === backend && r['svname'] === server);
  if (row === undefined) throw new Error(`show stat has no server ${backend}/${server}`);
  return row;
}

/** A running sampler of `show stat`. */
export interface StatSampler {
  /** Stops sampling and returns every sample taken, oldest first. */
  stop(): Promise<StatRow[][]>;
}

/**
 * Samples `show stat` every `everyMs` inside the proxy container (one `docker exec` running a bounded bash loop, so
 * short-lived states such as `UP 1/3` are seen without spawning a process per sample) until stopped or `maxSeconds`.
 */
export function sampleStat(container: string, everyMs = 200, maxSeconds = 120): StatSampler {
  const rounds = Math.ceil((maxSeconds * 1000) / everyMs);
  const script = `for i in $(seq 1 ${rounds}); do echo ${MARK}; ${SHOW_STAT}; exec 3<&-; sleep ${(everyMs / 1000).toFixed(3)}; done`;
  const child = spawn('docker', ['exec', container, 'bash', '-c', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  let text = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { text += d; });
  const closed = new Promise<void>((resolve) => { child.on('close', () => resolve()); child.on('error', () => resolve()); });
  return {
    async stop() {
      child.kill('SIGTERM');
      await closed;
      // The last sample may be cut off mid-stream: it is dropped.
      return text.split(`${MARK}\n`).slice(0, -1).map(parseStatCsv).filter((rows) => rows.length > 0);
    },
  };
}
