/** Output of the bench: one JSON line per scenario on stdout, and a markdown table of them on stderr at the end. */

/** One result line. */
export type BenchLine = Record<string, unknown> & { scenario: string };

const lines: BenchLine[] = [];

/** The p-th percentile of `sorted` (ascending), 0 when empty: the latencies a line reports. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Prints a JSON line and keeps it for the table. */
export function emit(line: BenchLine): void {
  lines.push(line);
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

function num(v: unknown): string {
  return typeof v === 'number' ? v.toLocaleString('en-US') : '';
}

/** The figure a scenario is about: ops/s, MiB/s, or a listing's median (first run, in brackets). */
function result(r: BenchLine): string {
  if (typeof r.opsPerSec === 'number') return `${num(r.opsPerSec)} ops/s`;
  if (typeof r.MiBPerSec === 'number') return `${num(r.MiBPerSec)} MiB/s`;
  if (typeof r.ms === 'number') return `${num(r.ms)} ms${typeof r.firstMs === 'number' ? ` (first ${num(r.firstMs)})` : ''}`;
  return '';
}

/** The memory figures of a line: RSS, and the peak (VmHWM) where measured. */
function memory(r: BenchLine): string {
  const peak = num(r.serverPeakRssMiB ?? r.peakRssMiB);
  const parts = typeof r.rssAnonMiB === 'number' ? `now anon ${num(r.rssAnonMiB)} + files ${num(r.rssFileMiB)}` : '';
  return [num(r.serverRssMiB ?? r.rssMiB), peak === '' ? '' : `peak ${peak}`, parts].filter((s) => s !== '').join(', ');
}

/**
 * Server CPU, with the busiest event loop, the machine's idle share and the servers' full GCs where measured:
 * "158 (loop 88, idle 7, full GCs 2)".
 */
function cpu(r: BenchLine): string {
  const parts = [['loop', r.mainThreadPercent], ['idle', r.machineIdlePercent], ['full GCs', r.fullGcs]].filter(([, v]) => typeof v === 'number').map(([k, v]) => `${String(k)} ${num(v)}`);
  return parts.length === 0 ? num(r.serverCpuPercent) : `${num(r.serverCpuPercent)} (${parts.join(', ')})`;
}

/**
 * The lines as a markdown table a person can read: the layout line as a heading, then per scenario its concurrency,
 * result, latency percentiles, CPU counters and memory (the JSON lines on stdout carry every field).
 */
export function markdownTable(rows: readonly BenchLine[] = lines): string {
  const layout = rows.find((r) => r.scenario === 'layout');
  const head = layout === undefined ? [] : [`Layout: ${Object.entries(layout).filter(([k]) => k !== 'scenario').map(([k, v]) => `${k} ${String(v)}`).join(', ')}`, ''];
  const out = [...head, '| scenario | concurrency | result | p50 / p99 (ms) | server CPU (%) (busiest event loop, machine idle, full GCs) | server memory (MiB) |', '| --- | ---: | ---: | ---: | ---: | ---: |'];
  for (const r of rows) {
    if (r === layout) continue;
    const lat = typeof r.p50ms === 'number' ? `${num(r.p50ms)} / ${num(r.p99ms)}` : '';
    const conc = typeof r.parts === 'number' ? `${num(r.parts)} parts` : num(r.concurrency);
    out.push(`| ${r.scenario} | ${conc} | ${result(r)} | ${lat} | ${cpu(r)} | ${memory(r)} |`);
  }
  return out.join('\n');
}
