import type { FastifyReply } from 'fastify';
import type { DecodedPayload } from '../../../auth/index.js';
import type { ObjectInfo, VersioningState } from '../../../storage/index.js';
import { bucketVersioning } from './versioning.js';
import { lockForWrite } from './object-lock.js';
import { header, type S3Context } from '../context.js';
import { openBody } from '../body.js';
import { parseContentMd5, parseMetadata } from '../headers/metadata.js';
import { parseTaggingHeader } from '../headers/tagging.js';
import { checksumHeaderName } from '../../../common/index.js';
import type { ChecksumValues } from '../headers/checksum-headers.js';
import { quoteEtag } from '../xml/responses.js';
import { S3Error } from '../s3-error.js';

// Request features that change how an object is stored; silently ignoring them would store something
// other than what the client asked for, so they are refused until implemented.
const UNSUPPORTED_HEADERS: ReadonlyArray<[string, string]> = [
  ['x-amz-server-side-encryption', 'Server-side encryption'],
  ['x-amz-server-side-encryption-customer-algorithm', 'Server-side encryption with customer keys'],
  ['x-amz-website-redirect-location', 'Website redirects'],
  ['if-match', 'Conditional writes'],
  ['if-none-match', 'Conditional writes'],
];

/** Throws NotImplemented when the request asks for a storage feature this server does not have. */
export function rejectUnsupportedWriteHeaders(ctx: S3Context, names: ReadonlyArray<[string, string]> = UNSUPPORTED_HEADERS): void {
  for (const [name, feature] of names) {
    if (header(ctx, name) !== undefined) {
      throw new S3Error('NotImplemented', { message: `${feature} (${name}) is not implemented by this server.` });
    }
  }
}

/** The verified checksum of a decoded body, as the engine stores it. */
export function payloadChecksums(decoded: DecodedPayload): ChecksumValues {
  const c = decoded.checksum();
  return c === undefined ? {} : { [c.algorithm]: c.value };
}

/** x-amz-version-id of a write to a versioned bucket (`null` when suspended); none for unversioned buckets. */
export function writtenVersionHeader(ctx: S3Context, versioning: VersioningState | undefined, versionId: string | undefined): void {
  if (versioning !== undefined && versionId !== undefined) ctx.reply.header('x-amz-version-id', versionId);
}

/** x-amz-checksum-* response headers echoing what was verified and stored. */
export function storedChecksumHeaders(checksums: ChecksumValues): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [alg, value] of Object.entries(checksums) as Array<[keyof ChecksumValues, string]>) out[checksumHeaderName(alg)] = value;
  return out;
}

/**
 * PutObject (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html): streams the decoded
 * body into the engine with backpressure. Content-MD5 is checked by the engine before commit (BadDigest);
 * x-amz-checksum-* values are verified by the payload decoder and stored with the object; x-amz-tagging
 * tags are validated before any byte is read.
 */
export async function putObject(ctx: S3Context, bucket: string, key: string): Promise<FastifyReply> {
  rejectUnsupportedWriteHeaders(ctx);
  const metadata = parseMetadata(ctx.headers);
  const md5 = parseContentMd5(ctx.headers);
  const tags = parseTaggingHeader(header(ctx, 'x-amz-tagging'));
  const versioning = await bucketVersioning(ctx.layer, bucket);
  const lock = await lockForWrite(ctx, bucket, key, { checkIntegrity: true, versioning });
  const decoded = openBody(ctx);
  const info: ObjectInfo = await ctx.layer.putObject(bucket, key, decoded.stream, {
    size: decoded.decodedLength,
    metadata,
    ...(md5 !== undefined ? { md5 } : {}),
    checksums: () => payloadChecksums(decoded),
    ...(tags.length > 0 ? { tags } : {}),
    ...(versioning !== undefined ? { versioning } : {}),
    ...(lock !== undefined ? { lock } : {}),
  });
  ctx.reply.header('etag', quoteEtag(info.etag));
  writtenVersionHeader(ctx, versioning, info.versionId);
  ctx.reply.headers(storedChecksumHeaders(info.checksums));
  return ctx.reply.code(200).send();
}
