/**
 * `npm run bench:md5`: the MD5 functions behind a PUT's ETag (storage/erasure/md5-wasm.ts), without the server. Per
 * round, one JSON line: `md5x1` over one 1 MiB stream, `md5x4` over four (MiB/s summed over the streams) and node:crypto
 * (OpenSSL) over the same bytes; the buffers stay in the cache, so the figures are the code's, not the memory's. On the
 * thirty-sixth session's machine, with each step's additions reordered off its critical path: md5x1 540 → 707 MiB/s
 * (OpenSSL 707), md5x4 1,530 → 2,075 (docs/performance.md). Where the addon is built (md5-native.ts), the same for
 * its functions: `nativeX1MiBPerSec`, `nativeX2MiBPerSec`, `nativeX4MiBPerSec` (what the MD5 worker runs: `nativeLanes`
 * says which way), and each way of four streams alone, `nativeScalarX4MiBPerSec` and, where the CPU has AVX-512VL,
 * `nativeAvx512X4MiBPerSec` (fortieth session, a Zen 5 core: x1 ~860, x2 ~1,700, scalar x4 ~2,550, AVX-512 x4 ~1,700;
 * thirty-eighth, Sapphire Rapids: AVX-512 x4 ~2,600). BENCH_ROUNDS: rounds (5).
 */
import { createHash } from 'node:crypto';
import { instantiateMd5, RESERVED } from '../src/storage/erasure/md5-wasm.js';
import { loadNativeMd5 } from '../src/storage/erasure/md5-native.js';
import { checkOptions, envCount } from './cli-options.js';
import { emit } from './report.js';

checkOptions('bench:md5', `Usage: npm run bench:md5
The ETag's MD5 functions alone: md5x1 (one stream), md5x4 (four streams in SIMD lanes), the same in the C addon
where it is built (and its two ways of running four streams), and node:crypto, 64 MiB each per round; one JSON line
per round. BENCH_ROUNDS: rounds (5).
`, {});

const { memory, md5x1, md5x4 } = instantiateMd5();

const rounds = envCount('bench:md5', 'BENCH_ROUNDS', 5);
const STREAM = 1 << 20;
const PASSES = 64;
memory.grow((4 * STREAM) / 65536 + 1);
const base = RESERVED + 64;
new Uint8Array(memory.buffer).fill(0x5a, base, base + 4 * STREAM);
const plain = Buffer.alloc(STREAM, 0x5a);
const native = loadNativeMd5();
const lanes = [0, 1, 2, 3].map(() => Buffer.alloc(STREAM, 0x5a));

const rate = (mib: number, t0: number): number => Math.round(mib / ((performance.now() - t0) / 1000));
for (let round = 0; round < rounds; round++) {
  let t0 = performance.now();
  for (let i = 0; i < PASSES; i++) md5x1(RESERVED, base, STREAM / 64);
  const x1 = rate(PASSES, t0);
  t0 = performance.now();
  for (let i = 0; i < PASSES / 4; i++) md5x4(0, base, base + STREAM, base + 2 * STREAM, base + 3 * STREAM, STREAM / 64);
  const x4 = rate(PASSES, t0);
  t0 = performance.now();
  const h = createHash('md5');
  for (let i = 0; i < PASSES; i++) h.update(plain);
  h.digest();
  const openssl = rate(PASSES, t0);
  const fromAddon: Record<string, number | string> = {};
  if (native !== undefined) {
    const state = new Uint32Array(16);
    t0 = performance.now();
    for (let i = 0; i < PASSES; i++) native.md5x1(state, plain, STREAM / 64);
    fromAddon.nativeX1MiBPerSec = rate(PASSES, t0);
    t0 = performance.now();
    for (let i = 0; i < PASSES / 2; i++) native.md5x2(state, lanes[0]!, lanes[1]!, STREAM / 64);
    fromAddon.nativeX2MiBPerSec = rate(PASSES, t0);
    const four = (fn: NonNullable<typeof native.md5x4Avx512>): number => {
      t0 = performance.now();
      for (let i = 0; i < PASSES / 4; i++) fn(state, lanes[0]!, lanes[1]!, lanes[2]!, lanes[3]!, STREAM / 64);
      return rate(PASSES, t0);
    };
    fromAddon.nativeX4MiBPerSec = four(native.md5x4);
    fromAddon.nativeLanes = native.lanes;
    fromAddon.nativeScalarX4MiBPerSec = four(native.md5x4Scalar);
    if (native.md5x4Avx512 !== undefined) fromAddon.nativeAvx512X4MiBPerSec = four(native.md5x4Avx512);
  }
  emit({ scenario: 'md5', round, md5x1MiBPerSec: x1, md5x4MiBPerSec: x4, opensslMiBPerSec: openssl, ...fromAddon });
}
