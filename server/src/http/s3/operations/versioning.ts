import type { FastifyReply } from 'fastify';
import type { ObjectLayer, VersioningState } from '../../../storage/index.js';
import { sendEmpty, sendXml, type S3Context } from '../context.js';
import { readXmlBody } from '../body.js';
import { decodeVersioningConfiguration, type VersioningStatus } from '../xml/requests.js';
import { encodeVersioningConfiguration } from '../xml/responses.js';
import { S3Error } from '../s3-error.js';

/**
 * Bucket versioning state (https://docs.aws.amazon.com/AmazonS3/latest/userguide/Versioning.html): a bucket is
 * unversioned until PutBucketVersioning first sets Enabled or Suspended, and can never return to unversioned.
 * The state is the bucket config document of kind 'versioning' holding the status word.
 */

function parseStored(stored: string | undefined): VersioningStatus | undefined {
  return stored === 'Enabled' || stored === 'Suspended' ? stored : undefined;
}

/** The versioning state writes in `bucket` follow; undefined for a bucket that was never versioned. */
export async function bucketVersioning(layer: ObjectLayer, bucket: string): Promise<VersioningState | undefined> {
  const status = parseStored(await layer.getBucketConfig(bucket, 'versioning'));
  if (status === undefined) return undefined;
  return status === 'Enabled' ? 'enabled' : 'suspended';
}

/**
 * PutBucketVersioning (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketVersioning.html): Enabled or
 * Suspended; a body without Status changes nothing. MFA delete cannot be enforced here (no MFA devices), so
 * MfaDelete=Enabled is refused rather than silently ignored.
 */
export async function putBucketVersioning(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  const config = decodeVersioningConfiguration(await readXmlBody(ctx));
  if (config.mfaDelete === 'Enabled') {
    throw new S3Error('NotImplemented', { message: 'MFA delete is not implemented by this server.' });
  }
  if (config.status === undefined) {
    await ctx.layer.getBucketInfo(bucket);
    return sendEmpty(ctx, 200);
  }
  if (config.status === 'Suspended' && (await ctx.layer.getBucketConfig(bucket, 'object-lock')) !== undefined) {
    // https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html: versioning cannot be suspended under Object Lock.
    throw new S3Error('InvalidBucketState', { message: 'An Object Lock configuration is present on this bucket, so the versioning state cannot be changed.' });
  }
  await ctx.layer.putBucketConfig(bucket, 'versioning', config.status);
  return sendEmpty(ctx, 200);
}

/** GetBucketVersioning (https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketVersioning.html). */
export async function getBucketVersioning(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  const status = parseStored(await ctx.layer.getBucketConfig(bucket, 'versioning'));
  return sendXml(ctx, 200, encodeVersioningConfiguration(status));
}
