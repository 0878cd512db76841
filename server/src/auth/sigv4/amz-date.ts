/** ISO 8601 basic format of SigV4 timestamps (X-Amz-Date): yyyyMMdd'T'HHmmss'Z'. */

/** Parses `20130524T000000Z`; undefined when malformed or not a real calendar time. */
export function parseAmzDate(s: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  if (m === null) return undefined;
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const t = new Date(Date.UTC(y, mo - 1, d, h, mi, se));
  return formatAmzDate(t) === s ? t : undefined;
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
