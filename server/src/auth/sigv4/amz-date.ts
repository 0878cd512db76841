/** ISO 8601 basic format of SigV4 timestamps (X-Amz-Date): yyyyMMdd'T'HHmmss'Z'. */

/** The last string parsed and its time: the requests of one second carry the same X-Amz-Date. */
let lastText = '';
let lastTime: number | undefined;

/** Digits of `s` from `at` to `to` as a number; NaN when any is not a digit. */
function digits(s: string, at: number, to: number): number {
  let n = 0;
  for (let i = at; i < to; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return NaN;
    n = n * 10 + c;
  }
  return n;
}

/** Parses `20130524T000000Z`; undefined when malformed or not a real calendar time. */
export function parseAmzDate(s: string): Date | undefined {
  if (s === lastText) return lastTime === undefined ? undefined : new Date(lastTime);
  let t: number | undefined;
  if (s.length === 16 && s[8] === 'T' && s[15] === 'Z') {
    const y = digits(s, 0, 4);
    const mo = digits(s, 4, 6);
    const d = digits(s, 6, 8);
    const h = digits(s, 9, 11);
    const mi = digits(s, 11, 13);
    const se = digits(s, 13, 15);
    const ms = Date.UTC(y, mo - 1, d, h, mi, se);
    // A real calendar time: Date.UTC rolls 31 April over to 1 May, 24:00 to the next day, and so on.
    const u = new Date(ms);
    if (!Number.isNaN(ms) && u.getUTCFullYear() === y && u.getUTCMonth() === mo - 1 && u.getUTCDate() === d
      && u.getUTCHours() === h && u.getUTCMinutes() === mi && u.getUTCSeconds() === se) t = ms;
  }
  lastText = s;
  lastTime = t;
  return t === undefined ? undefined : new Date(t);
}

/** Formats a time as `20130524T000000Z`. */
export function formatAmzDate(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/** Parses an HTTP Date header (IMF-fixdate and the obsolete forms Date.parse understands). */
export function parseHttpDate(s: string): Date | undefined {
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : new Date(t);
}
