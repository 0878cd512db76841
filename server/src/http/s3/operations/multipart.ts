import { pipeline, type Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { checksumAlgorithmFromHeaderName, parseChecksumAlgorithm, type ChecksumAlgorithm } from '../../../common/index.js';
import type { PartInfo } from '../../../storage/index.js';
import { header, sendEmpty, sendXml, type S3Context } from '../context.js';
import { openBody, readXmlBody } from '../body.js';
import { parseContentMd5, parseMetadata } from '../headers/metadata.js';
import { parseTaggingHeader } from '../headers/tagging.js';
import type { ChecksumValues } from '../headers/checksum-headers.js';
import { checksumTap } from '../checksum-tap.js';
import { parseIntegerMarker, parseMaxEntries, MAX_LIST_ENTRIES } from '../list-params.js';
import { decodeCompleteMultipartUpload } from '../xml/requests.js';
import { encodeCompleteMultipartUpload, encodeInitiateMultipartUpload, encodeListParts, quoteEtag } from '../xml/responses.js';
import { S3Error } from '../s3-error.js';
import { payloadChecksums, rejectUnsupportedWriteHeaders, storedChecksumHeaders, writtenVersionHeader } from './object-put.js';
import { bucketVersioning } from './versioning.js';
import { checkCompleteAssertions, defaultChecksumType, objectChecksum, parseChecksumDeclaration } from './multipart-checksum.js';
import { resolveSseWrite } from './bucket-encryption.js';
import { encryptBody, encryptionHeaders, openUploadKey, plainPartSize, sealNewObject, storedEncryption } from '../sse/object-crypto.js';
import { bucketObjectLock, defaultRetention, explicitLock } from './object-lock.js';

const MULTIPART_UNSUPPORTED: ReadonlyArray<[string, string]> = [
  ['x-amz-website-redirect-location', 'Website redirects'],
];

/**
 * CreateMultipartUpload (https://docs.aws.amazon.com/AmazonS3/latest/API/API_CreateMultipartUpload.html).
 * x-amz-checksum-algorithm declares the per-part checksum and x-amz-checksum-type how the object's checksum
 * is built from them (multipart-checksum.ts). x-amz-tagging tags are kept with the upload and given to the
 * completed object.
 */
export async function createMultipartUpload(ctx: S3Context, bucket: string, key: string): Promise<FastifyReply> {
  rejectUnsupportedWriteHeaders(ctx, MULTIPART_UNSUPPORTED);
  const metadata = parseMetadata(ctx.headers);
  const tags = parseTaggingHeader(header(ctx, 'x-amz-tagging'));
  const { algorithm: checksumAlgorithm, type: checksumType } = parseChecksumDeclaration(ctx);
  const lock = explicitLock(ctx, ctx.now());
  if (lock !== undefined && (await bucketObjectLock(ctx.layer, bucket)) === undefined) {
    throw new S3Error('InvalidRequest', { message: 'Bucket is missing Object Lock Configuration' });
  }
  // The object key is sealed once for the upload; every part is encrypted under its own key derived from it.
  const enc = sealNewObject(ctx, await resolveSseWrite(ctx, bucket), bucket, key);
  const uploadId = await ctx.layer.createMultipartUpload(bucket, key, {
    metadata,
    ...(lock !== undefined ? { lock } : {}),
    ...(checksumAlgorithm !== undefined ? { checksumAlgorithm } : {}),
    ...(checksumType !== undefined ? { checksumType } : {}),
    ...(tags.length > 0 ? { tags } : {}),
    ...(enc !== undefined ? { internal: enc.internal } : {}),
  });
  ctx.reply.headers(encryptionHeaders(enc?.kind, enc?.customer));
  if (checksumAlgorithm !== undefined && checksumType !== undefined) {
    ctx.reply.header('x-amz-checksum-algorithm', checksumAlgorithm).header('x-amz-checksum-type', checksumType);
  }
  return sendXml(ctx, 200, encodeInitiateMultipartUpload(bucket, key, uploadId));
}

/**
 * UploadPart (https://docs.aws.amazon.com/AmazonS3/latest/API/API_UploadPart.html). The upload is looked
 * up first (NoSuchUpload before any byte is read). When the upload declared a checksum algorithm, a part
 * checksum of another algorithm is refused and a missing one is computed here, so completion can always
 * build the composite checksum.
 */
export async function uploadPart(ctx: S3Context, bucket: string, key: string, uploadId: string, partNumber: number): Promise<FastifyReply> {
  rejectUnsupportedWriteHeaders(ctx, MULTIPART_UNSUPPORTED);
  const md5 = parseContentMd5(ctx.headers);
  const upload = await ctx.layer.getMultipartInfo(bucket, key, uploadId);
  const declared = upload.checksumAlgorithm;
  const decoded = openBody(ctx);
  let body: Readable = decoded.stream;
  let checksums = (): ChecksumValues => payloadChecksums(decoded);
  const sent = sentChecksumAlgorithm(ctx);
  if (declared !== undefined && sent !== undefined && sent !== declared) {
    throw new S3Error('InvalidRequest', {
      message: `Checksum Type mismatch occurred, expected checksum Type: ${declared.toLowerCase()}, actual checksum Type: ${sent.toLowerCase()}`,
    });
  }
  if (declared !== undefined && sent === undefined) {
    const tap = checksumTap([declared]);
    // pipeline so a body failure (signature, size) errors what the engine reads, and vice versa.
    pipeline(decoded.stream, tap.stream, () => undefined);
    body = tap.stream;
    checksums = tap.values;
  }
  const enc = openUploadKey(ctx, bucket, key, upload.internal);
  let size = decoded.decodedLength;
  if (enc !== undefined) {
    const encrypted = encryptBody(enc, body, decoded.decodedLength, { partNumber, ...(md5 !== undefined ? { md5 } : {}), recordPlainEtag: false });
    body = encrypted.stream;
    size = encrypted.size;
  }
  const part: PartInfo = await ctx.layer.putObjectPart(bucket, key, uploadId, partNumber, body, {
    size,
    ...(md5 !== undefined && enc === undefined ? { md5 } : {}),
    checksums,
  });
  ctx.reply.headers(encryptionHeaders(enc?.kind, enc?.customer));
  ctx.reply.header('etag', quoteEtag(part.etag));
  ctx.reply.headers(storedChecksumHeaders(part.checksums));
  return ctx.reply.code(200).send();
}

/** The checksum algorithm the part request carries (header value, trailer or SDK declaration), if any. */
function sentChecksumAlgorithm(ctx: S3Context): ChecksumAlgorithm | undefined {
  for (const name of Object.keys(ctx.headers)) {
    if (name.startsWith('x-amz-checksum-') && name !== 'x-amz-checksum-type' && name !== 'x-amz-checksum-algorithm') {
      const alg = parseChecksumAlgorithm(name.slice('x-amz-checksum-'.length));
      if (alg !== undefined) return alg;
    }
  }
  const trailer = header(ctx, 'x-amz-trailer');
  if (trailer?.toLowerCase().startsWith('x-amz-checksum-') === true) return parseChecksumAlgorithm(trailer.slice('x-amz-checksum-'.length));
  const sdk = header(ctx, 'x-amz-sdk-checksum-algorithm');
  return sdk === undefined ? undefined : parseChecksumAlgorithm(sdk);
}

async function allParts(ctx: S3Context, bucket: string, key: string, uploadId: string): Promise<PartInfo[]> {
  const parts: PartInfo[] = [];
  let marker = 0;
  for (;;) {
    const page = await ctx.layer.listParts(bucket, key, uploadId, { partNumberMarker: marker, maxParts: MAX_LIST_ENTRIES });
    parts.push(...page.parts);
    if (!page.isTruncated) return parts;
    marker = page.nextPartNumberMarker;
  }
}

/**
 * CompleteMultipartUpload (https://docs.aws.amazon.com/AmazonS3/latest/API/API_CompleteMultipartUpload.html).
 * Part order, ETags and sizes are checked by the engine (InvalidPartOrder / InvalidPart / EntityTooSmall).
 * With a declared checksum algorithm, per-part checksums the client lists must match the stored ones and
 * the object's checksum (COMPOSITE or FULL_OBJECT) is built from them and stored with the object.
 */
export async function completeMultipartUpload(ctx: S3Context, bucket: string, key: string, uploadId: string): Promise<FastifyReply> {
  // Here x-amz-checksum-<alg> asserts the object's checksum, not the XML body's: the body is read without it.
  const bodyHeaders = Object.fromEntries(Object.entries(ctx.headers).filter(([name]) => checksumAlgorithmFromHeaderName(name) === undefined));
  const requested = decodeCompleteMultipartUpload(await readXmlBody({ ...ctx, headers: bodyHeaders }));
  // Order is a property of the request alone: checked here so the answer never depends on which part
  // the engine happens to inspect first.
  for (let i = 1; i < requested.length; i++) {
    if (requested[i]!.partNumber <= requested[i - 1]!.partNumber) throw new S3Error('InvalidPartOrder');
  }
  const upload = await ctx.layer.getMultipartInfo(bucket, key, uploadId);
  const alg = upload.checksumAlgorithm;
  // SSE-C: the customer key is checked when given; AWS requires it only for uploads with a checksum algorithm
  // (https://docs.aws.amazon.com/AmazonS3/latest/API/API_CompleteMultipartUpload.html), so transfer managers that
  // do not resend it on completion work.
  const keyGiven = header(ctx, 'x-amz-server-side-encryption-customer-algorithm') !== undefined
    || header(ctx, 'x-amz-server-side-encryption-customer-key') !== undefined;
  const enc = keyGiven || alg !== undefined ? openUploadKey(ctx, bucket, key, upload.internal) : undefined;
  const kind = storedEncryption({ internal: upload.internal });
  const declared = { ...(alg !== undefined ? { algorithm: alg, type: upload.checksumType ?? defaultChecksumType(alg) } : {}) };
  const stored = new Map((await allParts(ctx, bucket, key, uploadId)).map((p) => [p.partNumber, p]));
  let composite: string | undefined;
  if (alg !== undefined) {
    const values = requested.map((r) => {
      const part = stored.get(r.partNumber);
      const value = part?.checksums[alg];
      const claimed = r.checksums[alg];
      if (part === undefined || value === undefined || (claimed !== undefined && claimed !== value)) {
        throw new S3Error('InvalidPart', { extra: { PartNumber: String(r.partNumber) } });
      }
      return { checksum: value, size: plainPartSize(upload.internal, part.size) };
    });
    // The engine validates order and ETags; combining over an invalid list is harmless because it fails.
    composite = objectChecksum(alg, declared.type ?? defaultChecksumType(alg), values);
  }
  const plainTotal = requested.reduce((sum, r) => sum + plainPartSize(upload.internal, stored.get(r.partNumber)?.size ?? 0), 0);
  checkCompleteAssertions(ctx, declared, composite, plainTotal);
  const versioning = await bucketVersioning(ctx.layer, bucket);
  const lockConfig = await bucketObjectLock(ctx.layer, bucket, versioning ?? null);
  // The bucket's default retention counts from completion, when the object is created.
  const retention = lockConfig === undefined ? undefined : defaultRetention(lockConfig, ctx.now());
  const info = await ctx.layer.completeMultipartUpload(
    bucket, key, uploadId, requested.map((p) => ({ partNumber: p.partNumber, etag: p.etag })), {
      ...(versioning !== undefined ? { versioning } : {}),
      ...(alg !== undefined && composite !== undefined ? { checksums: { [alg]: composite } } : {}),
      ...(retention !== undefined ? { defaultLock: { retention } } : {}),
    },
  );
  writtenVersionHeader(ctx, versioning, info.versionId);
  const checksums: ChecksumValues = { ...info.checksums };
  if (alg !== undefined && checksums[alg] === undefined && composite !== undefined) checksums[alg] = composite;
  const host = header(ctx, 'host') ?? 'localhost';
  const keyPath = key.split('/').map(encodeURIComponent).join('/');
  const location = ctx.virtualHosted ? `http://${host}/${keyPath}` : `http://${host}/${encodeURIComponent(bucket)}/${keyPath}`;
  ctx.reply.headers(storedChecksumHeaders(checksums));
  ctx.reply.headers(encryptionHeaders(kind, enc?.customer));
  if (declared.type !== undefined) ctx.reply.header('x-amz-checksum-type', declared.type);
  return sendXml(ctx, 200, encodeCompleteMultipartUpload({
    location, bucket, key, etag: info.etag, checksums, ...(declared.type !== undefined ? { checksumType: declared.type } : {}),
  }));
}

/** AbortMultipartUpload: 204 (https://docs.aws.amazon.com/AmazonS3/latest/API/API_AbortMultipartUpload.html). */
export async function abortMultipartUpload(ctx: S3Context, bucket: string, key: string, uploadId: string): Promise<FastifyReply> {
  await ctx.layer.abortMultipartUpload(bucket, key, uploadId);
  return sendEmpty(ctx, 204);
}

/** ListParts (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListParts.html). */
export async function listParts(ctx: S3Context, bucket: string, key: string, uploadId: string): Promise<FastifyReply> {
  const maxParts = parseMaxEntries(ctx.query['max-parts'], 'max-parts');
  const partNumberMarker = parseIntegerMarker(ctx.query['part-number-marker'], 'part-number-marker');
  const result = await ctx.layer.listParts(bucket, key, uploadId, { partNumberMarker, maxParts });
  const alg = result.upload.checksumAlgorithm;
  return sendXml(ctx, 200, encodeListParts({
    bucket, key, uploadId, owner: ctx.owner, partNumberMarker, maxParts,
    nextPartNumberMarker: result.nextPartNumberMarker,
    isTruncated: result.isTruncated,
    ...(alg !== undefined ? { checksumAlgorithm: alg } : {}),
    parts: result.parts.map((p) => ({
      partNumber: p.partNumber, lastModified: p.lastModified, etag: p.etag, size: plainPartSize(result.upload.internal, p.size), checksums: p.checksums,
    })),
  }));
}
