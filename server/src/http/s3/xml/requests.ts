import { CHECKSUM_ALGORITHMS } from '../../../common/index.js';
import { checksumElementName, type ChecksumValues } from '../headers/checksum-headers.js';
import { S3Error } from '../s3-error.js';
import { elementsOf, parseXmlBody, textOf } from './parse.js';

/** The body of DeleteObjects (https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteObjects.html). */
export interface DeleteObjectsRequest {
  quiet: boolean;
  objects: Array<{ key: string; versionId?: string }>;
}

/** AWS caps DeleteObjects at 1000 keys per request. */
export const MAX_DELETE_KEYS = 1000;

/** Decodes a `<Delete>` body; more than 1000 keys or none at all is MalformedXML, as on AWS. */
export function decodeDeleteObjects(body: Buffer): DeleteObjectsRequest {
  const root = parseXmlBody(body, 'Delete');
  const quietText = textOf(root, 'Quiet');
  if (quietText !== undefined && !/^(true|false)$/i.test(quietText.trim())) throw new S3Error('MalformedXML', { message: 'Quiet must be true or false.' });
  const objects = elementsOf(root, 'Object').map((o) => {
    const key = textOf(o, 'Key');
    if (key === undefined || key === '') throw new S3Error('MalformedXML', { message: 'Each Object must have a Key.' });
    const versionId = textOf(o, 'VersionId');
    return versionId === undefined ? { key } : { key, versionId };
  });
  if (objects.length === 0 || objects.length > MAX_DELETE_KEYS) {
    throw new S3Error('MalformedXML', { message: `A Delete request must list between 1 and ${MAX_DELETE_KEYS} objects.` });
  }
  return { quiet: quietText?.trim().toLowerCase() === 'true', objects };
}

/** One `<Part>` of CompleteMultipartUpload, with any per-part checksum the client echoed back. */
export interface CompletePartRequest {
  partNumber: number;
  etag: string;
  checksums: ChecksumValues;
}

/** Strips the quotes clients put around ETags (`"abc"` → `abc`). */
export function unquoteEtag(etag: string): string {
  const t = etag.trim();
  return t.length >= 2 && t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1) : t;
}

/** Most parts of one multipart upload, and the highest part number. */
const MAX_PARTS = 10_000;

/**
 * Decodes a `<CompleteMultipartUpload>` body. Structure errors are MalformedXML; order and existence of
 * parts are checked later (InvalidPartOrder / InvalidPart), as AWS does.
 */
export function decodeCompleteMultipartUpload(body: Buffer): CompletePartRequest[] {
  const root = parseXmlBody(body, 'CompleteMultipartUpload');
  const elements = elementsOf(root, 'Part');
  // An upload has at most 10,000 parts numbered 1..10,000 (https://docs.aws.amazon.com/AmazonS3/latest/userguide/qfacts.html).
  if (elements.length > MAX_PARTS) {
    throw new S3Error('InvalidArgument', { message: `A multipart upload has at most ${MAX_PARTS} parts.`, extra: { ArgumentName: 'Part', ArgumentValue: String(elements.length) } });
  }
  const parts = elements.map((p) => {
    const num = textOf(p, 'PartNumber')?.trim();
    const etag = textOf(p, 'ETag');
    if (num === undefined || etag === undefined || !/^\d{1,5}$/.test(num)) {
      throw new S3Error('MalformedXML', { message: 'Each Part must have a PartNumber and an ETag.' });
    }
    if (Number(num) < 1 || Number(num) > MAX_PARTS) {
      throw new S3Error('InvalidArgument', {
        message: `Part number must be an integer between 1 and ${MAX_PARTS}, inclusive`, extra: { ArgumentName: 'PartNumber', ArgumentValue: num },
      });
    }
    const checksums: ChecksumValues = {};
    for (const alg of CHECKSUM_ALGORITHMS) {
      const v = textOf(p, checksumElementName(alg));
      if (v !== undefined) checksums[alg] = v.trim();
    }
    return { partNumber: Number(num), etag: unquoteEtag(etag), checksums };
  });
  if (parts.length === 0) throw new S3Error('MalformedXML', { message: 'You must specify at least one part.' });
  return parts;
}

/** Decodes an optional `<CreateBucketConfiguration>` body; returns the LocationConstraint if any. */
export function decodeCreateBucketConfiguration(body: Buffer): { locationConstraint?: string } {
  if (body.length === 0) return {};
  const root = parseXmlBody(body, 'CreateBucketConfiguration');
  const location = textOf(root, 'LocationConstraint');
  return location === undefined ? {} : { locationConstraint: location.trim() };
}

/**
 * Decodes a `<Tagging><TagSet><Tag><Key/><Value/></Tag>…</TagSet></Tagging>` body (PutObjectTagging,
 * PutBucketTagging). A missing TagSet or a Tag without Key or Value is MalformedXML; limits are checked
 * by validateTags.
 */
export function decodeTagging(body: Buffer): Array<{ key: string; value: string }> {
  const root = parseXmlBody(body, 'Tagging');
  const set = root['TagSet'];
  if (set === undefined || Array.isArray(set)) throw new S3Error('MalformedXML', { message: 'Tagging must contain exactly one TagSet.' });
  if (set === '') return [];
  if (typeof set === 'string') throw new S3Error('MalformedXML', { message: 'TagSet must contain Tag elements.' });
  return elementsOf(set, 'Tag').map((t) => {
    const key = textOf(t, 'Key');
    const value = textOf(t, 'Value');
    if (key === undefined || value === undefined) throw new S3Error('MalformedXML', { message: 'Each Tag must have a Key and a Value.' });
    return { key, value };
  });
}

/** A bucket versioning state as PutBucketVersioning sets it. */
export type VersioningStatus = 'Enabled' | 'Suspended';

/**
 * Decodes a `<VersioningConfiguration>` body (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketVersioning.html).
 * Status is optional (absent: the state is left as it is); any value other than Enabled or Suspended, and an
 * MfaDelete other than Enabled or Disabled, is MalformedXML, as AWS answers.
 */
export function decodeVersioningConfiguration(body: Buffer): { status?: VersioningStatus; mfaDelete?: 'Enabled' | 'Disabled' } {
  const root = parseXmlBody(body, 'VersioningConfiguration');
  const status = textOf(root, 'Status');
  const mfa = textOf(root, 'MfaDelete') ?? textOf(root, 'MFADelete');
  if (status !== undefined && status !== 'Enabled' && status !== 'Suspended') {
    throw new S3Error('MalformedXML', { message: 'Status must be Enabled or Suspended.' });
  }
  if (mfa !== undefined && mfa !== 'Enabled' && mfa !== 'Disabled') {
    throw new S3Error('MalformedXML', { message: 'MfaDelete must be Enabled or Disabled.' });
  }
  return { ...(status !== undefined ? { status } : {}), ...(mfa !== undefined ? { mfaDelete: mfa } : {}) };
}
