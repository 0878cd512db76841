import type { FastifyReply } from 'fastify';
import { parseLifecycleConfig } from '../../../storage/index.js';
import { sendEmpty, sendXml, type S3Context } from '../context.js';
import { hasIntegrityHeader, readXmlBody } from '../body.js';
import { decodeLifecycleConfiguration, encodeLifecycleConfiguration } from '../xml/lifecycle-xml.js';
import { S3Error } from '../s3-error.js';

/**
 * Bucket lifecycle configuration (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lifecycle-mgmt.html):
 * validated here, stored as the engine's LifecycleConfig JSON (bucket config kind 'lifecycle') and applied by the
 * storage layer's lifecycle pass (LifecycleService).
 */

/**
 * PutBucketLifecycleConfiguration (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketLifecycleConfiguration.html):
 * Content-MD5 or a checksum is required; the new configuration replaces the old one whole.
 */
export async function putBucketLifecycleConfiguration(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  if (!hasIntegrityHeader(ctx)) {
    throw new S3Error('InvalidRequest', { message: 'Missing required header for this request: Content-MD5 or x-amz-checksum-*' });
  }
  const config = decodeLifecycleConfiguration(await readXmlBody(ctx));
  await ctx.layer.putBucketConfig(bucket, 'lifecycle', JSON.stringify(config));
  return sendEmpty(ctx, 200);
}

/** GetBucketLifecycleConfiguration: 404 NoSuchLifecycleConfiguration when the bucket has none. */
export async function getBucketLifecycleConfiguration(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  const stored = await ctx.layer.getBucketConfig(bucket, 'lifecycle');
  if (stored === undefined) throw new S3Error('NoSuchLifecycleConfiguration', { resource: `/${bucket}`, extra: { BucketName: bucket } });
  return sendXml(ctx, 200, encodeLifecycleConfiguration(parseLifecycleConfig(stored)));
}

/** DeleteBucketLifecycle (https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteBucketLifecycle.html): 204, even when none. */
export async function deleteBucketLifecycle(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  await ctx.layer.putBucketConfig(bucket, 'lifecycle', undefined);
  return sendEmpty(ctx, 204);
}
