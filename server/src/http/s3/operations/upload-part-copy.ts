import { pipeline } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { header, sendXml, type S3Context } from '../context.js';
import { resolveCopySourceRange } from '../headers/range.js';
import { checksumTap } from '../checksum-tap.js';
import { encodeCopyPartResult } from '../xml/responses.js';
import { MAX_PUT_BYTES } from '../body.js';
import { S3Error } from '../s3-error.js';
import type { CopySource } from '../router.js';
import { checkCopySourcePreconditions, openCopySource } from './object-copy.js';
import { decryptingObject, encryptBody, encryptionHeaders, openUploadKey } from '../sse/object-crypto.js';

/**
 * UploadPartCopy (https://docs.aws.amazon.com/AmazonS3/latest/API/API_UploadPartCopy.html): a part whose
 * bytes are the source object or `x-amz-copy-source-range` of it. The upload is looked up first
 * (NoSuchUpload), then the source (NoSuchKey / NoSuchBucket), its x-amz-copy-source-if-* conditions (412)
 * and the range (InvalidArgument). A part copies at most 5 GiB. When the upload declared a checksum
 * algorithm, the part's checksum is computed while copying so completion can build the composite.
 */
export async function uploadPartCopy(
  ctx: S3Context, bucket: string, key: string, uploadId: string, partNumber: number, source: CopySource,
): Promise<FastifyReply> {
  const upload = await ctx.layer.getMultipartInfo(bucket, key, uploadId);
  const enc = openUploadKey(ctx, bucket, key, upload.internal);
  // An encrypted source is decrypted (SSE-C: with the x-amz-copy-source-server-side-encryption-customer-* key).
  const src = decryptingObject(ctx, await openCopySource(ctx, source), 'x-amz-copy-source-server-side-encryption-customer').object;
  checkCopySourcePreconditions(ctx, src.info);
  const range = resolveCopySourceRange(header(ctx, 'x-amz-copy-source-range'), src.info.size);
  const size = range === undefined ? src.info.size : range.end - range.start + 1;
  if (size > MAX_PUT_BYTES) {
    throw new S3Error('InvalidRequest', { message: `The specified copy source is larger than the maximum allowable size for a copy source: ${MAX_PUT_BYTES}` });
  }
  const tap = checksumTap(upload.checksumAlgorithm === undefined ? [] : [upload.checksumAlgorithm]);
  // pipeline so a source failure errors the part body and an engine failure stops the source read.
  pipeline(src.read(range), tap.stream, () => undefined);
  const body = enc === undefined ? { stream: tap.stream, size } : encryptBody(enc, tap.stream, size, { partNumber, recordPlainEtag: false });
  const part = await ctx.layer.putObjectPart(bucket, key, uploadId, partNumber, body.stream, { size: body.size, checksums: tap.values });
  ctx.reply.headers(encryptionHeaders(enc?.kind, enc?.customer));
  ctx.reply.header('x-amz-copy-source-version-id', src.info.versionId ?? 'null');
  return sendXml(ctx, 200, encodeCopyPartResult(part.etag, part.lastModified, part.checksums));
}
