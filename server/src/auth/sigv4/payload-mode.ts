import { STREAMING_SIGNED, STREAMING_SIGNED_TRAILER, STREAMING_UNSIGNED_TRAILER, UNSIGNED_PAYLOAD } from './constants.js';
import type { PayloadMode } from './types.js';

/** A parsed x-amz-content-sha256 value. */
export interface PayloadHash {
  mode: PayloadMode;
  /** Lower-case hex digest when mode is 'sha256'. */
  sha256?: string;
}

/** Parses an x-amz-content-sha256 value; undefined when it is neither a hex SHA-256 nor a known keyword. */
export function parsePayloadHash(value: string): PayloadHash | undefined {
  switch (value) {
    case UNSIGNED_PAYLOAD: return { mode: 'unsigned' };
    case STREAMING_SIGNED: return { mode: 'streaming-signed' };
    case STREAMING_SIGNED_TRAILER: return { mode: 'streaming-signed-trailer' };
    case STREAMING_UNSIGNED_TRAILER: return { mode: 'streaming-unsigned-trailer' };
    default:
      return /^[0-9a-fA-F]{64}$/.test(value) ? { mode: 'sha256', sha256: value.toLowerCase() } : undefined;
  }
}

/** True for the aws-chunked modes (STREAMING-*). */
export function isStreaming(mode: PayloadMode): boolean {
  return mode === 'streaming-signed' || mode === 'streaming-signed-trailer' || mode === 'streaming-unsigned-trailer';
}
