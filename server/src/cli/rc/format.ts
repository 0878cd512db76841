/** Human-readable figures: IEC sizes, durations, ordinals, and fitting text into a column. */

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'] as const;

/** `1536` → `1.5 KiB`; bytes below 1 KiB are shown exactly (`512 B`). */
export function humanBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '-';
  let v = n;
  let u = 0;
  while (v >= 1024 && u < UNITS.length - 1) { v /= 1024; u++; }
  return u === 0 ? `${n} B` : `${v.toFixed(1)} ${UNITS[u]}`;
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** Seconds as the two largest units: `2 days 3 hours`, `5 minutes 2 seconds`, `42 seconds`. */
export function humanDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const parts: Array<[number, string]> = [[Math.floor(s / 86_400), 'day'], [Math.floor(s / 3600) % 24, 'hour'], [Math.floor(s / 60) % 60, 'minute'], [s % 60, 'second']];
  const first = parts.findIndex(([v]) => v > 0);
  if (first < 0) return '0 seconds';
  const shown = parts.slice(first, first + 2).filter(([v]) => v > 0);
  return shown.map(([v, u]) => plural(v, u)).join(' ');
}

/** `1` → `1st`, `2` → `2nd`, `11` → `11th` (mc's pool numbering). */
export function ordinal(n: number): string {
  const mod100 = n % 100;
  const suffix = mod100 >= 11 && mod100 <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th';
  return `${n}${suffix}`;
}

/** Cuts `text` to `width` characters, replacing the middle with `…` so both ends stay readable. */
export function fitMiddle(text: string, width: number): string {
  if (text.length <= width) return text;
  if (width <= 1) return text.slice(0, width);
  const keepEnd = Math.ceil((width - 1) / 2);
  const keepStart = width - 1 - keepEnd;
  return `${text.slice(0, keepStart)}…${text.slice(text.length - keepEnd)}`;
}

/** Pads to `width` on the right (left-aligned column). */
export function padEnd(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

/** Pads to `width` on the left (right-aligned column). */
export function padStart(text: string, width: number): string {
  return text.length >= width ? text : ' '.repeat(width - text.length) + text;
}

/** `[2026-11-22 04:05:06 UTC]`, the timestamp column of `rc ls`. */
export function lsDate(d: Date | undefined): string {
  if (d === undefined || Number.isNaN(d.getTime())) return '[                       ]';
  return `[${d.toISOString().slice(0, 19).replace('T', ' ')} UTC]`;
}

/**
 * Parses a duration flag: `30s`, `5m`, `12h`, `7d`, combinations like `1h30m`, or plain seconds (`90`).
 * Returns seconds, or undefined when the text is not a duration.
 */
export function parseDuration(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  const re = /(\d+)([smhd])/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    total += Number(m[1]) * ({ s: 1, m: 60, h: 3600, d: 86_400 } as const)[m[2] as 's' | 'm' | 'h' | 'd'];
    matched = re.lastIndex;
  }
  return matched === text.length && text.length > 0 ? total : undefined;
}
