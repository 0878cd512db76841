/** A small unified line diff (LCS based), for `render --diff`; pure. */

/** One line of an edit script. */
interface Edit {
  readonly op: ' ' | '-' | '+';
  readonly line: string;
}

/** Beyond this many LCS cells the diff shows the whole file as replaced (rendered configs are far smaller). */
const MAX_CELLS = 4_000_000;

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function editScript(a: readonly string[], b: readonly string[]): Edit[] {
  const n = a.length;
  const m = b.length;
  if ((n + 1) * (m + 1) > MAX_CELLS) {
    return [...a.map((line) => ({ op: '-' as const, line })), ...b.map((line) => ({ op: '+' as const, line }))];
  }
  // lcs[i][j] = length of the LCS of a[i..] and b[j..], stored row-major.
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? (lcs[(i + 1) * w + j + 1] as number) + 1 : Math.max(lcs[(i + 1) * w + j] as number, lcs[i * w + j + 1] as number);
    }
  }
  const edits: Edit[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      edits.push({ op: ' ', line: a[i] as string });
      i++;
      j++;
    } else if ((lcs[(i + 1) * w + j] as number) >= (lcs[i * w + j + 1] as number)) {
      edits.push({ op: '-', line: a[i++] as string });
    } else {
      edits.push({ op: '+', line: b[j++] as string });
    }
  }
  while (i < n) edits.push({ op: '-', line: a[i++] as string });
  while (j < m) edits.push({ op: '+', line: b[j++] as string });
  return edits;
}

/** Options of {@link unifiedDiff}. */
export interface DiffOptions {
  readonly oldLabel: string;
  readonly newLabel: string;
  /** Unchanged lines shown around each change (default 3, as diff -u). */
  readonly context?: number;
}

/** The unified diff (`diff -u` format) from `oldText` to `newText`, or '' when they are equal. */
export function unifiedDiff(oldText: string, newText: string, opts: DiffOptions): string {
  if (oldText === newText) return '';
  const edits = editScript(splitLines(oldText), splitLines(newText));
  const ctx = opts.context ?? 3;
  const changed = edits.map((e, k) => (e.op !== ' ' ? k : -1)).filter((k) => k >= 0);
  if (changed.length === 0) {
    // Only the final newline differs.
    return `--- ${opts.oldLabel}\n+++ ${opts.newLabel}\n\\ files differ only in the final newline\n`;
  }
  // Group changes whose context windows touch into hunks.
  const groups: [number, number][] = [];
  for (const k of changed) {
    const last = groups[groups.length - 1];
    if (last !== undefined && k - last[1] <= 2 * ctx) last[1] = k;
    else groups.push([k, k]);
  }
  // Line numbers before each edit index.
  const oldNo: number[] = [];
  const newNo: number[] = [];
  let o = 1;
  let n = 1;
  for (const e of edits) {
    oldNo.push(o);
    newNo.push(n);
    if (e.op !== '+') o++;
    if (e.op !== '-') n++;
  }
  let out = `--- ${opts.oldLabel}\n+++ ${opts.newLabel}\n`;
  for (const [first, last] of groups) {
    const from = Math.max(0, first - ctx);
    const to = Math.min(edits.length - 1, last + ctx);
    const slice = edits.slice(from, to + 1);
    const oldLen = slice.filter((e) => e.op !== '+').length;
    const newLen = slice.filter((e) => e.op !== '-').length;
    const oldStart = oldLen === 0 ? (oldNo[from] as number) - 1 : (oldNo[from] as number);
    const newStart = newLen === 0 ? (newNo[from] as number) - 1 : (newNo[from] as number);
    out += `@@ -${oldStart},${oldLen} +${newStart},${newLen} @@\n`;
    for (const e of slice) out += `${e.op}${e.line}\n`;
  }
  return out;
}
