import type { FastifyReply } from 'fastify';
import { xmlDocument } from '../../shared/index.js';
import { sendEmpty, sendXml, type S3Context } from '../context.js';
import { hasIntegrityHeader, readXmlBody } from '../body.js';
import { elementsOf, parseXmlBody, textOf } from '../xml/parse.js';
import { S3_XMLNS } from '../xml/responses.js';
import { S3Error } from '../s3-error.js';
import { parseSseWrite, type SseWrite } from '../sse/sse-request.js';

/**
 * Bucket default encryption (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketEncryption.html):
 * one rule whose SSEAlgorithm AES256 makes every write without encryption headers SSE-S3. SSE-KMS (aws:kms,
 * aws:kms:dsse) is not implemented. The stored document is the algorithm name.
 */

/** The bucket's default encryption algorithm ("AES256"), or undefined when none is configured. */
export async function bucketDefaultEncryption(ctx: S3Context, bucket: string): Promise<string | undefined> {
  return ctx.layer.getBucketConfig(bucket, 'encryption');
}

/**
 * How a write to `bucket` is encrypted: as its headers ask, else as the bucket's default encryption says.
 * Header errors come first, before any byte is read.
 */
export async function resolveSseWrite(ctx: S3Context, bucket: string): Promise<SseWrite> {
  const asked = parseSseWrite(ctx);
  if (asked.kind !== 'none') return asked;
  return (await bucketDefaultEncryption(ctx, bucket)) === 'AES256' ? { kind: 'SSE-S3' } : asked;
}

function decodeAlgorithm(body: Buffer): string {
  const root = parseXmlBody(body, 'ServerSideEncryptionConfiguration');
  const rules = elementsOf(root, 'Rule');
  if (rules.length !== 1) throw new S3Error('MalformedXML', { message: 'The configuration must contain exactly one Rule.' });
  const byDefault = elementsOf(rules[0]!, 'ApplyServerSideEncryptionByDefault');
  if (byDefault.length !== 1) throw new S3Error('MalformedXML', { message: 'The Rule must contain ApplyServerSideEncryptionByDefault.' });
  const algorithm = textOf(byDefault[0]!, 'SSEAlgorithm');
  if (algorithm === 'aws:kms' || algorithm === 'aws:kms:dsse') {
    throw new S3Error('NotImplemented', { message: `Default encryption with KMS keys (${algorithm}) is not implemented by this server; use AES256.` });
  }
  if (algorithm !== 'AES256') throw new S3Error('MalformedXML', { message: 'SSEAlgorithm must be AES256, aws:kms or aws:kms:dsse.' });
  return algorithm;
}

/** PutBucketEncryption: Content-MD5 or a checksum is required (as AWS); AES256 needs a configured KMS (else 501). */
export async function putBucketEncryption(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  if (!hasIntegrityHeader(ctx)) {
    throw new S3Error('InvalidRequest', { message: 'Missing required header for this request: Content-MD5 or x-amz-checksum-*' });
  }
  const algorithm = decodeAlgorithm(await readXmlBody(ctx));
  if (ctx.kms === undefined) {
    throw new S3Error('NotImplemented', {
      message: 'Default encryption with S3 managed keys (SSE-S3) needs a KMS, and none is configured on this server (set SVC_KMS_SECRET_KEY).',
    });
  }
  await ctx.layer.putBucketConfig(bucket, 'encryption', algorithm);
  return sendEmpty(ctx, 200);
}

/** GetBucketEncryption: 404 ServerSideEncryptionConfigurationNotFoundError when none is configured. */
export async function getBucketEncryption(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  const algorithm = await bucketDefaultEncryption(ctx, bucket);
  if (algorithm === undefined) {
    throw new S3Error('ServerSideEncryptionConfigurationNotFoundError', { resource: `/${bucket}`, extra: { BucketName: bucket } });
  }
  return sendXml(ctx, 200, xmlDocument('ServerSideEncryptionConfiguration', {
    Rule: { ApplyServerSideEncryptionByDefault: { SSEAlgorithm: algorithm }, BucketKeyEnabled: false },
  }, S3_XMLNS));
}

/** DeleteBucketEncryption: 204, also when none was configured. */
export async function deleteBucketEncryption(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  await ctx.layer.putBucketConfig(bucket, 'encryption', undefined);
  return sendEmpty(ctx, 204);
}
