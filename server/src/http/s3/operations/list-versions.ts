import type { FastifyReply } from 'fastify';
import type { S3Context } from '../context.js';
import { S3Error } from '../s3-error.js';

/** ListObjectVersions (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectVersions.html). */
export async function listObjectVersions(_ctx: S3Context, _bucket: string): Promise<FastifyReply> {
  throw new S3Error('NotImplemented', { message: 'ListObjectVersions is not implemented yet.' });
}
