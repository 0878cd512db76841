import type { FastifyReply } from 'fastify';
import { sendEmpty, sendXml, type S3Context } from '../context.js';
import { hasIntegrityHeader, readXmlBody } from '../body.js';
import { validateTags } from '../headers/tagging.js';
import { decodeTagging } from '../xml/requests.js';
import { encodeTagging } from '../xml/responses.js';
import { S3Error } from '../s3-error.js';

/**
 * Object and bucket tagging. Objects are unversioned here, so the only version is "null"
 * (x-amz-version-id: null, as AWS answers for unversioned buckets).
 */

/** PutObjectTagging (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectTagging.html): replaces the whole set. */
export async function putObjectTagging(ctx: S3Context, bucket: string, key: string): Promise<FastifyReply> {
  const tags = decodeTagging(await readXmlBody(ctx));
  validateTags(tags, 'object');
  await ctx.layer.putObjectTags(bucket, key, tags);
  ctx.reply.header('x-amz-version-id', 'null');
  return sendEmpty(ctx, 200);
}

/** GetObjectTagging (https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObjectTagging.html): an empty set when untagged. */
export async function getObjectTagging(ctx: S3Context, bucket: string, key: string): Promise<FastifyReply> {
  const info = await ctx.layer.getObjectInfo(bucket, key);
  ctx.reply.header('x-amz-version-id', 'null');
  return sendXml(ctx, 200, encodeTagging(info.tags ?? []));
}

/** DeleteObjectTagging (https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteObjectTagging.html): 204. */
export async function deleteObjectTagging(ctx: S3Context, bucket: string, key: string): Promise<FastifyReply> {
  await ctx.layer.putObjectTags(bucket, key, []);
  ctx.reply.header('x-amz-version-id', 'null');
  return sendEmpty(ctx, 204);
}

/**
 * PutBucketTagging (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketTagging.html): Content-MD5
 * or an x-amz-checksum header is required; up to 50 tags; 204.
 */
export async function putBucketTagging(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  if (!hasIntegrityHeader(ctx)) {
    throw new S3Error('InvalidRequest', { message: 'Missing required header for this request: Content-MD5 or x-amz-checksum-*' });
  }
  const tags = decodeTagging(await readXmlBody(ctx));
  validateTags(tags, 'bucket');
  await ctx.layer.putBucketTags(bucket, tags);
  return sendEmpty(ctx, 204);
}

/** GetBucketTagging (https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketTagging.html): NoSuchTagSet when none. */
export async function getBucketTagging(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  const tags = await ctx.layer.getBucketTags(bucket);
  if (tags === undefined) throw new S3Error('NoSuchTagSet', { resource: `/${bucket}`, extra: { BucketName: bucket } });
  return sendXml(ctx, 200, encodeTagging(tags));
}

/** DeleteBucketTagging (https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteBucketTagging.html): 204, even when none. */
export async function deleteBucketTagging(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  await ctx.layer.putBucketTags(bucket, undefined);
  return sendEmpty(ctx, 204);
}
