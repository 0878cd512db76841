import type { FastifyReply } from 'fastify';
import type { ObjectInfo } from '../../../storage/index.js';
import { header, type S3Context } from '../context.js';
import { evaluatePreconditions } from '../headers/conditionals.js';
import { contentRange, resolveRange } from '../headers/range.js';
import { responseOverrides } from '../headers/metadata.js';
import { checksumHeaders, objectHeaders, validatorHeaders } from '../headers/response-headers.js';
import { S3Error } from '../s3-error.js';
import { decryptedInfo, decryptingObject } from '../sse/object-crypto.js';
import { lockResponseHeaders } from './object-lock.js';

type Prepared = { kind: 'not-modified' } | { kind: 'content'; range: { start: number; end: number } | undefined };

function wantsChecksums(ctx: S3Context): boolean {
  return header(ctx, 'x-amz-checksum-mode')?.toUpperCase() === 'ENABLED';
}

/**
 * Evaluates If-Match / If-None-Match / If-Modified-Since / If-Unmodified-Since (precedence in
 * conditionals.ts; 412 PreconditionFailed is thrown), then Range (416 InvalidRange is thrown), and sets
 * status and headers for a 200, 206 or 304 answer.
 */
function prepare(ctx: S3Context, info: ObjectInfo): Prepared {
  const condition = evaluatePreconditions(
    {
      ifMatch: header(ctx, 'if-match'),
      ifNoneMatch: header(ctx, 'if-none-match'),
      ifModifiedSince: header(ctx, 'if-modified-since'),
      ifUnmodifiedSince: header(ctx, 'if-unmodified-since'),
    },
    info.etag,
    info.lastModified,
  );
  if (condition === 'precondition-failed') throw new S3Error('PreconditionFailed', { extra: { Condition: 'If-Match' } });
  if (condition === 'not-modified') {
    // 304 carries the validators and no body (RFC 9110 §15.4.5).
    ctx.reply.headers(validatorHeaders(info)).code(304);
    return { kind: 'not-modified' };
  }
  const range = resolveRange(header(ctx, 'range'), info.size);
  ctx.reply.headers(objectHeaders(info));
  if (info.partCount !== undefined && info.partCount > 1) ctx.reply.header('x-amz-mp-parts-count', String(info.partCount));
  if (info.tags !== undefined && info.tags.length > 0) ctx.reply.header('x-amz-tagging-count', String(info.tags.length));
  // Stored checksums describe the whole object, so they are only meaningful without a range.
  if (wantsChecksums(ctx) && range === undefined) ctx.reply.headers(checksumHeaders(info.checksums));
  ctx.reply.headers(responseOverrides(ctx.query));
  if (range === undefined) {
    ctx.reply.code(200);
  } else {
    ctx.reply.header('content-range', contentRange(range, info.size));
    ctx.reply.header('content-length', String(range.end - range.start + 1));
    ctx.reply.code(206);
  }
  return { kind: 'content', range };
}

/**
 * x-amz-version-id of a read: every version of a versioned write has a UUID; the "null" version is named only when
 * the request asked for it (an unversioned bucket's objects carry no version header, as on AWS).
 */
function versionHeader(ctx: S3Context, info: ObjectInfo, requested: string | undefined): void {
  const id = info.versionId;
  if (id !== undefined && (id !== 'null' || requested !== undefined)) ctx.reply.header('x-amz-version-id', id);
}

/**
 * GetObject (https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html): streams the newest version or
 * `versionId`, whole or one range.
 */
export async function getObject(ctx: S3Context, bucket: string, key: string, versionId?: string): Promise<FastifyReply> {
  const stored = await ctx.layer.openObject(bucket, key, versionId === undefined ? {} : { versionId });
  // Encrypted objects: the key is checked first, then everything below sees the plaintext view.
  const { object, headers } = decryptingObject(ctx, stored);
  const prepared = prepare(ctx, object.info);
  ctx.reply.headers(headers);
  versionHeader(ctx, object.info, versionId);
  ctx.reply.headers(lockResponseHeaders(ctx, bucket, object.info));
  if (prepared.kind === 'not-modified') return ctx.reply.send();
  if (object !== stored) return ctx.reply.send(object.read(prepared.range));
  // A small object already in memory is sent as one buffer. Otherwise the body goes straight into the response
  // (fastify pipes it, nothing in between), so its shard buffers can be reused once the socket has them.
  const bytes = object.bytes?.(prepared.range);
  if (bytes !== undefined) return ctx.reply.send(bytes);
  return ctx.reply.send(object.read(prepared.range, { sink: ctx.reply.raw }));
}

/** HeadObject: the GetObject headers without a body. */
export async function headObject(ctx: S3Context, bucket: string, key: string, versionId?: string): Promise<FastifyReply> {
  const stored = await ctx.layer.getObjectInfo(bucket, key, versionId === undefined ? {} : { versionId });
  const { info, headers } = decryptedInfo(ctx, stored);
  prepare(ctx, info);
  ctx.reply.headers(headers);
  versionHeader(ctx, info, versionId);
  ctx.reply.headers(lockResponseHeaders(ctx, bucket, info));
  return ctx.reply.send();
}
