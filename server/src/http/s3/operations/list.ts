import type { FastifyReply } from 'fastify';
import type { ObjectInfo } from '../../../storage/index.js';
import { sendXml, type S3Context } from '../context.js';
import {
  decodeContinuationToken, encodeContinuationToken, listEncoder, parseMaxEntries,
} from '../list-params.js';
import { CHECKSUM_ALGORITHMS } from '../../../common/index.js';
import { plainView } from '../sse/object-crypto.js';
import {
  encodeListMultipartUploads, encodeListObjectsV1, encodeListObjectsV2, type ListedObjectView,
} from '../xml/responses.js';

function listed(objects: readonly ObjectInfo[]): ListedObjectView[] {
  // Per key of a page of 1,000: one object, no closure or spread (a warm LIST's CPU is spent per key).
  const out: ListedObjectView[] = [];
  for (const stored of objects) {
    const o = plainView(stored);
    const view: ListedObjectView = { key: o.key, lastModified: o.lastModified, etag: o.etag, size: o.size };
    for (const alg of CHECKSUM_ALGORITHMS) {
      if (o.checksums[alg] === undefined) continue;
      view.checksumAlgorithm = alg;
      break;
    }
    out.push(view);
  }
  return out;
}

async function page(ctx: S3Context, bucket: string, opts: { prefix: string; delimiter: string; startAfter: string; maxKeys: number }) {
  // max-keys=0 is a valid request for "nothing": AWS answers an empty, untruncated page.
  if (opts.maxKeys === 0) {
    await ctx.layer.getBucketInfo(bucket);
    return { objects: [], commonPrefixes: [], isTruncated: false, nextMarker: undefined };
  }
  return ctx.layer.listObjects(bucket, opts);
}

/**
 * ListObjects v1 (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjects.html). NextMarker is
 * returned only when a delimiter was given; without one, clients continue from the last Key.
 */
export async function listObjectsV1(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  const prefix = ctx.query['prefix'] ?? '';
  const delimiter = ctx.query['delimiter'] ?? '';
  const marker = ctx.query['marker'] ?? '';
  const maxKeys = parseMaxEntries(ctx.query['max-keys'], 'max-keys');
  const { encodingType, encode } = listEncoder(ctx.query['encoding-type']);
  const result = await page(ctx, bucket, { prefix, delimiter, startAfter: marker, maxKeys });
  const nextMarker = result.isTruncated && delimiter !== '' ? result.nextMarker : undefined;
  return sendXml(ctx, 200, encodeListObjectsV1({
    bucket, prefix, delimiter, maxKeys, marker, isTruncated: result.isTruncated,
    objects: listed(result.objects), commonPrefixes: result.commonPrefixes, owner: ctx.owner, encode,
    ...(nextMarker !== undefined ? { nextMarker } : {}),
    ...(encodingType !== undefined ? { encodingType } : {}),
  }));
}

/**
 * ListObjectsV2 (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html): opaque
 * continuation tokens (which take precedence over start-after), fetch-owner, KeyCount.
 */
export async function listObjectsV2(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  const prefix = ctx.query['prefix'] ?? '';
  const delimiter = ctx.query['delimiter'] ?? '';
  const startAfter = ctx.query['start-after'];
  const token = ctx.query['continuation-token'];
  const maxKeys = parseMaxEntries(ctx.query['max-keys'], 'max-keys');
  const { encodingType, encode } = listEncoder(ctx.query['encoding-type']);
  const fetchOwner = ctx.query['fetch-owner']?.toLowerCase() === 'true';
  const from = token !== undefined ? decodeContinuationToken(token) : (startAfter ?? '');
  const result = await page(ctx, bucket, { prefix, delimiter, startAfter: from, maxKeys });
  const next = result.isTruncated && result.nextMarker !== undefined ? encodeContinuationToken(result.nextMarker) : undefined;
  return sendXml(ctx, 200, encodeListObjectsV2({
    bucket, prefix, delimiter, maxKeys, isTruncated: result.isTruncated,
    objects: listed(result.objects), commonPrefixes: result.commonPrefixes, encode,
    ...(token !== undefined ? { continuationToken: token } : {}),
    ...(next !== undefined ? { nextContinuationToken: next } : {}),
    ...(startAfter !== undefined ? { startAfter } : {}),
    ...(fetchOwner ? { owner: ctx.owner } : {}),
    ...(encodingType !== undefined ? { encodingType } : {}),
  }));
}

/** ListMultipartUploads (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListMultipartUploads.html). */
export async function listMultipartUploads(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  const prefix = ctx.query['prefix'] ?? '';
  const delimiter = ctx.query['delimiter'] ?? '';
  const keyMarker = ctx.query['key-marker'] ?? '';
  // upload-id-marker only means something together with key-marker (AWS ignores it otherwise).
  const uploadIdMarker = keyMarker === '' ? '' : (ctx.query['upload-id-marker'] ?? '');
  const maxUploads = parseMaxEntries(ctx.query['max-uploads'], 'max-uploads');
  const { encodingType, encode } = listEncoder(ctx.query['encoding-type']);
  const result = maxUploads === 0
    ? { uploads: [], commonPrefixes: [], isTruncated: false, nextKeyMarker: undefined, nextUploadIdMarker: undefined }
    : await ctx.layer.listMultipartUploads(bucket, { prefix, delimiter, keyMarker, uploadIdMarker, maxUploads });
  if (maxUploads === 0) await ctx.layer.getBucketInfo(bucket);
  return sendXml(ctx, 200, encodeListMultipartUploads({
    bucket, keyMarker, uploadIdMarker, prefix, delimiter, maxUploads, isTruncated: result.isTruncated, owner: ctx.owner, encode,
    uploads: result.uploads.map((u) => ({
      key: u.key, uploadId: u.uploadId, initiated: u.initiated,
      ...(u.checksumAlgorithm !== undefined ? { checksumAlgorithm: u.checksumAlgorithm } : {}),
    })),
    commonPrefixes: result.commonPrefixes,
    ...(result.nextKeyMarker !== undefined ? { nextKeyMarker: result.nextKeyMarker } : {}),
    ...(result.nextUploadIdMarker !== undefined ? { nextUploadIdMarker: result.nextUploadIdMarker } : {}),
    ...(encodingType !== undefined ? { encodingType } : {}),
  }));
}
