import { loadAddon } from '../../common/index.js';

/**
 * MD5 of one, two or four streams at once in C (server/native/md5x4.c, built by scripts/build-native.sh): it hashes
 * the MD5 worker's batches where they lie, and four streams ran at ~2.5 GiB/s on the cores measured (Sapphire Rapids,
 * Zen 5) where the WebAssembly build of md5-wasm.ts reached 1.4–2.1. Used by the MD5 worker when built; otherwise
 * the WebAssembly build runs, with the same results.
 */
export interface NativeMd5 {
  /** What md5x4 runs: the faster on this CPU of vector lanes (AVX-512VL) and interleaved scalar chains, timed at load. */
  lanes: 'avx512' | 'scalar';
  /** `state`: A of lanes 0–3, then B, C, D; lane i takes the first `blocks` 64-byte blocks of `bi`. */
  md5x4(state: Uint32Array, b0: Uint8Array, b1: Uint8Array, b2: Uint8Array, b3: Uint8Array, blocks: number): void;
  /** md5x4 for lanes 0 and 1 of the same state (lanes 2 and 3 untouched). */
  md5x2(state: Uint32Array, b0: Uint8Array, b1: Uint8Array, blocks: number): void;
  /** `state`: A, B, C, D of one stream, updated with the first `blocks` 64-byte blocks of `b`. */
  md5x1(state: Uint32Array, b: Uint8Array, blocks: number): void;
  /** md5x4 with scalar chains, whatever `lanes` chose (tests, `npm run bench:md5`). */
  md5x4Scalar: NativeMd5['md5x4'];
  /** md5x4 with AVX-512VL lanes; only where the CPU has them. */
  md5x4Avx512?: NativeMd5['md5x4'];
}

/**
 * The addon's path when it is built and loads (its scalar code runs on any x86-64 CPU, its vector lanes only where
 * the CPU has AVX-512VL); undefined otherwise (the WebAssembly build runs).
 */
export function nativeMd5Path(): string | undefined {
  return loadAddon('md5x4')?.path;
}

/** The addon, loaded (tests and `npm run bench:md5`); undefined where {@link nativeMd5Path} is. */
export function loadNativeMd5(): NativeMd5 | undefined {
  return nativeMd5Path() === undefined ? undefined : loadAddon('md5x4')!.exports as NativeMd5;
}
