import { ServerError } from '../../common/index.js';
import { addonStreams, copyingStream } from './copy-stream.js';
import type { BitrotStream } from './stream.js';

/**
 * Bitrot protection, as MinIO's default `HighwayHash256S` (REFERENCE.md fact 6): every shard
 * chunk on disk is preceded by the 32-byte HighwayHash-256 of the chunk. The key is fixed: the
 * HH-256 (zero key) of the first 100 decimals of π, i.e. MinIO's `magicHighwayHash256Key`.
 * HighwayHash runs natively (highwayhasher's napi build, ~10 GiB/s) so hashing a 1 MiB block
 * costs ~0.1 ms on the event loop; not worth a thread hop.
 */

/** Length of one bitrot hash. */
export const BITROT_HASH_SIZE = 32;

/** MinIO's bitrot key: HH-256(zero key, "1415926535…" (100 decimals of π)). */
export const BITROT_KEY = Buffer.from('4be734fa8e238acd263e83e6bb968552040f935da39f441497e09d1322de36a0', 'hex');

export type { BitrotStream } from './stream.js';

/** Synchronous keyed hash of one chunk. */
export interface BitrotHasher {
  hash(data: Uint8Array): Buffer;
  /** The same hash, of a chunk given piece by piece. */
  stream(): BitrotStream;
  /** HH-256 with an explicit key (used to derive and check the bitrot key). */
  hashWithKey(key: Uint8Array, data: Uint8Array): Buffer;
}

/** A shard chunk whose stored hash does not match its content. */
export class BitrotMismatchError extends ServerError {
  constructor(where: string) { super('ERR_BITROT', `bitrot detected in ${where}`); }
}

let loaded: Promise<BitrotHasher> | undefined;

function view(u: Uint8Array): Buffer {
  return Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

/** Loads the native HighwayHash once per process. */
export function loadBitrotHasher(): Promise<BitrotHasher> {
  loaded ??= (async () => {
    const { HighwayHash } = await import('highwayhasher');
    const mod = await HighwayHash.loadModule();
    // The C addon's streams where they run and gave highwayhasher's digests at start (copy-stream.ts): one pass over a
    // body piece copies and hashes it.
    const fromAddon = addonStreams(BITROT_KEY, (data) => mod.hash256(BITROT_KEY, data));
    return {
      hash: (data) => view(mod.hash256(BITROT_KEY, data)),
      stream: fromAddon ?? (() => {
        const h = mod.create(BITROT_KEY);
        return copyingStream({ append: (data) => h.append(data), digest: () => view(h.finalize256()) });
      }),
      hashWithKey: (key, data) => view(mod.hash256(key, data)),
    };
  })();
  return loaded;
}

/** Returns the data part of a framed chunk (hash ‖ data) after checking the hash. */
export function verifyFramedChunk(hasher: BitrotHasher, framed: Buffer, where: string): Buffer {
  if (framed.length < BITROT_HASH_SIZE) throw new BitrotMismatchError(where);
  const data = framed.subarray(BITROT_HASH_SIZE);
  return checkChunk(data, framed.subarray(0, BITROT_HASH_SIZE), hasher.hash(data), where);
}

/**
 * `data` when `hash`, computed of it, equals `stored` (the hash before the data in a framed chunk, or kept apart from
 * it in a shard file with trailing hashes, streaming.ts); BitrotMismatchError naming `where` otherwise. What every
 * check ends with, wherever the hash was computed (hash-offload.ts: in a worker).
 */
export function checkChunk(data: Buffer, stored: Uint8Array, hash: Uint8Array, where: string): Buffer {
  if (stored.length !== BITROT_HASH_SIZE || !Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength).equals(hash)) {
    throw new BitrotMismatchError(where);
  }
  return data;
}
