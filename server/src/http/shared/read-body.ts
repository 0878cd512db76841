import type { Readable } from 'node:stream';
import { ServerError } from '../../common/index.js';

/** A request body carried more bytes than the endpoint accepts; nothing beyond the cap was buffered. */
export class BodyTooLargeError extends ServerError {
  readonly limit: number;
  constructor(limit: number) {
    super('ERR_BODY_TOO_LARGE', `request body exceeds ${limit} bytes`);
    this.limit = limit;
  }
}

/**
 * Reads a whole (small) request body into memory, failing with BodyTooLargeError as soon as `maxBytes`
 * is exceeded so a hostile client cannot make the server buffer an unbounded body.
 */
export async function readBodyCapped(body: Readable, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    total += buf.length;
    if (total > maxBytes) {
      body.destroy();
      throw new BodyTooLargeError(maxBytes);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks, total);
}
