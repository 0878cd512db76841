import type { FastifyReply } from 'fastify';
import type { ObjectInfo } from '../../../storage/index.js';
import { CHECKSUM_ALGORITHMS } from '../../../common/index.js';
import { xmlDocument, type XmlObject } from '../../shared/index.js';
import { header, sendXml, type S3Context } from '../context.js';
import { checksumElements, type ChecksumValues } from '../headers/checksum-headers.js';
import { parseIntegerMarker, parseMaxEntries } from '../list-params.js';
import { S3_XMLNS } from '../xml/responses.js';
import { S3Error } from '../s3-error.js';
import { decryptedInfo } from '../sse/object-crypto.js';

/**
 * GetObjectAttributes (https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObjectAttributes.html): the
 * attributes named by x-amz-object-attributes (ETag, Checksum, ObjectParts, StorageClass, ObjectSize) of the
 * newest version or `versionId`, without reading the data.
 */

/** Attribute names of x-amz-object-attributes. */
export const OBJECT_ATTRIBUTES = ['ETag', 'Checksum', 'ObjectParts', 'StorageClass', 'ObjectSize'] as const;

/** One attribute name. */
export type ObjectAttribute = (typeof OBJECT_ATTRIBUTES)[number];

/**
 * Parses x-amz-object-attributes (comma-separated, case-sensitive as in the API reference; the SDKs send
 * one header per value or a comma list). Missing or empty, or any unknown name → InvalidArgument.
 */
export function parseObjectAttributes(raw: string | string[] | undefined): Set<ObjectAttribute> {
  const values = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  if (values.length === 0) {
    throw new S3Error('InvalidArgument', {
      message: 'The x-amz-object-attributes header specifying the attributes to be retrieved is either missing or empty',
      extra: { ArgumentName: 'x-amz-object-attributes' },
    });
  }
  const out = new Set<ObjectAttribute>();
  for (const v of values) {
    if (!(OBJECT_ATTRIBUTES as readonly string[]).includes(v)) {
      throw new S3Error('InvalidArgument', {
        message: 'Invalid attribute name specified.', extra: { ArgumentName: 'x-amz-object-attributes', ArgumentValue: v },
      });
    }
    out.add(v as ObjectAttribute);
  }
  return out;
}

/** A composite value's `-N` part-count suffix is dropped: GetObjectAttributes reports the count in ObjectParts. */
function withoutPartCount(values: ChecksumValues): ChecksumValues {
  const out: ChecksumValues = {};
  for (const alg of CHECKSUM_ALGORITHMS) {
    const v = values[alg];
    if (v !== undefined) out[alg] = v.replace(/-\d+$/, '');
  }
  return out;
}

function checksumElement(info: ObjectInfo): XmlObject | undefined {
  const present = CHECKSUM_ALGORITHMS.filter((alg) => info.checksums[alg] !== undefined);
  if (present.length === 0) return undefined;
  const composite = present.some((alg) => /-\d+$/.test(info.checksums[alg]!));
  return { ...checksumElements(withoutPartCount(info.checksums)), ChecksumType: composite ? 'COMPOSITE' : 'FULL_OBJECT' };
}

function partsElement(info: ObjectInfo, maxParts: number, marker: number): XmlObject | undefined {
  if (info.parts === undefined) return undefined;
  const after = info.parts.filter((p) => p.partNumber > marker);
  const page = after.slice(0, maxParts);
  const truncated = after.length > page.length;
  // Parts are listed only when the object has additional checksums, as AWS does for general purpose buckets.
  const listed = info.parts.some((p) => Object.keys(p.checksums).length > 0);
  // The XML element of the API's TotalPartsCount is PartsCount.
  return {
    PartsCount: info.parts.length,
    PartNumberMarker: marker,
    NextPartNumberMarker: page.length > 0 ? page[page.length - 1]!.partNumber : marker,
    MaxParts: maxParts,
    IsTruncated: truncated,
    Part: listed ? page.map((p) => ({ ...checksumElements(p.checksums), PartNumber: p.partNumber, Size: p.size })) : undefined,
  };
}

/** The GetObjectAttributesResponse document of `info` for the requested attributes. */
export function encodeObjectAttributes(
  info: ObjectInfo, wanted: ReadonlySet<ObjectAttribute>, paging: { maxParts: number; partNumberMarker: number },
): string {
  return xmlDocument('GetObjectAttributesResponse', {
    ETag: wanted.has('ETag') ? info.etag : undefined,
    Checksum: wanted.has('Checksum') ? checksumElement(info) : undefined,
    ObjectParts: wanted.has('ObjectParts') ? partsElement(info, paging.maxParts, paging.partNumberMarker) : undefined,
    StorageClass: wanted.has('StorageClass') ? 'STANDARD' : undefined,
    ObjectSize: wanted.has('ObjectSize') ? info.size : undefined,
  }, S3_XMLNS);
}

/**
 * GetObjectAttributes handler. An encrypted object is described as the client sees it (plaintext sizes and
 * ETag); an SSE-C object needs its customer key, as on GET.
 */
export async function getObjectAttributes(ctx: S3Context, bucket: string, key: string, versionId: string | undefined): Promise<FastifyReply> {
  const wanted = parseObjectAttributes(ctx.headers['x-amz-object-attributes']);
  const maxParts = parseMaxEntries(header(ctx, 'x-amz-max-parts'), 'max-parts');
  const partNumberMarker = parseIntegerMarker(header(ctx, 'x-amz-part-number-marker'), 'part-number-marker');
  const stored = await ctx.layer.getObjectInfo(bucket, key, versionId === undefined ? {} : { versionId });
  const { info, headers } = decryptedInfo(ctx, stored);
  ctx.reply.headers(headers);
  ctx.reply.header('last-modified', info.lastModified.toUTCString());
  if (info.versionId !== undefined && (info.versionId !== 'null' || versionId !== undefined)) ctx.reply.header('x-amz-version-id', info.versionId);
  return sendXml(ctx, 200, encodeObjectAttributes(info, wanted, { maxParts, partNumberMarker }));
}
