/** Output of the bench: one JSON line per scenario on stdout, and a markdown table of them on stderr at the end. */

/** One result line. */
export type BenchLine = Record<string, unknown> & { scenario: string };

const lines: BenchLine[] = [];

/** Prints a JSON line and keeps it for the table. */
export function emit(line: BenchLine): void {
  lines.push(line);
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

function cell(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** The lines as a markdown table (columns: every key that appears, in order of first appearance). */
export function markdownTable(rows: readonly BenchLine[] = lines): string {
  const cols: string[] = [];
  for (const r of rows) for (const k of Object.keys(r)) if (!cols.includes(k)) cols.push(k);
  const out = [`| ${cols.join(' | ')} |`, `| ${cols.map(() => '---').join(' | ')} |`];
  for (const r of rows) out.push(`| ${cols.map((c) => cell(r[c])).join(' | ')} |`);
  return out.join('\n');
}
