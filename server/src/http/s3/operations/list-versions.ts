import { plainView } from '../sse/object-crypto.js';
import type { FastifyReply } from 'fastify';
import { CHECKSUM_ALGORITHMS } from '../../../common/index.js';
import { sendXml, type S3Context } from '../context.js';
import { listEncoder, parseMaxEntries } from '../list-params.js';
import { parseVersionId } from '../router.js';
import { S3Error } from '../s3-error.js';
import { encodeListObjectVersions, type ListedVersionView } from '../xml/responses.js';

/**
 * ListObjectVersions (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectVersions.html): prefix,
 * delimiter, key-marker / version-id-marker paging (a version-id-marker needs a key-marker: InvalidArgument),
 * max-keys, encoding-type. Buckets that were never versioned list their objects as "null" versions.
 */
export async function listObjectVersions(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  const prefix = ctx.query['prefix'] ?? '';
  const delimiter = ctx.query['delimiter'] ?? '';
  const keyMarker = ctx.query['key-marker'] ?? '';
  const rawVersionMarker = ctx.query['version-id-marker'];
  const maxKeys = parseMaxEntries(ctx.query['max-keys'], 'max-keys');
  const { encodingType, encode } = listEncoder(ctx.query['encoding-type']);
  let versionIdMarker = '';
  if (rawVersionMarker !== undefined && rawVersionMarker !== '') {
    if (keyMarker === '') {
      throw new S3Error('InvalidArgument', {
        message: 'A version-id marker cannot be specified without a key marker.',
        extra: { ArgumentName: 'version-id-marker', ArgumentValue: rawVersionMarker },
      });
    }
    versionIdMarker = parseVersionId(rawVersionMarker, 'version-id-marker');
  }
  const result = maxKeys === 0
    ? { versions: [], commonPrefixes: [], isTruncated: false, nextKeyMarker: undefined, nextVersionIdMarker: undefined }
    : await ctx.layer.listObjectVersions(bucket, { prefix, delimiter, keyMarker, versionIdMarker, maxKeys });
  if (maxKeys === 0) await ctx.layer.getBucketInfo(bucket);
  const versions: ListedVersionView[] = result.versions.map((v) => {
    const base = { key: v.key, versionId: v.versionId, isLatest: v.isLatest, lastModified: v.lastModified };
    if (v.info === undefined) return base;
    const checksums = v.info.checksums;
    const alg = CHECKSUM_ALGORITHMS.find((a) => checksums[a] !== undefined);
    const view = plainView(v.info);
    return { ...base, object: { etag: view.etag, size: view.size, ...(alg !== undefined ? { checksumAlgorithm: alg } : {}) } };
  });
  return sendXml(ctx, 200, encodeListObjectVersions({
    bucket, prefix, delimiter, keyMarker, versionIdMarker, maxKeys, isTruncated: result.isTruncated, versions,
    commonPrefixes: result.commonPrefixes, owner: ctx.owner, encode,
    ...(result.nextKeyMarker !== undefined ? { nextKeyMarker: result.nextKeyMarker } : {}),
    ...(result.nextVersionIdMarker !== undefined ? { nextVersionIdMarker: result.nextVersionIdMarker } : {}),
    ...(encodingType !== undefined ? { encodingType } : {}),
  }));
}
