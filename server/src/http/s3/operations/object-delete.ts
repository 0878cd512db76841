import type { FastifyReply } from 'fastify';
import { sendEmpty, sendXml, type S3Context } from '../context.js';
import { hasIntegrityHeader, readXmlBody } from '../body.js';
import { decodeDeleteObjects } from '../xml/requests.js';
import { encodeDeleteResult, type DeleteErrorView } from '../xml/responses.js';
import { toS3Error } from '../error-mapping.js';
import { checkObjectKey } from '../names.js';
import { S3Error } from '../s3-error.js';

/** DeleteObject: 204 whether or not the key existed (https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteObject.html). */
export async function deleteObject(ctx: S3Context, bucket: string, key: string): Promise<FastifyReply> {
  await ctx.layer.deleteObject(bucket, key);
  return sendEmpty(ctx, 204);
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
  const outcomes: Array<{ key: string; error?: DeleteErrorView }> = new Array(request.objects.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < request.objects.length) {
      const i = next++;
      const { key, versionId } = request.objects[i]!;
      try {
        checkObjectKey(key);
        if (versionId !== undefined && versionId !== 'null') throw new S3Error('InvalidArgument', { message: 'Invalid version id specified' });
        // AWS authorizes DeleteObjects per key (s3:DeleteObject) and reports refusals as per-key AccessDenied.
        if (ctx.authorizeKey !== undefined && !ctx.authorizeKey(bucket, key, 's3:DeleteObject')) throw new S3Error('AccessDenied');
        await ctx.layer.deleteObject(bucket, key);
        outcomes[i] = { key };
      } catch (err) {
        const { error, internal } = toS3Error(err);
        if (internal) ctx.log.error({ err, key }, 'DeleteObjects: key failed');
        outcomes[i] = { key, error: { key, code: error.code, message: error.message } };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(DELETE_CONCURRENCY, request.objects.length) }, worker));
  const deleted = request.quiet ? [] : outcomes.filter((o) => o.error === undefined).map((o) => o.key);
  const errors = outcomes.flatMap((o) => (o.error === undefined ? [] : [o.error]));
  return sendXml(ctx, 200, encodeDeleteResult(deleted, errors));
}
