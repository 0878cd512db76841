import type { FastifyReply } from 'fastify';
import type { ObjectLayer } from '../../../storage/index.js';
import { header, sendEmpty, sendXml, type S3Context } from '../context.js';
import { hasIntegrityHeader, readXmlBody } from '../body.js';
import { S3Error } from '../s3-error.js';
import {
  corsResponseHeaders, matchActual, matchPreflight, parseRequestHeaders, validateCorsRules, type CorsRule,
} from '../cors/cors-rules.js';
import { decodeCorsConfiguration, encodeCorsConfiguration, loadCorsRules, storeCorsRules } from '../cors/cors-xml.js';

/** Bucket CORS configuration (Put/Get/DeleteBucketCors), preflight answers and CORS headers of actual requests. */

/** `Vary` of every CORS answer: caches must key on what the answer was computed from. */
const CORS_VARY = 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method';

/** The bucket's CORS rules, or undefined when it has no CORS configuration. */
export async function bucketCorsRules(layer: ObjectLayer, bucket: string): Promise<CorsRule[] | undefined> {
  const stored = await layer.getBucketConfig(bucket, 'cors');
  return stored === undefined ? undefined : loadCorsRules(stored);
}

/**
 * PutBucketCors (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketCors.html): replaces the
 * configuration; Content-MD5 (or an x-amz-checksum header) is required, as AWS requires it; 200.
 */
export async function putBucketCors(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  if (!hasIntegrityHeader(ctx)) {
    throw new S3Error('InvalidRequest', { message: 'Missing required header for this request: Content-MD5 or x-amz-checksum-*' });
  }
  const rules = decodeCorsConfiguration(await readXmlBody(ctx));
  validateCorsRules(rules);
  await ctx.layer.putBucketConfig(bucket, 'cors', storeCorsRules(rules));
  return sendEmpty(ctx, 200);
}

/** GetBucketCors (https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketCors.html): NoSuchCORSConfiguration when none. */
export async function getBucketCors(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  const rules = await bucketCorsRules(ctx.layer, bucket);
  if (rules === undefined) throw new S3Error('NoSuchCORSConfiguration', { resource: `/${bucket}`, extra: { BucketName: bucket } });
  return sendXml(ctx, 200, encodeCorsConfiguration(rules));
}

/** DeleteBucketCors (https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteBucketCors.html): 204, even when none. */
export async function deleteBucketCors(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  await ctx.layer.putBucketConfig(bucket, 'cors', undefined);
  return sendEmpty(ctx, 204);
}

/**
 * OPTIONS object (https://docs.aws.amazon.com/AmazonS3/latest/API/API_OPTIONSobject.html), answered without
 * authentication: Origin and Access-Control-Request-Method are required (400), the first matching rule
 * answers 200 with its Access-Control-* headers, no configuration or no matching rule is 403.
 */
export async function preflightCors(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  const origin = header(ctx, 'origin');
  if (origin === undefined) throw new S3Error('BadRequest', { message: 'Insufficient information. Origin request header needed.' });
  const method = header(ctx, 'access-control-request-method');
  if (method === undefined) throw new S3Error('BadRequest', { message: 'Invalid Access-Control-Request-Method: null' });
  const requested = parseRequestHeaders(header(ctx, 'access-control-request-headers'));
  const rules = await bucketCorsRules(ctx.layer, bucket);
  if (rules === undefined) throw new S3Error('AccessForbidden', { message: 'CORSResponse: CORS is not enabled for this bucket.' });
  const rule = matchPreflight(rules, { origin, method, headers: requested });
  if (rule === undefined) throw new S3Error('AccessForbidden');
  ctx.reply.headers(corsResponseHeaders(rule, origin, requested)).header('vary', CORS_VARY);
  return sendEmpty(ctx, 200);
}

/**
 * CORS headers for an actual request carrying `Origin` (https://docs.aws.amazon.com/AmazonS3/latest/userguide/cors.html):
 * set on `reply` when a rule allows the origin and method. A missing bucket or configuration adds nothing;
 * the request itself then fails or succeeds on its own terms.
 */
export async function applyActualCors(layer: ObjectLayer, reply: FastifyReply, bucket: string, origin: string, method: string): Promise<void> {
  let rules: CorsRule[] | undefined;
  try {
    rules = await bucketCorsRules(layer, bucket);
  } catch {
    return;
  }
  const rule = rules === undefined ? undefined : matchActual(rules, origin, method);
  if (rule === undefined) return;
  reply.headers(corsResponseHeaders(rule, origin)).header('vary', CORS_VARY);
}
