import { pipeline } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { DeleteMarkerReadError, type ObjectInfo, type OpenObject } from '../../../storage/index.js';
import type { CopySource } from '../router.js';
import { bucketVersioning } from './versioning.js';
import { header, sendXml, type S3Context } from '../context.js';
import { evaluatePreconditions } from '../headers/conditionals.js';
import { parseMetadata } from '../headers/metadata.js';
import { parseTaggingHeader } from '../headers/tagging.js';
import { CHECKSUM_ALGORITHMS, parseChecksumAlgorithm, type ChecksumAlgorithm } from '../../../common/index.js';
import { checksumTap } from '../checksum-tap.js';
import { encodeCopyObjectResult } from '../xml/responses.js';
import { MAX_PUT_BYTES } from '../body.js';
import { S3Error } from '../s3-error.js';
import { rejectUnsupportedWriteHeaders, writtenVersionHeader } from './object-put.js';
import { lockForWrite } from './object-lock.js';

const COPY_UNSUPPORTED: ReadonlyArray<[string, string]> = [
  ['x-amz-server-side-encryption', 'Server-side encryption'],
  ['x-amz-server-side-encryption-customer-algorithm', 'Server-side encryption with customer keys'],
  ['x-amz-copy-source-server-side-encryption-customer-algorithm', 'Server-side encryption with customer keys'],
  ['x-amz-website-redirect-location', 'Website redirects'],
];

function directive(ctx: S3Context, name: 'x-amz-metadata-directive' | 'x-amz-tagging-directive'): 'COPY' | 'REPLACE' {
  const raw = header(ctx, name);
  if (raw === undefined) return 'COPY';
  const v = raw.trim().toUpperCase();
  if (v === 'COPY' || v === 'REPLACE') return v;
  const what = name === 'x-amz-metadata-directive' ? 'metadata' : 'tagging';
  throw new S3Error('InvalidArgument', { message: `Unknown ${what} directive.`, extra: { ArgumentName: name, ArgumentValue: raw } });
}

/** Checksums to compute for the copy: the requested algorithm, else the full-object ones the source had. */
function copyChecksumAlgorithms(ctx: S3Context, sourceChecksums: Partial<Record<ChecksumAlgorithm, string>>): ChecksumAlgorithm[] {
  const requested = header(ctx, 'x-amz-checksum-algorithm');
  if (requested !== undefined) {
    const alg = parseChecksumAlgorithm(requested);
    if (alg === undefined) throw new S3Error('InvalidArgument', { message: 'Invalid checksum algorithm.', extra: { ArgumentName: 'x-amz-checksum-algorithm' } });
    return [alg];
  }
  // Composite (`-N`) checksums are per-part values and cannot be recomputed over a single-part copy.
  return CHECKSUM_ALGORITHMS.filter((alg) => sourceChecksums[alg] !== undefined && !/-\d+$/.test(sourceChecksums[alg] ?? ''));
}

/**
 * Opens the copy source: the version x-amz-copy-source names, or the newest. A source version that is a delete
 * marker cannot be copied: AWS answers 400 InvalidRequest there (not the 405 of a GET).
 */
export async function openCopySource(ctx: S3Context, source: CopySource): Promise<OpenObject> {
  try {
    return await ctx.layer.openObject(source.bucket, source.key, source.versionId === undefined ? {} : { versionId: source.versionId });
  } catch (err) {
    if (err instanceof DeleteMarkerReadError) {
      throw new S3Error('InvalidRequest', { message: 'The source of a copy request may not specifically refer to a delete marker by version id.', cause: err });
    }
    throw err;
  }
}

/**
 * x-amz-copy-source-if-match / -if-none-match / -if-modified-since / -if-unmodified-since against the
 * source (CopyObject, UploadPartCopy): any failure is 412 PreconditionFailed, as AWS answers for copies.
 */
export function checkCopySourcePreconditions(ctx: S3Context, info: Pick<ObjectInfo, 'etag' | 'lastModified'>): void {
  const condition = evaluatePreconditions(
    {
      ifMatch: header(ctx, 'x-amz-copy-source-if-match'),
      ifNoneMatch: header(ctx, 'x-amz-copy-source-if-none-match'),
      ifModifiedSince: header(ctx, 'x-amz-copy-source-if-modified-since'),
      ifUnmodifiedSince: header(ctx, 'x-amz-copy-source-if-unmodified-since'),
    },
    info.etag,
    info.lastModified,
  );
  if (condition !== 'proceed') throw new S3Error('PreconditionFailed', { extra: { Condition: 'x-amz-copy-source-if-*' } });
}

/**
 * CopyObject (https://docs.aws.amazon.com/AmazonS3/latest/API/API_CopyObject.html): x-amz-copy-source-if-*
 * preconditions (every failure is 412), x-amz-metadata-directive and x-amz-tagging-directive COPY (default)
 * or REPLACE, and copying an
 * object onto itself only with REPLACE. The data is streamed from the source into a new object.
 */
export async function copyObject(ctx: S3Context, bucket: string, key: string, source: CopySource): Promise<FastifyReply> {
  rejectUnsupportedWriteHeaders(ctx, COPY_UNSUPPORTED);
  const metadataMode = directive(ctx, 'x-amz-metadata-directive');
  // x-amz-tagging-directive: COPY (default) keeps the source's tags, REPLACE takes x-amz-tagging (maybe none).
  const taggingMode = directive(ctx, 'x-amz-tagging-directive');
  const replacedTags = taggingMode === 'REPLACE' ? parseTaggingHeader(header(ctx, 'x-amz-tagging')) : undefined;
  if (source.bucket === bucket && source.key === key && source.versionId === undefined && metadataMode === 'COPY') {
    throw new S3Error('InvalidRequest', {
      message: 'This copy request is illegal because it is trying to copy an object to itself without changing the object\'s metadata, storage class, website redirect location or encryption attributes.',
    });
  }
  const metadata = metadataMode === 'REPLACE' ? parseMetadata(ctx.headers) : undefined;
  const src = await openCopySource(ctx, source);
  checkCopySourcePreconditions(ctx, src.info);
  if (src.info.size > MAX_PUT_BYTES) {
    throw new S3Error('InvalidRequest', { message: `The specified copy source is larger than the maximum allowable size for a copy source: ${MAX_PUT_BYTES}` });
  }
  const tap = checksumTap(copyChecksumAlgorithms(ctx, src.info.checksums));
  // pipeline (not pipe) so a source failure (e.g. read quorum lost mid-copy) errors the body the engine
  // consumes, and an engine failure stops the source read.
  const versioning = await bucketVersioning(ctx.layer, bucket);
  // The copy is a new object: the source's lock is not copied, the request's headers or the bucket default apply.
  const lock = await lockForWrite(ctx, bucket, key, { checkIntegrity: false, versioning });
  const body = tap.stream;
  pipeline(src.read(), body, () => undefined);
  const info = await ctx.layer.putObject(bucket, key, body, {
    size: src.info.size,
    metadata: metadata ?? { system: { ...src.info.system }, user: { ...src.info.user } },
    checksums: tap.values,
    tags: replacedTags ?? src.info.tags ?? [],
    ...(versioning !== undefined ? { versioning } : {}),
    ...(lock !== undefined ? { lock } : {}),
  });
  ctx.reply.header('x-amz-copy-source-version-id', src.info.versionId ?? 'null');
  writtenVersionHeader(ctx, versioning, info.versionId);
  return sendXml(ctx, 200, encodeCopyObjectResult(info.etag, info.lastModified, info.checksums));
}
