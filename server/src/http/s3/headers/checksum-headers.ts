/**
 * Names of the S3 additional-checksum algorithms and their wire headers/elements
 * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html).
 * The union equals the storage engine's ChecksumAlgorithm.
 */
export const CHECKSUM_ALGORITHMS = ['CRC32', 'CRC32C', 'CRC64NVME', 'SHA1', 'SHA256'] as const;

/** One algorithm of CHECKSUM_ALGORITHMS. */
export type ChecksumAlgorithmName = (typeof CHECKSUM_ALGORITHMS)[number];

/** Checksum values by algorithm (base64, possibly with a `-N` part-count suffix for composites). */
export type ChecksumValues = Partial<Record<ChecksumAlgorithmName, string>>;

/** `CRC32` → `x-amz-checksum-crc32`. */
export function checksumHeaderName(alg: ChecksumAlgorithmName): string {
  return `x-amz-checksum-${alg.toLowerCase()}`;
}

/** `CRC32` → `ChecksumCRC32` (the XML element of CompleteMultipartUpload, ListParts, CopyObjectResult). */
export function checksumElementName(alg: ChecksumAlgorithmName): string {
  return `Checksum${alg}`;
}

/** Parses an algorithm name as sent in x-amz-checksum-algorithm / x-amz-sdk-checksum-algorithm (any case). */
export function parseChecksumAlgorithm(raw: string): ChecksumAlgorithmName | undefined {
  const up = raw.trim().toUpperCase();
  return (CHECKSUM_ALGORITHMS as readonly string[]).includes(up) ? (up as ChecksumAlgorithmName) : undefined;
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
