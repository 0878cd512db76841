/** Public names of the erasure layer (Reed-Solomon, streaming encode/decode, quorum maths). */
export { ErasureCodec, MAX_DATA, MAX_PARITY, UnsupportedErasureError } from './codec.js';
export { fetchBlock, readPartRange } from './decode.js';
export type { DecodeState, RangeOptions, ShardProvider } from './decode.js';
export { encodeStream } from './encode.js';
export type { EncodeOptions, EncodeResult } from './encode.js';
export { BLOCK_SIZE, INLINE_LIMIT, align8, blockCount, blockLength, chunkLength, shardDataLength, shardSize } from './layout.js';
export { countOk, defaultParity, majorityQuorum, onEach, readQuorum, reduceErrors, writeQuorum } from './quorum.js';
export type { DriveResult } from './quorum.js';
