/** Public names of the bitrot layer (pure codec: hashes and framing of shard chunks). */
export { BITROT_HASH_SIZE, BITROT_KEY, BitrotMismatchError, loadBitrotHasher, verifyFramedChunk } from './hasher.js';
export type { BitrotHasher, BitrotStream } from './hasher.js';
export { BitrotReader, BitrotWriter, framedSize } from './streaming.js';
export type { BitrotLayout, BitrotReaderOptions, ChunkSink, ChunkSource } from './streaming.js';
