import { isoTime } from '../../../common/index.js';
import { RawXml, escapeXml, xmlDocument, type XmlObject } from '../../shared/index.js';
import { checksumElements, type ChecksumValues } from '../headers/checksum-headers.js';

/**
 * Encoders of the S3 response bodies, one per response type, following the shapes of the
 * AWS API reference (https://docs.aws.amazon.com/AmazonS3/latest/API/API_Operations_Amazon_Simple_Storage_Service.html).
 * Inputs are plain view models so that this file knows nothing about the storage engine.
 */

/** Namespace of every S3 response document. */
export const S3_XMLNS = 'http://s3.amazonaws.com/doc/2006-03-01/';

/** The single owner of everything on this server (no ACLs): the authenticated access key. */
export interface OwnerView {
  id: string;
  displayName: string;
}

/** An object as listed by ListObjects v1/v2. */
export interface ListedObjectView {
  key: string;
  lastModified: Date;
  etag: string;
  size: number;
  checksumAlgorithm?: string;
}

/** `"etag"`: ETags are always quoted on the wire. */
export function quoteEtag(etag: string): string {
  return `"${etag}"`;
}

function owner(o: OwnerView): XmlObject {
  return { ID: o.id, DisplayName: o.displayName };
}

/** ListAllMyBucketsResult (ListBuckets). */
export function encodeListBuckets(o: OwnerView, buckets: ReadonlyArray<{ name: string; created: Date }>): string {
  return xmlDocument('ListAllMyBucketsResult', {
    Owner: owner(o),
    Buckets: { Bucket: buckets.map((b) => ({ Name: b.name, CreationDate: b.created })) },
  }, S3_XMLNS);
}

/** LocationConstraint (GetBucketLocation); empty for us-east-1, as on AWS. */
export function encodeLocation(region: string): string {
  const value = region === 'us-east-1' ? '' : escapeXml(region);
  return `<?xml version="1.0" encoding="UTF-8"?><LocationConstraint xmlns="${S3_XMLNS}">${value}</LocationConstraint>`;
}

/**
 * The Contents elements of a listing page, written straight to one string: a page holds up to 1,000 of them, and
 * an object per entry walked by the generic writer was ~8 % of a warm LIST's CPU. The same elements, in the same
 * order, as the generic writer makes of {Key, LastModified, ETag, ChecksumAlgorithm, Size, StorageClass, Owner}
 * (the ETag's quotes written escaped: escaping the quoted string took the slow replace path for every entry).
 */
function contents(objects: readonly ListedObjectView[], enc: (s: string) => string, withOwner: OwnerView | undefined): RawXml {
  const ownerXml = withOwner === undefined ? ''
    : `<Owner><ID>${escapeXml(withOwner.id)}</ID><DisplayName>${escapeXml(withOwner.displayName)}</DisplayName></Owner>`;
  let out = '';
  for (const obj of objects) {
    const sum = obj.checksumAlgorithm === undefined ? '' : `<ChecksumAlgorithm>${escapeXml(obj.checksumAlgorithm)}</ChecksumAlgorithm>`;
    out += `<Contents><Key>${escapeXml(enc(obj.key))}</Key><LastModified>${isoTime(obj.lastModified)}</LastModified>`
      + `<ETag>&quot;${escapeXml(obj.etag)}&quot;</ETag>${sum}<Size>${obj.size}</Size><StorageClass>STANDARD</StorageClass>${ownerXml}</Contents>`;
  }
  return new RawXml(out);
}

/** Shared inputs of both ListObjects versions; `encode` is identity or the `encoding-type=url` encoder. */
export interface ListObjectsView {
  bucket: string;
  prefix: string;
  delimiter: string;
  maxKeys: number;
  isTruncated: boolean;
  objects: readonly ListedObjectView[];
  commonPrefixes: readonly string[];
  encodingType?: 'url';
  encode: (s: string) => string;
}

/** ListBucketResult of ListObjects (v1). NextMarker is only sent with a delimiter, as AWS documents. */
export function encodeListObjectsV1(v: ListObjectsView & { marker: string; nextMarker?: string; owner: OwnerView }): string {
  return xmlDocument('ListBucketResult', {
    Name: v.bucket,
    Prefix: v.encode(v.prefix),
    Marker: v.encode(v.marker),
    NextMarker: v.nextMarker === undefined ? undefined : v.encode(v.nextMarker),
    MaxKeys: v.maxKeys,
    Delimiter: v.delimiter === '' ? undefined : v.encode(v.delimiter),
    IsTruncated: v.isTruncated,
    EncodingType: v.encodingType,
    Contents: contents(v.objects, v.encode, v.owner),
    CommonPrefixes: v.commonPrefixes.map((p) => ({ Prefix: v.encode(p) })),
  }, S3_XMLNS);
}

