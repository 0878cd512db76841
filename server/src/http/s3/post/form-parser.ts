import { Readable } from 'node:stream';

/**
 * A streaming multipart/form-data reader for browser-based uploads
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/RESTObjectPOST.html, RFC 7578). S3 reads the form fields
 * up to the `file` field and ignores anything after it, so the reader buffers the (small, capped) fields and
 * hands the file back as a stream read straight from the request: the file is never buffered.
 */

/** Limits of the part of the form that is buffered. */
export interface FormLimits {
  /** Total bytes of the field values before the file. */
  maxFieldBytes: number;
  /** Bytes of one part's header section. */
  maxHeaderBytes: number;
  /** Number of fields before the file. */
  maxFields: number;
}

/** Defaults: S3 form fields are small (the policy document itself is limited to 20 KB on AWS). */
export const DEFAULT_FORM_LIMITS: FormLimits = { maxFieldBytes: 64 * 1024, maxHeaderBytes: 8 * 1024, maxFields: 100 };

/** Why a form could not be read. `kind` decides the S3 error the caller answers with. */
export class FormError extends Error {
  readonly kind: 'malformed' | 'too-large' | 'no-file';
  constructor(kind: FormError['kind'], message: string) {
    super(message);
    this.name = 'FormError';
    this.kind = kind;
  }
}

/** Bytes after the file part that are read and dropped (the closing boundary and any ignored fields). */
const MAX_TRAILING_BYTES = 64 * 1024;

/** The uploaded file: its part headers, and its bytes as a stream that ends at the part's closing boundary. */
export interface FormFile {
  /** The filename of the file part's Content-Disposition ("" when it has none). */
  filename: string;
  /** The file part's own Content-Type, if it has one. */
  contentType?: string;
  stream: Readable;
}

/** The fields before the file (names lower-cased, first value kept) and the file. */
export interface ParsedForm {
  fields: Map<string, string>;
  file: FormFile;
}

/** The boundary of a `multipart/form-data; boundary=…` Content-Type, or undefined for any other type. */
export function formBoundary(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const [type, ...params] = contentType.split(';');
  if (type?.trim().toLowerCase() !== 'multipart/form-data') return undefined;
  for (const p of params) {
    const eq = p.indexOf('=');
    if (eq === -1 || p.slice(0, eq).trim().toLowerCase() !== 'boundary') continue;
    let v = p.slice(eq + 1).trim();
    if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) v = v.slice(1, -1);
    // RFC 2046 §5.1.1: 1 to 70 characters.
    return v.length >= 1 && v.length <= 70 ? v : undefined;
  }
  return undefined;
}

interface PartHeaders {
  name: string;
  filename?: string;
  contentType?: string;
}

