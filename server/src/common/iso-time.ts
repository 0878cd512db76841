/**
 * `Date.prototype.toISOString` without its cost: V8 formats every call through the runtime (~1.3 µs here), which
 * was the largest single cost of writing a listing page (1,000 LastModified elements: 1.3 of 1.8 ms per page).
 * The calendar day is formatted once per day met (by toISOString itself) and the time of day by arithmetic.
 * Same output as toISOString (`YYYY-MM-DDTHH:mm:ss.sssZ`, ISO 8601 in UTC as S3 writes timestamps:
 * https://docs.aws.amazon.com/AmazonS3/latest/API/API_Object.html); years outside 1970–9999 and invalid dates
 * take toISOString itself (its extended years, its RangeError).
 */

const DAY_MS = 86_400_000;
/** 10000-01-01T00:00:00Z: from here toISOString writes six-digit years. */
const YEAR_10000_MS = 253_402_300_800_000;

let lastDay = -1;
let lastDayText = '';

/** "000" … "999": a lookup is cheaper than turning a number into a string and padding it (per timestamp, 4 fields). */
const DIGITS3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
const DIGITS2 = DIGITS3.slice(0, 100).map((s) => s.slice(1));

/** `d.toISOString()`, faster. */
export function isoTime(d: Date): string {
  const ms = d.getTime();
  if (!(ms >= 0 && ms < YEAR_10000_MS)) return d.toISOString();
  const day = Math.floor(ms / DAY_MS);
  if (day !== lastDay) {
    lastDayText = new Date(day * DAY_MS).toISOString().slice(0, 11);
    lastDay = day;
  }
  let rest = ms - day * DAY_MS;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = Math.floor(rest / 1000);
  return `${lastDayText}${DIGITS2[h]}:${DIGITS2[m]}:${DIGITS2[s]}.${DIGITS3[rest - s * 1000]}Z`;
}
