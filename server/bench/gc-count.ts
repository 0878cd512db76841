/**
 * Garbage collections in a server's `--trace-gc` output (issue 9, point 5: the counters that show what bounded a
 * figure). The seventeenth session found 64 MiB PUTs losing a quarter of their speed to back-to-back full GCs that no
 * other counter showed (docs/performance.md); the bench now starts svc with `--trace-gc` and reports, per scenario,
 * the full (mark-compact) and young-generation (scavenge) collections of every isolate of the servers (the main
 * thread's and the workers'). One line per collection, e.g.
 * `[123:0x5a1b2c3d4e50]  1234 ms: Mark-Compact 22.8 (53.8) -> 19.6 (55.1) MB, 7.18 / 0.05 ms  (...) finalize ...`.
 */

/** Collections counted in a piece of `--trace-gc` output. */
export interface GcCounts {
  full: number;
  young: number;
}

const LINE = /^\[\d+:0x[0-9a-f]+\]\s+\d+ ms: (Mark-Compact|Scavenge|Minor Mark-Sweep)\b/;

/** Counts the collections in `text` (whole lines only: a line cut at either end is not counted). */
export function countGcs(text: string): GcCounts {
  const counts: GcCounts = { full: 0, young: 0 };
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (m === null) continue;
    if (m[1] === 'Mark-Compact') counts.full++;
    else counts.young++;
  }
  return counts;
}

/**
 * A mark of where each process's output stood; `since(mark)` counts what was printed after it. `outputs` returns the
 * whole output so far of each server process (stdout and stderr together), in the same order at every call.
 */
export function gcCounter(outputs: () => readonly string[]): { mark(): number[]; since(mark: readonly number[]): GcCounts } {
  return {
    mark: () => outputs().map((o) => o.length),
    since(mark) {
      const total: GcCounts = { full: 0, young: 0 };
      outputs().forEach((o, i) => {
        // Lines that began after the mark: one being printed at the mark belongs to what came before.
        const at = mark[i] ?? 0;
        const from = at === 0 || o[at - 1] === '\n' ? at : o.indexOf('\n', at) + 1 || o.length;
        const c = countGcs(o.slice(from));
        total.full += c.full;
        total.young += c.young;
      });
      return total;
    },
  };
}
