import { Transform, pipeline, type TransformCallback } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { verifyPostPolicySignature } from '../../../auth/index.js';
import type { ObjectTag } from '../../../storage/index.js';
import { escapeXml } from '../../shared/index.js';
import { header, type S3Context } from '../context.js';
import { MAX_PUT_BYTES } from '../body.js';
import { parseMetadata } from '../headers/metadata.js';
import { validateTags } from '../headers/tagging.js';
import { checkBucketName, checkObjectKey } from '../names.js';
import { FormError, formBoundary, readForm, type ParsedForm } from '../post/form-parser.js';
import { checkPostPolicy, decodePostPolicy } from '../post/post-policy.js';
import { decodeTagging } from '../xml/requests.js';
import { quoteEtag } from '../xml/responses.js';
import { S3Error } from '../s3-error.js';
import { bucketVersioning } from './versioning.js';
import { lockForWrite } from './object-lock.js';
import { writtenVersionHeader } from './object-put.js';
import { resolveSseWrite } from './bucket-encryption.js';
import { encryptBody, encryptionHeaders, plainView, sealNewObject } from '../sse/object-crypto.js';

/**
 * POST Object, browser-based uploads (https://docs.aws.amazon.com/AmazonS3/latest/API/RESTObjectPOST.html,
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/HTTPPOSTForms.html): a multipart/form-data body whose
 * fields (key, policy, x-amz-algorithm/-credential/-date/-signature, Content-Type, x-amz-meta-*, tagging,
 * success_action_status / success_action_redirect) precede the file. A signed form is allowed as its signer;
 * a form without policy is an unsigned request (allowed only by a bucket policy).
 */

/** Form fields that become object metadata as their header namesakes do on PUT. */
const METADATA_FIELDS = /^(content-type|content-encoding|content-disposition|content-language|cache-control|expires|x-amz-meta-.+)$/;

function formError(err: unknown): unknown {
  if (!(err instanceof FormError)) return err;
  switch (err.kind) {
    case 'no-file': return new S3Error('IncorrectNumberOfFilesInPostRequest', { cause: err });
    case 'too-large': return new S3Error('MaxPostPreDataLengthExceededError', { cause: err });
    default: return new S3Error('MalformedPOSTRequest', { cause: err });
  }
}

/** Counts the file's bytes: over `max` → EntityTooLarge (nothing is stored), under `min` at the end → EntityTooSmall. */
function lengthLimiter(min: number, max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) {
      seen += chunk.length;
      if (seen > max) {
        cb(new S3Error('EntityTooLarge', {
          message: 'Your proposed upload exceeds the maximum allowed size', extra: { MaxSizeAllowed: String(max) },
        }));
        return;
      }
      cb(null, chunk);
    },
    flush(cb: TransformCallback) {
      if (seen < min) {
        cb(new S3Error('EntityTooSmall', {
          message: 'Your proposed upload is smaller than the minimum allowed size', extra: { MinSizeAllowed: String(min), ProposedSize: String(seen) },
        }));
        return;
      }
      cb();
    },
  });
}

/** The signer of the form, or undefined for a form without policy (an unsigned upload). */
async function authenticate(ctx: S3Context, bucket: string, fields: ReadonlyMap<string, string>): Promise<{ accessKey?: string; range?: { min: number; max: number } }> {
  const policy = fields.get('policy');
  if (policy === undefined || policy === '') {
    if (fields.has('x-amz-signature') || fields.has('x-amz-credential')) {
      throw new S3Error('InvalidArgument', { message: 'Bucket POST must contain a field named \'policy\'.  If it is specified, please check the order of the fields.', extra: { ArgumentName: 'policy' } });
    }
    return {};
  }
  if (ctx.lookupSecret === undefined) throw new S3Error('AccessDenied');
  const signer = await verifyPostPolicySignature({
    policy,
    algorithm: fields.get('x-amz-algorithm'),
    credential: fields.get('x-amz-credential'),
    date: fields.get('x-amz-date'),
    signature: fields.get('x-amz-signature'),
  }, ctx.lookupSecret);
  const range = checkPostPolicy(decodePostPolicy(policy), fields, bucket, ctx.now());
  return range === undefined ? { accessKey: signer.accessKey } : { accessKey: signer.accessKey, range };
}

function objectTags(fields: ReadonlyMap<string, string>): ObjectTag[] {
  const raw = fields.get('tagging');
  if (raw === undefined) return [];
  const tags = decodeTagging(Buffer.from(raw, 'utf8'));
  validateTags(tags, 'object');
  return tags;
}

/** The key with `${filename}` replaced by the uploaded file's name (https://docs.aws.amazon.com/AmazonS3/latest/API/RESTObjectPOST.html). */
function objectKey(form: ParsedForm): string {
  const key = form.fields.get('key');
  if (key === undefined) {
    throw new S3Error('InvalidArgument', {
      message: 'Bucket POST must contain a field named \'key\'.  If it is specified, please check the order of the fields.', extra: { ArgumentName: 'key' },
    });
  }
  const name = form.file.filename.replace(/^.*[\\/]/, '');
  return key.split('${filename}').join(name);
}