/** ListBucketResult of ListObjectsV2. */
export function encodeListObjectsV2(v: ListObjectsView & {
  continuationToken?: string;
  nextContinuationToken?: string;
  startAfter?: string;
  owner?: OwnerView;
}): string {
  return xmlDocument('ListBucketResult', {
    Name: v.bucket,
    Prefix: v.encode(v.prefix),
    MaxKeys: v.maxKeys,
    KeyCount: v.objects.length + v.commonPrefixes.length,
    Delimiter: v.delimiter === '' ? undefined : v.encode(v.delimiter),
    IsTruncated: v.isTruncated,
    ContinuationToken: v.continuationToken,
    NextContinuationToken: v.nextContinuationToken,
    StartAfter: v.startAfter === undefined ? undefined : v.encode(v.startAfter),
    EncodingType: v.encodingType,
    Contents: contents(v.objects, v.encode, v.owner),
    CommonPrefixes: v.commonPrefixes.map((p) => ({ Prefix: v.encode(p) })),
  }, S3_XMLNS);
}

/** CopyObjectResult. */
export function encodeCopyObjectResult(etag: string, lastModified: Date, checksums: ChecksumValues): string {
  return xmlDocument('CopyObjectResult', { ETag: quoteEtag(etag), LastModified: lastModified, ...checksumElements(checksums) }, S3_XMLNS);
}

/** Tagging (GetObjectTagging, GetBucketTagging). */
export function encodeTagging(tags: ReadonlyArray<{ key: string; value: string }>): string {
  return xmlDocument('Tagging', { TagSet: { Tag: tags.map((t) => ({ Key: t.key, Value: t.value })) } }, S3_XMLNS);
}

/** CopyPartResult (UploadPartCopy). */
export function encodeCopyPartResult(etag: string, lastModified: Date, checksums: ChecksumValues): string {
  return xmlDocument('CopyPartResult', { ETag: quoteEtag(etag), LastModified: lastModified, ...checksumElements(checksums) }, S3_XMLNS);
}

/** One failed key of DeleteObjects. */
export interface DeleteErrorView {
  key: string;
  versionId?: string;
  code: string;
  message: string;
}

/** One deleted key of DeleteObjects (versioned buckets add the version and delete-marker fields). */
export interface DeletedView {
  key: string;
  versionId?: string;
  deleteMarker?: boolean;
  deleteMarkerVersionId?: string;
}

/** DeleteResult; in Quiet mode callers pass no `deleted` entries (only errors are reported). */
export function encodeDeleteResult(deleted: readonly DeletedView[], errors: readonly DeleteErrorView[]): string {
  return xmlDocument('DeleteResult', {
    Deleted: deleted.map((d) => ({
      Key: d.key, VersionId: d.versionId, DeleteMarker: d.deleteMarker === true ? 'true' : undefined, DeleteMarkerVersionId: d.deleteMarkerVersionId,
    })),
    Error: errors.map((e) => ({ Key: e.key, VersionId: e.versionId, Code: e.code, Message: e.message })),
  }, S3_XMLNS);
}

/** InitiateMultipartUploadResult (CreateMultipartUpload). */
export function encodeInitiateMultipartUpload(bucket: string, key: string, uploadId: string): string {
  return xmlDocument('InitiateMultipartUploadResult', { Bucket: bucket, Key: key, UploadId: uploadId }, S3_XMLNS);
}

/** CompleteMultipartUploadResult. */
export function encodeCompleteMultipartUpload(v: {
  location: string; bucket: string; key: string; etag: string; checksums: ChecksumValues; checksumType?: string;
}): string {
  return xmlDocument('CompleteMultipartUploadResult', {
    Location: v.location,
    Bucket: v.bucket,
    Key: v.key,
    ETag: quoteEtag(v.etag),
    ...checksumElements(v.checksums),
    ChecksumType: v.checksumType,
  }, S3_XMLNS);
}

/** ListPartsResult. */
export function encodeListParts(v: {
  bucket: string;
  key: string;
  uploadId: string;
  owner: OwnerView;
  partNumberMarker: number;
  nextPartNumberMarker: number;
  maxParts: number;
  isTruncated: boolean;
  checksumAlgorithm?: string;
  parts: ReadonlyArray<{ partNumber: number; lastModified: Date; etag: string; size: number; checksums: ChecksumValues }>;
}): string {
  return xmlDocument('ListPartsResult', {
    Bucket: v.bucket,
    Key: v.key,
    UploadId: v.uploadId,
    Initiator: owner(v.owner),
    Owner: owner(v.owner),
    StorageClass: 'STANDARD',
    PartNumberMarker: v.partNumberMarker,
    NextPartNumberMarker: v.nextPartNumberMarker,
    MaxParts: v.maxParts,
    IsTruncated: v.isTruncated,
    ChecksumAlgorithm: v.checksumAlgorithm,
    Part: v.parts.map((p) => ({
      PartNumber: p.partNumber,
      LastModified: p.lastModified,
      ETag: quoteEtag(p.etag),
      Size: p.size,
      ...checksumElements(p.checksums),
    })),
  }, S3_XMLNS);
}

