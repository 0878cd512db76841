import type { ObjectInfo } from '../../../storage/index.js';
import { CHECKSUM_ALGORITHMS, checksumHeaderName } from '../../../common/index.js';
import { metadataHeaders } from './metadata.js';
import { quoteEtag } from '../xml/responses.js';

/** S3's default content type when none was stored (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html). */
export const DEFAULT_CONTENT_TYPE = 'binary/octet-stream';

/** Validator headers, also sent with 304 Not Modified. */
export function validatorHeaders(info: ObjectInfo): Record<string, string> {
  return { etag: quoteEtag(info.etag), 'last-modified': info.lastModified.toUTCString() };
}

/** Headers describing a stored object on GET/HEAD (metadata, validators, length of the whole object). */
export function objectHeaders(info: ObjectInfo): Record<string, string> {
  return {
    'content-type': DEFAULT_CONTENT_TYPE,
    ...metadataHeaders({ system: info.system, user: info.user }),
    ...validatorHeaders(info),
    'accept-ranges': 'bytes',
    'content-length': String(info.size),
  };
}

/**
 * x-amz-checksum-* headers for the stored checksums, plus x-amz-checksum-type: composite values carry a
 * `-N` part-count suffix (https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html).
 */
export function checksumHeaders(checksums: ObjectInfo['checksums']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const alg of CHECKSUM_ALGORITHMS) {
    const v = checksums[alg];
    if (v === undefined) continue;
    out[checksumHeaderName(alg)] = v;
    out['x-amz-checksum-type'] = /-\d+$/.test(v) ? 'COMPOSITE' : 'FULL_OBJECT';
  }
  return out;
}
