import {
  combineCompositeChecksum, combineFullObjectChecksum, parseChecksumAlgorithm, type ChecksumAlgorithm, type FullObjectChecksumAlgorithm,
} from '../../../common/index.js';
import type { MultipartChecksumType } from '../../../storage/index.js';
import { header, type S3Context } from '../context.js';
import { S3Error } from '../s3-error.js';

/**
 * Multipart checksum types (https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html#ChecksumTypes):
 * COMPOSITE is the checksum of the concatenated part checksums, suffixed `-N`; FULL_OBJECT is the CRC of the
 * whole object, combined from the part CRCs. CRC32 and CRC32C support both (COMPOSITE by default), CRC64NVME
 * only FULL_OBJECT (its default), SHA-1 and SHA-256 only COMPOSITE.
 */

/** What CreateMultipartUpload declared: the algorithm and its checksum type (both absent: no checksum). */
export interface MultipartChecksumDeclaration {
  algorithm?: ChecksumAlgorithm;
  type?: MultipartChecksumType;
}

function isFullObjectAlgorithm(alg: ChecksumAlgorithm): alg is FullObjectChecksumAlgorithm {
  return alg === 'CRC32' || alg === 'CRC32C' || alg === 'CRC64NVME';
}

/** The checksum type an algorithm gets when x-amz-checksum-type is not sent. */
export function defaultChecksumType(alg: ChecksumAlgorithm): MultipartChecksumType {
  return alg === 'CRC64NVME' ? 'FULL_OBJECT' : 'COMPOSITE';
}

/**
 * Reads x-amz-checksum-algorithm and x-amz-checksum-type of CreateMultipartUpload. Unknown values are
 * InvalidArgument; a type without an algorithm, or a combination AWS does not support, is InvalidRequest.
 */
export function parseChecksumDeclaration(ctx: Pick<S3Context, 'headers'>): MultipartChecksumDeclaration {
  const rawAlg = header(ctx, 'x-amz-checksum-algorithm');
  const algorithm = rawAlg === undefined ? undefined : parseChecksumAlgorithm(rawAlg);
  if (rawAlg !== undefined && algorithm === undefined) {
    throw new S3Error('InvalidArgument', { message: 'Invalid checksum algorithm.', extra: { ArgumentName: 'x-amz-checksum-algorithm', ArgumentValue: rawAlg } });
  }
  const rawType = header(ctx, 'x-amz-checksum-type');
  if (rawType === undefined) return algorithm === undefined ? {} : { algorithm, type: defaultChecksumType(algorithm) };
  const type = rawType.toUpperCase();
  if (type !== 'COMPOSITE' && type !== 'FULL_OBJECT') {
    throw new S3Error('InvalidArgument', { message: 'Invalid checksum type.', extra: { ArgumentName: 'x-amz-checksum-type', ArgumentValue: rawType } });
  }
  if (algorithm === undefined) {
    throw new S3Error('InvalidRequest', { message: 'The x-amz-checksum-type header can only be used with the x-amz-checksum-algorithm header.' });
  }
  if (type === 'FULL_OBJECT' && !isFullObjectAlgorithm(algorithm)) {
    throw new S3Error('InvalidRequest', { message: `The FULL_OBJECT checksum type cannot be used with the ${algorithm.toLowerCase()} checksum algorithm.` });
  }
  if (type === 'COMPOSITE' && algorithm === 'CRC64NVME') {
    throw new S3Error('InvalidRequest', { message: 'The COMPOSITE checksum type cannot be used with the crc64nvme checksum algorithm.' });
  }
  return { algorithm, type };
}

/** The object's checksum from its parts' checksums and sizes, as the declared type says. */
export function objectChecksum(
  alg: ChecksumAlgorithm, type: MultipartChecksumType, parts: ReadonlyArray<{ checksum: string; size: number }>,
): string {
  if (type === 'FULL_OBJECT' && isFullObjectAlgorithm(alg)) return combineFullObjectChecksum(alg, parts);
  return combineCompositeChecksum(alg, parts.map((p) => p.checksum));
}

/**
 * Checks what CompleteMultipartUpload may assert about the result: x-amz-checksum-type must name the
 * upload's type (InvalidRequest), a full-object x-amz-checksum-<alg> must equal the computed value (BadDigest),
 * and x-amz-mp-object-size must equal the object size (InvalidRequest).
 */
export function checkCompleteAssertions(
  ctx: Pick<S3Context, 'headers'>, declared: MultipartChecksumDeclaration, computed: string | undefined, size: number,
): void {
  const rawType = header(ctx, 'x-amz-checksum-type');
  if (rawType !== undefined && rawType.toUpperCase() !== (declared.type ?? '')) {
    throw new S3Error('InvalidRequest', {
      message: `The upload was created using the ${declared.type ?? 'null'} checksum mode. The complete request must use the same checksum mode.`,
    });
  }
  if (declared.algorithm !== undefined && declared.type === 'FULL_OBJECT' && computed !== undefined) {
    const claimed = header(ctx, `x-amz-checksum-${declared.algorithm.toLowerCase()}`);
    if (claimed !== undefined && claimed !== computed) {
      throw new S3Error('BadDigest', { message: `The ${declared.algorithm.toLowerCase()} you specified did not match the calculated checksum.` });
    }
  }
  const rawSize = header(ctx, 'x-amz-mp-object-size');
  if (rawSize !== undefined && (!/^\d+$/.test(rawSize) || Number(rawSize) !== size)) {
    throw new S3Error('InvalidRequest', {
      message: `The provided 'x-amz-mp-object-size' header value ${rawSize} does not match what was computed: ${size}`,
    });
  }
}
