import type { FastifyReply } from 'fastify';
import type { S3Context } from '../context.js';
import { S3Error } from '../s3-error.js';

/** Bucket lifecycle configuration (not yet implemented: 501). */

function notYet(): S3Error {
  return new S3Error('NotImplemented', { message: 'The lifecycle sub-resource is not implemented by this server.' });
}

/** PutBucketLifecycleConfiguration. */
export async function putBucketLifecycleConfiguration(_ctx: S3Context, _bucket: string): Promise<FastifyReply> {
  throw notYet();
}

/** GetBucketLifecycleConfiguration. */
export async function getBucketLifecycleConfiguration(_ctx: S3Context, _bucket: string): Promise<FastifyReply> {
  throw notYet();
}

/** DeleteBucketLifecycle. */
export async function deleteBucketLifecycle(_ctx: S3Context, _bucket: string): Promise<FastifyReply> {
  throw notYet();
}
