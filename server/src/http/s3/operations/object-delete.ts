import type { FastifyReply } from 'fastify';
import { sendEmpty, sendXml, type S3Context } from '../context.js';
import { hasIntegrityHeader, readXmlBody } from '../body.js';
import { decodeDeleteObjects } from '../xml/requests.js';
import { encodeDeleteResult, type DeleteErrorView, type DeletedView } from '../xml/responses.js';
import type { DeleteObjectResult } from '../../../storage/index.js';
import { parseVersionId } from '../router.js';
import { bucketVersioning } from './versioning.js';
import { bucketObjectLock, bypassGovernance, deleteLockCheck } from './object-lock.js';
import { toS3Error } from '../error-mapping.js';
import { checkObjectKey } from '../names.js';
import { S3Error } from '../s3-error.js';

/** The x-amz-delete-marker / x-amz-version-id headers of a delete's answer. */
function deleteHeaders(result: DeleteObjectResult): Record<string, string> {
  return {
    ...(result.deleteMarker ? { 'x-amz-delete-marker': 'true' } : {}),
    ...(result.versionId !== undefined ? { 'x-amz-version-id': result.versionId } : {}),
  };
}

/**
 * DeleteObject: 204 whether or not the key existed (https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteObject.html).
 * In a versioned bucket a delete without versionId adds a delete marker; with versionId it removes that version.
 */
export async function deleteObject(ctx: S3Context, bucket: string, key: string, versionId?: string): Promise<FastifyReply> {
  const versioning = await bucketVersioning(ctx.layer, bucket);
  const objectLock = versionId === undefined ? undefined : await deleteLockCheck(ctx, bucket, key, versioning);
  const result = await ctx.layer.deleteObject(bucket, key, {
    ...(versionId !== undefined ? { versionId } : {}),
    ...(versioning !== undefined ? { versioning } : {}),
    ...(objectLock !== undefined ? { objectLock } : {}),
  });
  ctx.reply.headers(deleteHeaders(result));
  return sendEmpty(ctx, 204);
}

/**
 * One `<Deleted>` entry: the version the request named, or for a new delete marker DeleteMarker and
 * DeleteMarkerVersionId (https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeletedObject.html).
 */
function deletedView(key: string, requested: string | undefined, result: DeleteObjectResult): DeletedView {
  if (requested !== undefined) return { key, versionId: requested, ...(result.deleteMarker ? { deleteMarker: true, deleteMarkerVersionId: requested } : {}) };
  if (result.deleteMarker && result.versionId !== undefined) return { key, deleteMarker: true, deleteMarkerVersionId: result.versionId };
  return { key };
}

// Keys are deleted a few at a time: enough to overlap drive round-trips without flooding the engine.
const DELETE_CONCURRENCY = 8;

/**
 * DeleteObjects (https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteObjects.html): up to 1000 keys,
 * Content-MD5 or an x-amz-checksum header is required, per-key failures are reported in the result
 * (the request itself succeeds), and Quiet mode reports only the failures.
 */
export async function deleteObjects(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  if (!hasIntegrityHeader(ctx)) {
    throw new S3Error('InvalidRequest', { message: 'Missing required header for this request: Content-MD5 or x-amz-checksum-*' });
  }
  const request = decodeDeleteObjects(await readXmlBody(ctx));
  // A missing bucket fails the whole request rather than every key.
  await ctx.layer.getBucketInfo(bucket);
  const versioning = await bucketVersioning(ctx.layer, bucket);
  const locked = (await bucketObjectLock(ctx.layer, bucket, versioning ?? null)) !== undefined;
  const outcomes: Array<{ deleted?: DeletedView; error?: DeleteErrorView }> = new Array(request.objects.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < request.objects.length) {
      const i = next++;
      const { key, versionId } = request.objects[i]!;
      try {
        checkObjectKey(key);
        if (versionId !== undefined) parseVersionId(versionId);
        // AWS authorizes DeleteObjects per key (s3:DeleteObject, s3:DeleteObjectVersion) and reports refusals as per-key AccessDenied.
        const action = versionId === undefined ? 's3:DeleteObject' : 's3:DeleteObjectVersion';
        if (ctx.authorizeKey !== undefined && !ctx.authorizeKey(bucket, key, action)) throw new S3Error('AccessDenied');
        const result = await ctx.layer.deleteObject(bucket, key, {
          ...(versionId !== undefined ? { versionId } : {}),
          ...(versioning !== undefined ? { versioning } : {}),
          ...(locked && versionId !== undefined ? { objectLock: { now: ctx.now(), bypassGovernance: bypassGovernance(ctx, bucket, key) } } : {}),
        });
        outcomes[i] = { deleted: deletedView(key, versionId, result) };
      } catch (err) {
        const { error, internal } = toS3Error(err);
        if (internal) ctx.log.error({ err, key }, 'DeleteObjects: key failed');
        outcomes[i] = { error: { key, code: error.code, message: error.message, ...(versionId !== undefined ? { versionId } : {}) } };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(DELETE_CONCURRENCY, request.objects.length) }, worker));
  const deleted = request.quiet ? [] : outcomes.flatMap((o) => (o.deleted === undefined ? [] : [o.deleted]));
  const errors = outcomes.flatMap((o) => (o.error === undefined ? [] : [o.error]));
  return sendXml(ctx, 200, encodeDeleteResult(deleted, errors));
}
