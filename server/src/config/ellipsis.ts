/**
 * MinIO's ellipsis syntax for drive arguments (REFERENCE.md fact 4, §1.3): `/data{1...4}`, zero-padded
 * `/d{01...16}`, several ranges per argument. The LAST range is iterated outermost, so consecutive drives
 * (which form one erasure set) differ in the first range — for `http://node{1...4}/d{1...4}` a set spans nodes.
 */
import { ConfigError } from './config-error.js';

/** Largest range and expansion accepted (far above any real deployment, far below exhausting memory). */
const MAX_RANGE = 10_000;
const MAX_EXPANSION = 100_000;

const RANGE = /\{([0-9a-fA-F]+)\.\.\.([0-9a-fA-F]+)\}/g;

/** One parsed `{a...b}` range: its expanded labels in order. */
export interface EllipsisRange {
  labels: string[];
}

/** True when the argument contains at least one `{a...b}` range. */
export function hasEllipsis(arg: string): boolean {
  return /\{[0-9a-fA-F]+\.\.\.[0-9a-fA-F]+\}/.test(arg);
}

function rangeLabels(from: string, to: string, arg: string): string[] {
  const hex = /[a-fA-F]/.test(from + to);
  const radix = hex ? 16 : 10;
  const a = Number.parseInt(from, radix);
  const b = Number.parseInt(to, radix);
  if (!(b >= a)) {
    throw new ConfigError(`invalid range {${from}...${to}} in "${arg}": the end must not be below the start`, 'use the form {1...4}');
  }
  // A typo such as {1...100000000} must get an answer, not exhaust memory: no deployment has that many drives.
  if (b - a + 1 > MAX_RANGE) {
    throw new ConfigError(`range {${from}...${to}} in "${arg}" has ${b - a + 1} values, more than ${MAX_RANGE}`, 'check the range bounds');
  }
  // Zero padding applies when the start is written with a leading zero (MinIO: {01...16}).
  const width = from.length > 1 && from.startsWith('0') ? from.length : 0;
  const out: string[] = [];
  for (let i = a; i <= b; i++) out.push(i.toString(radix).padStart(width, '0'));
  return out;
}

/** The ranges of one argument, in order of appearance. */
export function parseRanges(arg: string): EllipsisRange[] {
  return [...arg.matchAll(RANGE)].map((m) => ({ labels: rangeLabels(m[1] ?? '', m[2] ?? '', arg) }));
}

/**
 * Expands one argument. Without ranges it is returned as is. Duplicates are refused, as MinIO does.
 */
export function expandEllipsis(arg: string): string[] {
  const ranges = parseRanges(arg);
  if (ranges.length === 0) return [arg];
  const parts = arg.split(RANGE);
  // split() with 2 capture groups yields [lit, from, to, lit, from, to, lit]; keep the literals.
  const literals = parts.filter((_, i) => i % 3 === 0);
  const out: string[] = [];
  const total = ranges.reduce((n, r) => n * r.labels.length, 1);
  if (total > MAX_EXPANSION) {
    throw new ConfigError(`"${arg}" expands to ${total} drives, more than ${MAX_EXPANSION}`, 'check the range bounds');
  }
  for (let idx = 0; idx < total; idx++) {
    // First range varies fastest, last range outermost.
    let rest = idx;
    let s = literals[0] ?? '';
    ranges.forEach((r, j) => {
      const label = r.labels[rest % r.labels.length] ?? '';
      rest = Math.floor(rest / r.labels.length);
      s += label + (literals[j + 1] ?? '');
    });
    out.push(s);
  }
  const seen = new Set<string>();
  for (const d of out) {
    if (seen.has(d)) throw new ConfigError(`duplicate drive "${d}" after expanding "${arg}"`, 'each drive may appear once');
    seen.add(d);
  }
  return out;
}
