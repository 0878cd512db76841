import { loadAddon } from '../../common/index.js';

/**
 * The four-lane MD5 in C with AVX-512VL (server/native/md5x4.c, built by scripts/build-native.sh): ~25 % faster than
 * the WebAssembly build of md5-wasm.ts, and it hashes the MD5 worker's batches where they lie. Used by the MD5 worker
 * when built and when this CPU runs it; otherwise the WebAssembly build runs, with the same results.
 */
export interface NativeMd5 {
  /** The CPU has AVX-512F and AVX-512VL; when false the functions throw. */
  supported: boolean;
  /** `state`: A of lanes 0–3, then B, C, D; lane i takes the first `blocks` 64-byte blocks of `bi`. */
  md5x4(state: Uint32Array, b0: Uint8Array, b1: Uint8Array, b2: Uint8Array, b3: Uint8Array, blocks: number): void;
  /** `state`: A, B, C, D of one stream, updated with the first `blocks` 64-byte blocks of `b`. */
  md5x1(state: Uint32Array, b: Uint8Array, blocks: number): void;
}

/** The addon's path when it is built and runs on this CPU; undefined otherwise (the WebAssembly build runs). */
export function nativeMd5Path(): string | undefined {
  const addon = loadAddon('md5x4');
  return addon !== undefined && (addon.exports as NativeMd5).supported ? addon.path : undefined;
}

/** The addon, loaded (tests and `npm run bench:md5`); undefined where {@link nativeMd5Path} is. */
export function loadNativeMd5(): NativeMd5 | undefined {
  return nativeMd5Path() === undefined ? undefined : loadAddon('md5x4')!.exports as NativeMd5;
}
