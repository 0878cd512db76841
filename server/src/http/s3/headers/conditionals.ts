/**
 * Conditional request evaluation with the precedence of RFC 9110 §13.2.2, which is also what AWS
 * documents for GetObject/HeadObject (If-Match beats If-Unmodified-Since; If-None-Match beats
 * If-Modified-Since: https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html) and for the
 * x-amz-copy-source-if-* headers of CopyObject (where every failure is 412).
 */

/** The four precondition headers, raw. */
export interface Preconditions {
  ifMatch?: string | undefined;
  ifNoneMatch?: string | undefined;
  ifModifiedSince?: string | undefined;
  ifUnmodifiedSince?: string | undefined;
}

/** Outcome of evaluating preconditions. */
export type ConditionResult = 'proceed' | 'not-modified' | 'precondition-failed';

function etagList(header: string): string[] {
  return header.split(',').map((t) => t.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1')).filter((t) => t !== '');
}

function matches(header: string, etag: string): boolean {
  const list = etagList(header);
  return list.includes('*') || list.includes(etag);
}

function parseHttpDate(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const t = Date.parse(header);
  return Number.isNaN(t) ? undefined : t;
}

/** HTTP dates have one-second resolution, so the object's time is truncated before comparing. */
function seconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/** Evaluates the preconditions against the current object; `etag` is unquoted. */
export function evaluatePreconditions(p: Preconditions, etag: string, lastModified: Date): ConditionResult {
  const modified = seconds(lastModified.getTime());
  if (p.ifMatch !== undefined) {
    if (!matches(p.ifMatch, etag)) return 'precondition-failed';
  } else {
    const since = parseHttpDate(p.ifUnmodifiedSince);
    if (since !== undefined && modified > seconds(since)) return 'precondition-failed';
  }
  if (p.ifNoneMatch !== undefined) {
    if (matches(p.ifNoneMatch, etag)) return 'not-modified';
  } else {
    const since = parseHttpDate(p.ifModifiedSince);
    if (since !== undefined && modified <= seconds(since)) return 'not-modified';
  }
  return 'proceed';
}