/** ListMultipartUploadsResult. */
export function encodeListMultipartUploads(v: {
  bucket: string;
  keyMarker: string;
  uploadIdMarker: string;
  nextKeyMarker?: string;
  nextUploadIdMarker?: string;
  prefix: string;
  delimiter: string;
  maxUploads: number;
  isTruncated: boolean;
  owner: OwnerView;
  encodingType?: 'url';
  encode: (s: string) => string;
  uploads: ReadonlyArray<{ key: string; uploadId: string; initiated: Date; checksumAlgorithm?: string }>;
  commonPrefixes: readonly string[];
}): string {
  return xmlDocument('ListMultipartUploadsResult', {
    Bucket: v.bucket,
    KeyMarker: v.encode(v.keyMarker),
    UploadIdMarker: v.uploadIdMarker,
    NextKeyMarker: v.nextKeyMarker === undefined ? undefined : v.encode(v.nextKeyMarker),
    NextUploadIdMarker: v.nextUploadIdMarker,
    Delimiter: v.delimiter === '' ? undefined : v.encode(v.delimiter),
    Prefix: v.encode(v.prefix),
    MaxUploads: v.maxUploads,
    IsTruncated: v.isTruncated,
    EncodingType: v.encodingType,
    Upload: v.uploads.map((u) => ({
      Key: v.encode(u.key),
      UploadId: u.uploadId,
      Initiator: owner(v.owner),
      Owner: owner(v.owner),
      StorageClass: 'STANDARD',
      Initiated: u.initiated,
      ChecksumAlgorithm: u.checksumAlgorithm,
    })),
    CommonPrefixes: v.commonPrefixes.map((p) => ({ Prefix: v.encode(p) })),
  }, S3_XMLNS);
}

/** The `<Error>` document (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html#RESTErrorResponses). */
export function encodeError(v: { code: string; message: string; resource?: string; requestId: string; hostId: string; extra?: Readonly<Record<string, string>> }): string {
  return xmlDocument('Error', {
    Code: v.code,
    Message: v.message,
    ...(v.extra ?? {}),
    Resource: v.resource,
    RequestId: v.requestId,
    HostId: v.hostId,
  });
}

/** VersioningConfiguration (GetBucketVersioning): empty when versioning was never configured, as on AWS. */
export function encodeVersioningConfiguration(status: string | undefined): string {
  return xmlDocument('VersioningConfiguration', { Status: status }, S3_XMLNS);
}

/** One Version or DeleteMarker entry of ListObjectVersions. */
export interface ListedVersionView {
  key: string;
  versionId: string;
  isLatest: boolean;
  lastModified: Date;
  /** Absent for a delete marker. */
  object?: { etag: string; size: number; checksumAlgorithm?: string };
}

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/** One element without the XML declaration (for documents whose children interleave element names). */
function fragment(name: string, body: XmlObject): string {
  return xmlDocument(name, body).slice(DECLARATION.length);
}

/**
 * ListVersionsResult (ListObjectVersions). Version and DeleteMarker elements are interleaved in listing order (key
 * ascending, newest version first), as AWS sends them, so they are written in sequence rather than grouped by name.
 */
export function encodeListObjectVersions(v: {
  bucket: string;
  prefix: string;
  delimiter: string;
  keyMarker: string;
  versionIdMarker: string;
  nextKeyMarker?: string;
  nextVersionIdMarker?: string;
  maxKeys: number;
  isTruncated: boolean;
  versions: readonly ListedVersionView[];
  commonPrefixes: readonly string[];
  owner: OwnerView;
  encodingType?: 'url';
  encode: (s: string) => string;
}): string {
  const head = xmlDocument('ListVersionsResult', {
    Name: v.bucket,
    Prefix: v.encode(v.prefix),
    KeyMarker: v.encode(v.keyMarker),
    VersionIdMarker: v.versionIdMarker,
    NextKeyMarker: v.nextKeyMarker === undefined ? undefined : v.encode(v.nextKeyMarker),
    NextVersionIdMarker: v.nextVersionIdMarker,
    MaxKeys: v.maxKeys,
    Delimiter: v.delimiter === '' ? undefined : v.encode(v.delimiter),
    IsTruncated: v.isTruncated,
    EncodingType: v.encodingType,
  }, S3_XMLNS);
  const entries = v.versions.map((e) => (e.object === undefined
    ? fragment('DeleteMarker', {
      Key: v.encode(e.key), VersionId: e.versionId, IsLatest: e.isLatest, LastModified: e.lastModified, Owner: owner(v.owner),
    })
    : fragment('Version', {
      Key: v.encode(e.key), VersionId: e.versionId, IsLatest: e.isLatest, LastModified: e.lastModified, ETag: quoteEtag(e.object.etag),
      ChecksumAlgorithm: e.object.checksumAlgorithm, Size: e.object.size, StorageClass: 'STANDARD', Owner: owner(v.owner),
    })));
  const prefixes = v.commonPrefixes.map((p) => fragment('CommonPrefixes', { Prefix: v.encode(p) }));
  const close = '</ListVersionsResult>';
  return head.slice(0, head.length - close.length) + entries.join('') + prefixes.join('') + close;
}
