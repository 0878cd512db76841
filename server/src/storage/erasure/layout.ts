/**
 * Erasure geometry (REFERENCE.md fact 6): objects are cut into 1 MiB blocks; each block is split
 * into K data chunks of ceil(blockLen / K) bytes, rounded up to a multiple of 8 because
 * @ronomon/reed-solomon requires `shardSize % 8 == 0`; the block tail is zero-padded.
 */

/** Erasure block size (MinIO blockSizeV2). */
export const BLOCK_SIZE = 1 << 20;

/** Objects up to this size keep their shards inside the metadata record (MinIO's inline block). */
export const INLINE_LIMIT = 128 * 1024;

/** Rounds up to a multiple of 8. */
export function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

/** Bytes of one shard chunk for a block of `blockLen` bytes. */
export function chunkLength(blockLen: number, k: number): number {
  return align8(Math.ceil(blockLen / k));
}

/** Chunk size of a full block (the stride of a shard file, without the hash). */
export function shardSize(blockSize: number, k: number): number {
  return chunkLength(blockSize, k);
}

/** Number of blocks of a part of `size` bytes. */
export function blockCount(size: number, blockSize: number): number {
  return Math.ceil(size / blockSize);
}

/** Length of block `b` of a part of `size` bytes. */
export function blockLength(size: number, blockSize: number, b: number): number {
  return Math.min(blockSize, size - b * blockSize);
}

/** Shard bytes of each drive for a part of `size` bytes: its blocks' chunk lengths summed (bitrot hashes excluded). */
export function shardDataLength(size: number, blockSize: number, k: number): number {
  const blocks = blockCount(size, blockSize);
  if (blocks === 0) return 0;
  return (blocks - 1) * shardSize(blockSize, k) + chunkLength(blockLength(size, blockSize, blocks - 1), k);
}
