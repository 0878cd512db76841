import type { FastifyReply } from 'fastify';
import { MAX_POLICY_BYTES, MalformedPolicyError, isPublicPolicy, parsePolicy } from '../../../iam/index.js';
import { BodyTooLargeError, xmlDocument } from '../../shared/index.js';
import { sendEmpty, sendXml, type S3Context } from '../context.js';
import { readSmallBody } from '../body.js';
import { S3Error } from '../s3-error.js';
import { S3_XMLNS } from '../xml/responses.js';

/** Bucket policy configuration: Put/Get/DeleteBucketPolicy and GetBucketPolicyStatus. */

function noPolicy(bucket: string): S3Error {
  return new S3Error('NoSuchBucketPolicy', { resource: `/${bucket}`, extra: { BucketName: bucket } });
}

/**
 * PutBucketPolicy (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketPolicy.html): the JSON
 * document is validated (MalformedPolicy) and stored as sent; 204.
 */
export async function putBucketPolicy(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  let body: Buffer;
  try {
    body = await readSmallBody(ctx, MAX_POLICY_BYTES);
  } catch (err) {
    if (err instanceof BodyTooLargeError) throw new MalformedPolicyError(`Policies must not exceed ${MAX_POLICY_BYTES} bytes`);
    throw err;
  }
  const text = body.toString('utf8');
  // Resources are checked against the bucket, so a missing bucket must be reported as such first.
  await ctx.layer.getBucketInfo(bucket);
  parsePolicy(text, bucket);
  await ctx.layer.putBucketConfig(bucket, 'policy', text);
  return sendEmpty(ctx, 204);
}

/** GetBucketPolicy (https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketPolicy.html): the JSON as stored; NoSuchBucketPolicy when none. */
export async function getBucketPolicy(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  const text = await ctx.layer.getBucketConfig(bucket, 'policy');
  if (text === undefined) throw noPolicy(bucket);
  return ctx.reply.code(200).header('content-type', 'application/json').send(text);
}

/** DeleteBucketPolicy (https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteBucketPolicy.html): 204, even when none. */
export async function deleteBucketPolicy(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  await ctx.layer.putBucketConfig(bucket, 'policy', undefined);
  return sendEmpty(ctx, 204);
}

/** GetBucketPolicyStatus (https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketPolicyStatus.html): IsPublic. */
export async function getBucketPolicyStatus(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  const text = await ctx.layer.getBucketConfig(bucket, 'policy');
  if (text === undefined) throw noPolicy(bucket);
  const isPublic = isPublicPolicy(parsePolicy(text, bucket));
  return sendXml(ctx, 200, xmlDocument('PolicyStatus', { IsPublic: isPublic }, S3_XMLNS));
}
