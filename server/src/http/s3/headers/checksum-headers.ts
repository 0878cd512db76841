import { CHECKSUM_ALGORITHMS, type ChecksumAlgorithm } from '../../../common/index.js';

/**
 * Wire names of the S3 additional checksums in XML bodies
 * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html); algorithm
 * names, header names and hashing live in common/checksum.ts.
 */

/** Checksum values by algorithm (base64, with a `-N` part-count suffix for composites). */
export type ChecksumValues = Partial<Record<ChecksumAlgorithm, string>>;

/** `CRC32` → `ChecksumCRC32` (the XML element of CompleteMultipartUpload, ListParts, CopyObjectResult). */
export function checksumElementName(alg: ChecksumAlgorithm): string {
  return `Checksum${alg}`;
}

/** Checksum values as XML children (`ChecksumCRC32`: value …), in algorithm order. */
export function checksumElements(values: ChecksumValues): Record<string, string> {
  const out: Record<string, string> = {};
  for (const alg of CHECKSUM_ALGORITHMS) {
    const v = values[alg];
    if (v !== undefined) out[checksumElementName(alg)] = v;
  }
  return out;
}
