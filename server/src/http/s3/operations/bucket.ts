import type { FastifyReply } from 'fastify';
import { sendEmpty, sendXml, type S3Context } from '../context.js';
import { readXmlBody } from '../body.js';
import { decodeCreateBucketConfiguration } from '../xml/requests.js';
import { encodeListBuckets, encodeLocation } from '../xml/responses.js';
import { S3Error } from '../s3-error.js';
import { enableObjectLock, wantsObjectLockAtCreation } from './object-lock.js';

/** ListBuckets (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListBuckets.html). */
export async function listBuckets(ctx: S3Context): Promise<FastifyReply> {
  const buckets = await ctx.layer.listBuckets();
  const sorted = [...buckets].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return sendXml(ctx, 200, encodeListBuckets(ctx.owner, sorted));
}

/**
 * CreateBucket (https://docs.aws.amazon.com/AmazonS3/latest/API/API_CreateBucket.html). The name was
 * checked against the naming rules by the router. A LocationConstraint, when sent, must name this
 * server's region; an existing bucket is BucketAlreadyOwnedByYou (every bucket has the same owner).
 */
export async function createBucket(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  const { locationConstraint } = decodeCreateBucketConfiguration(await readXmlBody(ctx));
  if (locationConstraint !== undefined && locationConstraint !== '' && locationConstraint !== ctx.region) {
    throw new S3Error('InvalidLocationConstraint', {
      message: `The specified location-constraint is not valid: this server's region is ${ctx.region}.`,
      extra: { LocationConstraint: locationConstraint },
    });
  }
  const objectLock = wantsObjectLockAtCreation(ctx);
  await ctx.layer.makeBucket(bucket);
  if (objectLock) await enableObjectLock(ctx.layer, bucket);
  return ctx.reply.header('location', `/${bucket}`).code(200).send();
}

/** HeadBucket: 200 with the bucket region, or an error status without body. */
export async function headBucket(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  await ctx.layer.getBucketInfo(bucket);
  return ctx.reply.header('x-amz-bucket-region', ctx.region).code(200).send();
}

/** DeleteBucket: 204; BucketNotEmpty while objects or uploads remain. */
export async function deleteBucket(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  await ctx.layer.deleteBucket(bucket);
  return sendEmpty(ctx, 204);
}

/** GetBucketLocation (https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketLocation.html). */
export async function getBucketLocation(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  await ctx.layer.getBucketInfo(bucket);
  return sendXml(ctx, 200, encodeLocation(ctx.region));
}
