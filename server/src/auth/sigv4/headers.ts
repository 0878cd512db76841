import type { SigV4Headers } from './types.js';

/** Single value of a header: repeated values joined with ',' (SigV4 canonical form), undefined when absent. */
export function headerValue(headers: SigV4Headers, name: string): string | undefined {
  const v = headers[name];
  if (v === undefined) return undefined;
  return Array.isArray(v) ? v.join(',') : v;
}

/** All values of a header, from rawHeaders when available (exact repeats), else from the node header map. */
export function headerValues(headers: SigV4Headers, rawHeaders: readonly string[] | undefined, name: string): string[] {
  if (rawHeaders !== undefined) {
    const out: string[] = [];
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      if (rawHeaders[i]!.toLowerCase() === name) out.push(rawHeaders[i + 1]!);
    }
    return out;
  }
  const v = headers[name];
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}