function parsePartHeaders(raw: string): PartHeaders {
  let name: string | undefined;
  let filename: string | undefined;
  let contentType: string | undefined;
  for (const line of raw.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const field = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (field === 'content-type') contentType = value;
    if (field !== 'content-disposition') continue;
    if (!/^form-data\s*(;|$)/i.test(value)) throw new FormError('malformed', 'a part is not form-data');
    // Parameters: name="…" / filename="…" (quoted strings with backslash escapes, or tokens).
    const re = /;\s*([a-zA-Z*]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/g;
    for (let m = re.exec(value); m !== null; m = re.exec(value)) {
      const key = m[1]!.toLowerCase();
      const v = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!;
      if (key === 'name') name = v;
      else if (key === 'filename') filename = v;
    }
  }
  if (name === undefined) throw new FormError('malformed', 'a part has no name');
  const out: PartHeaders = { name };
  if (filename !== undefined) out.filename = filename;
  if (contentType !== undefined) out.contentType = contentType;
  return out;
}

/** Pulls chunks from the source on demand and keeps what was read but not consumed. */
class Cursor {
  readonly #it: AsyncIterator<Buffer | string>;
  buf: Buffer = Buffer.alloc(0);
  done = false;
  constructor(source: AsyncIterable<Buffer | string>) {
    this.#it = source[Symbol.asyncIterator]();
  }
  /** Reads one more chunk into `buf`; false at the end of the source. */
  async more(): Promise<boolean> {
    if (this.done) return false;
    const r = await this.#it.next();
    if (r.done === true) {
      this.done = true;
      return false;
    }
    const chunk = typeof r.value === 'string' ? Buffer.from(r.value) : r.value;
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    return true;
  }
  /**
   * Reads and drops the rest of the source, at most `max` bytes (a request is drained rather than destroyed,
   * so its connection can still carry the answer).
   */
  async drain(max: number): Promise<void> {
    let dropped = this.buf.length;
    this.buf = Buffer.alloc(0);
    while (await this.more()) {
      dropped += this.buf.length;
      this.buf = Buffer.alloc(0);
      if (dropped > max) throw new FormError('too-large', 'too much data after the last part');
    }
  }
}

/** Reads until `needle` is in the buffer (searching no further than `limit` bytes); its index, or throws. */
async function find(c: Cursor, needle: Buffer, limit: number, what: string): Promise<number> {
  for (;;) {
    const i = c.buf.indexOf(needle);
    if (i !== -1 && i <= limit) return i;
    if (c.buf.length > limit + needle.length) throw new FormError('too-large', `${what} is too large`);
    if (!(await c.more())) throw new FormError('malformed', `unexpected end of the form in ${what}`);
  }
}

/**
 * Reads the form from `source` up to the start of the `file` part. Throws FormError: 'malformed' for bad
 * framing, 'too-large' when the buffered fields exceed `limits`, 'no-file' when the form ends without a file.
 */
export async function readForm(source: AsyncIterable<Buffer | string>, boundary: string, limits: FormLimits = DEFAULT_FORM_LIMITS): Promise<ParsedForm> {
  const c = new Cursor(source);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // The first boundary may follow a preamble; treat the body as if it started with CRLF.
  c.buf = Buffer.from('\r\n');
  const first = await find(c, delimiter, limits.maxHeaderBytes, 'the preamble');
  c.buf = c.buf.subarray(first + delimiter.length);
  const fields = new Map<string, string>();
  let fieldBytes = 0;
  for (let count = 0; ; count++) {
    // After a boundary: "--" ends the form, CRLF starts a part.
    while (c.buf.length < 2) if (!(await c.more())) throw new FormError('malformed', 'unexpected end of the form after a boundary');
    if (c.buf[0] === 0x2d && c.buf[1] === 0x2d) {
      await c.drain(MAX_TRAILING_BYTES);
      throw new FormError('no-file', 'the form has no file field');
    }
    const eol = await find(c, Buffer.from('\r\n'), 256, 'a boundary line');
    c.buf = c.buf.subarray(eol + 2);
    const end = await find(c, Buffer.from('\r\n\r\n'), limits.maxHeaderBytes, 'part headers');
    const headers = parsePartHeaders(c.buf.subarray(0, end).toString('utf8'));
    c.buf = c.buf.subarray(end + 4);
    if (headers.name.toLowerCase() === 'file') {
      const file: FormFile = { filename: headers.filename ?? '', stream: fileStream(c, delimiter) };
      if (headers.contentType !== undefined) file.contentType = headers.contentType;
      return { fields, file };
    }
    if (count >= limits.maxFields) throw new FormError('too-large', 'the form has too many fields');
    const valueEnd = await find(c, delimiter, limits.maxFieldBytes - fieldBytes, `field ${headers.name}`);
    fieldBytes += valueEnd;
    const key = headers.name.toLowerCase();
    if (!fields.has(key)) fields.set(key, c.buf.subarray(0, valueEnd).toString('utf8'));
    c.buf = c.buf.subarray(valueEnd + delimiter.length);
  }
}

/** The file part's bytes: everything up to the next delimiter, streamed (only a delimiter's length is held back). */
function fileStream(c: Cursor, delimiter: Buffer): Readable {
  async function* bytes(): AsyncGenerator<Buffer> {
    for (;;) {
      const i = c.buf.indexOf(delimiter);
      if (i !== -1) {
        if (i > 0) yield c.buf.subarray(0, i);
        // Fields after the file are ignored, as S3 does.
        c.buf = c.buf.subarray(i);
        await c.drain(MAX_TRAILING_BYTES);
        return;
      }
      const keep = delimiter.length - 1;
      if (c.buf.length > keep) {
        const out = c.buf.subarray(0, c.buf.length - keep);
        c.buf = c.buf.subarray(c.buf.length - keep);
        yield out;
      }
      if (!(await c.more())) throw new FormError('malformed', 'unexpected end of the form in the file');
    }
  }
  return Readable.from(bytes(), { objectMode: false });
}