function redirectTarget(raw: string | undefined, bucket: string, key: string, etag: string): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.searchParams.append('bucket', bucket);
  url.searchParams.append('key', key);
  url.searchParams.append('etag', quoteEtag(etag));
  return url.toString();
}

/** POST Object handler. */
export async function postObject(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  const boundary = formBoundary(header(ctx, 'content-type'));
  if (boundary === undefined) {
    throw new S3Error('PreconditionFailed', { message: 'Bucket POST must be of the enclosure-type multipart/form-data', extra: { Condition: 'Bucket POST must be of the enclosure-type multipart/form-data' } });
  }
  checkBucketName(bucket, false);
  let form: ParsedForm;
  try {
    form = await readForm(ctx.request.raw, boundary);
  } catch (err) {
    throw formError(err);
  }
  // The key (after ${filename}) is what the policy's key condition sees, as on AWS.
  const key = objectKey(form);
  checkObjectKey(key);
  const fields = new Map(form.fields);
  fields.set('key', key);
  const { accessKey, range } = await authenticate(ctx, bucket, fields);
  if (ctx.authorizeAs === undefined) throw new S3Error('AccessDenied');
  await ctx.authorizeAs(accessKey, { op: 'PutObject', bucket, key });

  const metadataFields: Record<string, string> = {};
  for (const [name, value] of fields) if (METADATA_FIELDS.test(name)) metadataFields[name] = value;
  const metadata = parseMetadata(metadataFields);
  const tags = objectTags(fields);
  const versioning = await bucketVersioning(ctx.layer, bucket);
  // Fields stand for headers (as for encryption below): the bucket's default retention applies to POST uploads
  // too, and x-amz-object-lock-* fields set the lock as the headers of a PUT would.
  const formCtx = { ...ctx, headers: Object.fromEntries(fields) };
  // Setting a lock needs its own permissions, as on a PUT (the form's signer, or the bucket policy when unsigned).
  if (fields.has('x-amz-object-lock-mode') || fields.has('x-amz-object-lock-retain-until-date')) {
    await ctx.authorizeAs(accessKey, { op: 'PutObjectRetention', bucket, key });
  }
  if (fields.has('x-amz-object-lock-legal-hold')) await ctx.authorizeAs(accessKey, { op: 'PutObjectLegalHold', bucket, key });
  const lock = await lockForWrite(formCtx, bucket, key, { checkIntegrity: false, versioning });
  const limiter = lengthLimiter(range?.min ?? 0, Math.min(range?.max ?? MAX_PUT_BYTES, MAX_PUT_BYTES));
  pipeline(form.file.stream, limiter, () => undefined);
  // x-amz-server-side-encryption (and SSE-C) may be form fields; otherwise the bucket default applies.
  const enc = sealNewObject(ctx, await resolveSseWrite(formCtx, bucket), bucket, key);
  const body = enc === undefined ? limiter : encryptBody(enc, limiter, -1, { partNumber: 1, recordPlainEtag: enc.kind === 'SSE-S3' }).stream;
  let info;
  try {
    info = await ctx.layer.putObject(bucket, key, body, {
      size: -1,
      metadata,
      ...(enc !== undefined ? { internal: enc.internal } : {}),
      ...(tags.length > 0 ? { tags } : {}),
      ...(versioning !== undefined ? { versioning } : {}),
      ...(lock !== undefined ? { lock } : {}),
    });
  } catch (err) {
    throw formError(err);
  }
  const host = header(ctx, 'host') ?? 'localhost';
  const keyPath = key.split('/').map(encodeURIComponent).join('/');
  const location = ctx.virtualHosted ? `http://${host}/${keyPath}` : `http://${host}/${encodeURIComponent(bucket)}/${keyPath}`;
  const etag = plainView(info).etag;
  ctx.reply.header('etag', quoteEtag(etag)).header('location', location);
  ctx.reply.headers(encryptionHeaders(enc?.kind, enc?.customer));
  writtenVersionHeader(ctx, versioning, info.versionId);
  const redirect = redirectTarget(fields.get('success_action_redirect') ?? fields.get('redirect'), bucket, key, etag);
  if (redirect !== undefined) return ctx.reply.code(303).header('location', redirect).send();
  const status = fields.get('success_action_status');
  if (status === '200') return ctx.reply.code(200).send();
  if (status === '201') {
    const xml = '<?xml version="1.0" encoding="UTF-8"?>\n<PostResponse>'
      + `<Location>${escapeXml(location)}</Location><Bucket>${escapeXml(bucket)}</Bucket>`
      + `<Key>${escapeXml(key)}</Key><ETag>${escapeXml(quoteEtag(etag))}</ETag></PostResponse>`;
    return ctx.reply.code(201).header('content-type', 'application/xml').send(xml);
  }
  // Any other value (or none) is 204 No Content, as AWS answers.
  return ctx.reply.code(204).send();
}
