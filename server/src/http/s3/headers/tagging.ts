import type { ObjectTag } from '../../../storage/index.js';
import { S3Error } from '../s3-error.js';

/**
 * Tag sets of object and bucket tagging (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-tagging.html,
 * https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketTagging.html): keys of 1..128 and values of
 * 0..256 Unicode characters from letters, digits, white space and `+ - = . _ : / @`, unique keys, no
 * reserved `aws:` prefix; at most 10 tags per object and 50 per bucket.
 */

/** AWS's per-object tag limit. */
export const MAX_OBJECT_TAGS = 10;
/** AWS's per-bucket tag limit. */
export const MAX_BUCKET_TAGS = 50;
const MAX_KEY_CHARS = 128;
const MAX_VALUE_CHARS = 256;
// The character set of the AWS tagging API's Key/Value patterns.
const TAG_CHARS = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;

function chars(s: string): number {
  return [...s].length;
}

/** Throws InvalidTag / BadRequest as AWS does when `tags` is not an acceptable tag set. */
export function validateTags(tags: readonly ObjectTag[], kind: 'object' | 'bucket'): void {
  const max = kind === 'object' ? MAX_OBJECT_TAGS : MAX_BUCKET_TAGS;
  if (tags.length > max) {
    // AWS answers an over-long object tag set with the generic BadRequest code.
    throw new S3Error(kind === 'object' ? 'BadRequest' : 'InvalidTag', {
      message: kind === 'object' ? `Object tags cannot be greater than ${max}` : `Bucket tag count cannot be greater than ${max}`,
    });
  }
  const seen = new Set<string>();
  for (const { key, value } of tags) {
    if (key === '' || chars(key) > MAX_KEY_CHARS || !TAG_CHARS.test(key)) {
      throw new S3Error('InvalidTag', { message: 'The TagKey you have provided is invalid', extra: { TagKey: key } });
    }
    if (key.toLowerCase().startsWith('aws:')) {
      throw new S3Error('InvalidTag', { message: 'Your TagKey cannot be prefixed with aws:', extra: { TagKey: key } });
    }
    if (chars(value) > MAX_VALUE_CHARS || !TAG_CHARS.test(value)) {
      throw new S3Error('InvalidTag', { message: 'The TagValue you have provided is invalid', extra: { TagKey: key } });
    }
    if (seen.has(key)) throw new S3Error('InvalidTag', { message: 'Cannot provide multiple Tags with the same key', extra: { TagKey: key } });
    seen.add(key);
  }
}

/**
 * Parses the `x-amz-tagging` header: URL query form `k1=v1&k2=v2`, a key without `=` having an empty
 * value (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html#API_PutObject_RequestSyntax).
 * The result is validated as an object tag set.
 */
export function parseTaggingHeader(raw: string | undefined): ObjectTag[] {
  if (raw === undefined || raw.trim() === '') return [];
  const tags: ObjectTag[] = [];
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const decode = (s: string): string => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' '));
      } catch (cause) {
        throw new S3Error('InvalidArgument', { message: 'The header \'x-amz-tagging\' shall be encoded as UTF-8 then URLEncoded URL query parameters without tag name duplicates.', cause, extra: { ArgumentName: 'x-amz-tagging' } });
      }
    };
    tags.push(eq === -1 ? { key: decode(pair), value: '' } : { key: decode(pair.slice(0, eq)), value: decode(pair.slice(eq + 1)) });
  }
  validateTags(tags, 'object');
  return tags;
}
