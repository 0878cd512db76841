import { isIP } from 'node:net';
import { S3Error } from './s3-error.js';

// https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html (general purpose buckets).
const RESERVED_PREFIXES = ['xn--', 'sthree-', 'amzn-s3-demo-'];
const RESERVED_SUFFIXES = ['-s3alias', '--ol-s3', '.mrap', '--x-s3', '--table-s3'];

/** Why `name` breaks the S3 bucket naming rules, or undefined when it is valid. */
export function bucketNameProblem(name: string, strict: boolean): string | undefined {
  if (name.length < 3 || name.length > 63) return 'Bucket names must be between 3 (min) and 63 (max) characters long.';
  if (strict) {
    if (!/^[a-z0-9][a-z0-9.-]*[a-z0-9]$/.test(name)) {
      return 'Bucket names can consist only of lowercase letters, numbers, periods (.), and hyphens (-), and must begin and end with a letter or number.';
    }
    if (isIP(name) === 4) return 'Bucket names must not be formatted as an IP address.';
    if (RESERVED_PREFIXES.some((p) => name.startsWith(p))) return 'Bucket names must not start with a reserved prefix.';
    if (RESERVED_SUFFIXES.some((s) => name.endsWith(s))) return 'Bucket names must not end with a reserved suffix.';
  } else if (!/^[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]$/.test(name)) {
    // Relaxed rule for existing-bucket operations (legacy names may hold upper case or underscores),
    // still strict enough that a name can never be a path component such as `.` or `..`.
    return 'The specified bucket is not valid.';
  }
  if (name.includes('..')) return 'Bucket names must not contain two adjacent periods.';
  return undefined;
}

/**
 * Throws InvalidBucketName when `name` is not a valid bucket name. `strict` applies the full rules for
 * creating a bucket; other operations use a relaxed check (the engine answers NoSuchBucket for the rest).
 */
export function checkBucketName(name: string, strict: boolean): void {
  const problem = bucketNameProblem(name, strict);
  if (problem !== undefined) throw new S3Error('InvalidBucketName', { message: problem, resource: name, extra: { BucketName: name } });
}

/** Maximum key length in UTF-8 bytes (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-keys.html). */
export const MAX_KEY_BYTES = 1024;

/** Throws KeyTooLongError for keys over 1024 UTF-8 bytes. Any other byte sequence is a legal key. */
export function checkObjectKey(key: string): void {
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) {
    throw new S3Error('KeyTooLongError', { extra: { MaxSizeAllowed: String(MAX_KEY_BYTES), Size: String(Buffer.byteLength(key, 'utf8')) } });
  }
}
