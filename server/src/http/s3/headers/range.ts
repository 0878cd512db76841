import { S3Error } from '../s3-error.js';

/** Inclusive byte range resolved against an object size. */
export interface ResolvedRange {
  start: number;
  end: number;
}

/**
 * Resolves a `Range` header against `size` (RFC 9110 §14.1.2; S3 supports one range per request:
 * https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html#API_GetObject_RequestSyntax).
 * Returns undefined when the whole object must be sent: no header, a syntactically invalid one, or several
 * ranges (RFC 9110 lets a server ignore a Range it does not support). Throws InvalidRange (416) when the
 * range is well-formed but unsatisfiable.
 */
export function resolveRange(header: string | undefined, size: number): ResolvedRange | undefined {
  if (header === undefined) return undefined;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (m === null) return undefined;
  const [, first = '', last = ''] = m;
  const unsatisfiable = (): S3Error =>
    new S3Error('InvalidRange', { extra: { ActualObjectSize: String(size), RangeRequested: header } });
  if (first === '') {
    if (last === '') return undefined;
    const suffix = Number(last);
    if (suffix === 0 || size === 0) throw unsatisfiable();
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return undefined;
  if (start >= size) throw unsatisfiable();
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return { start, end };
}

/** `bytes a-b/size` for Content-Range. */
export function contentRange(range: ResolvedRange, size: number): string {
  return `bytes ${range.start}-${range.end}/${size}`;
}

/**
 * Resolves `x-amz-copy-source-range` (UploadPartCopy,
 * https://docs.aws.amazon.com/AmazonS3/latest/API/API_UploadPartCopy.html): only the closed form
 * `bytes=first-last` is accepted (anything else is InvalidArgument, as AWS answers), and the range must
 * lie inside the source object (else InvalidArgument naming the source size, as AWS answers).
 */
export function resolveCopySourceRange(header: string | undefined, size: number): ResolvedRange | undefined {
  if (header === undefined) return undefined;
  const m = /^bytes=(\d{1,16})-(\d{1,16})$/.exec(header.trim());
  if (m === null) {
    throw new S3Error('InvalidArgument', {
      message: 'The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy',
      extra: { ArgumentName: 'x-amz-copy-source-range', ArgumentValue: header },
    });
  }
  const start = Number(m[1]);
  const end = Number(m[2]);
  if (start > end || end >= size) {
    throw new S3Error('InvalidArgument', {
      message: `Range specified is not valid for source object of size: ${size}`,
      extra: { ArgumentName: 'x-amz-copy-source-range', ArgumentValue: header },
    });
  }
  return { start, end };
}
