import { createHash } from 'node:crypto';
import { decodePayload, type DecodedPayload } from '../../auth/index.js';
import { readBodyCapped } from '../shared/index.js';
import { header, type S3Context } from './context.js';
import { parseContentMd5 } from './headers/metadata.js';
import { S3Error } from './s3-error.js';

/** Largest XML request body we read (DeleteObjects with 1000 keys of 1024 bytes fits comfortably). */
export const MAX_XML_BODY_BYTES = 2 * 1024 * 1024;

/** Largest single PUT / part (https://docs.aws.amazon.com/AmazonS3/latest/userguide/qfacts.html). */
export const MAX_PUT_BYTES = 5 * 1024 * 1024 * 1024;

/**
 * A small body can be decoded completely — and fail its checksum — before the engine starts reading it
 * (it may first look up the bucket or take a lock), or the engine may fail without reading it at all.
 * Without a listener that 'error' would be an uncaught exception; with one, the failure still reaches
 * whoever iterates the stream later (an errored stream rethrows on iteration).
 */
function guard(decoded: DecodedPayload): DecodedPayload {
  decoded.stream.on('error', () => undefined);
  return decoded;
}

/**
 * The request body with aws-chunked framing removed and signatures/checksums verified as it streams
 * (auth/sigv4 decodePayload). Rejects declared sizes above 5 GiB before reading anything.
 */
export function openBody(ctx: S3Context): DecodedPayload {
  const decoded = guard(decodePayload(ctx.auth, ctx.request.raw, ctx.headers));
  if (decoded.decodedLength > MAX_PUT_BYTES) {
    throw new S3Error('EntityTooLarge', { extra: { MaxSizeAllowed: String(MAX_PUT_BYTES), ProposedSize: String(decoded.decodedLength) } });
  }
  return decoded;
}

/**
 * Reads a small XML request body completely (capped at MAX_XML_BODY_BYTES → MaxMessageLengthExceeded)
 * once its payload hash/checksum verified, and checks Content-MD5 when sent (BadDigest).
 */
export async function readXmlBody(ctx: S3Context): Promise<Buffer> {
  return readSmallBody(ctx, MAX_XML_BODY_BYTES);
}

/** readXmlBody with another cap (BodyTooLargeError → MaxMessageLengthExceeded above `maxBytes`). */
export async function readSmallBody(ctx: S3Context, maxBytes: number): Promise<Buffer> {
  const md5 = parseContentMd5(ctx.headers);
  const decoded = guard(decodePayload(ctx.auth, ctx.request.raw, ctx.headers));
  const body = await readBodyCapped(decoded.stream, maxBytes);
  if (md5 !== undefined && !createHash('md5').update(body).digest().equals(md5)) {
    throw new S3Error('BadDigest', { message: 'The Content-MD5 you specified did not match what we received.' });
  }
  return body;
}

/** True when the request declares any integrity header for its body (Content-MD5 or an x-amz-checksum). */
export function hasIntegrityHeader(ctx: S3Context): boolean {
  if (header(ctx, 'content-md5') !== undefined) return true;
  if (header(ctx, 'x-amz-sdk-checksum-algorithm') !== undefined) return true;
  if (header(ctx, 'x-amz-trailer') !== undefined) return true;
  return Object.keys(ctx.headers).some((h) => h.startsWith('x-amz-checksum-') && h !== 'x-amz-checksum-type');
}
