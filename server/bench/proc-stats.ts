/** Server process figures read from /proc (Linux): RSS, peak RSS and CPU time, for the bench's JSON lines. */
import { readFileSync, readdirSync } from 'node:fs';

function statusKiB(pid: number, field: string): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

function statusMiB(pid: number, field: string): number {
  return Math.round(statusKiB(pid, field) / 1024);
}

/** Resident set size in MiB (0 when the process is gone). */
export function rssMiB(pid: number): number {
  return statusMiB(pid, 'VmRSS');
}

/**
 * The resident set's two parts in MiB: the process's own memory (RssAnon: heap, buffers) and mapped file pages
 * (RssFile: the executable, its libraries and any memory-mapped file, page cache the kernel can take back). A store
 * that reads its index through a memory map shows it here (docs/performance.md, thirteenth session).
 */
export function rssAnonMiB(pid: number): number {
  return statusMiB(pid, 'RssAnon');
}

export function rssFileMiB(pid: number): number {
  return statusMiB(pid, 'RssFile');
}

/** Peak resident set size (VmHWM) in MiB. */
export function peakRssMiB(pid: number): number {
  return statusMiB(pid, 'VmHWM');
}

/** User and system (kernel) CPU seconds consumed so far (fields 14 and 15 of /proc/PID/stat, in ticks of 1/100 s). */
export function cpuTimes(pid: number): { user: number; system: number } {
  return statTimes(`/proc/${pid}/stat`);
}

/**
 * CPU seconds of a process's main thread (/proc/PID/task/PID/stat): Node's event loop, which one core bounds however
 * many cores the machine has; near 100 % it is the limit, below it the limit is elsewhere (issue 9, point 5).
 */
export function mainThreadSeconds(pid: number): number {
  const { user, system } = statTimes(`/proc/${pid}/task/${pid}/stat`);
  return user + system;
}

/**
 * The machine's CPU ticks so far (first line of /proc/stat): idle (idle + iowait) and all. Over a scenario, the idle
 * share says whether the cores were the limit: client and server share them on the project's machine. All is the
 * first eight fields (user … steal): guest time is already counted in user (proc(5)).
 */
export function machineTicks(): { idle: number; total: number } {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    return { idle: (fields[3] ?? 0) + (fields[4] ?? 0), total: fields.reduce((a, b) => a + b, 0) };
  } catch {
    return { idle: 0, total: 0 };
  }
}

function statTimes(path: string): { user: number; system: number } {
  try {
    const stat = readFileSync(path, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
  } catch {
    return { user: 0, system: 0 };
  }
}

/** User + system CPU seconds consumed so far. */
export function cpuSeconds(pid: number): number {
  const { user, system } = cpuTimes(pid);
  return user + system;
}

/** How a target's processes add up: one node per process ('max': the largest node) or one server of several ('sum'). */
export type MemoryMode = 'max' | 'sum';

/** A memory figure (rssMiB or peakRssMiB) over the server processes; null without processes. */
export function serverMiB(pids: readonly number[], mode: MemoryMode, of: (pid: number) => number): number | null {
  if (pids.length === 0) return null;
  const values = pids.map(of);
  return mode === 'sum' ? values.reduce((a, b) => a + b, 0) : Math.max(...values);
}

/**
 * `roots` and every process below them (a peer's worker processes: Swift's proxy and object servers fork
 * workers, whose memory and CPU belong to the server but not to the parent's /proc figures).
 */
export function withDescendants(roots: readonly number[]): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch { /* gone */ }
  }
  const out: number[] = [];
  const visit = (pid: number): void => {
    out.push(pid);
    for (const c of children.get(pid) ?? []) visit(c);
  };
  roots.forEach(visit);
  return out;
}
