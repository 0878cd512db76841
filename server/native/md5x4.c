/*
 * MD5 (RFC 1321) of up to four independent streams at once, as a Node-API addon for the MD5 worker
 * (server/src/storage/erasure/md5-worker-source.ts). The worker's WebAssembly build of the four-lane function
 * (md5-wasm.ts) is what runs where this addon is absent.
 *
 * Why several streams: a step of MD5 needs the previous step's result, so one stream is bound by the latency of a
 * step's chain and leaves most of a core idle; four streams hash in the time of one chain. Two ways to run four:
 * - one per 32-bit lane of a 128-bit vector (AVX-512VL: VPTERNLOGD computes any function of three inputs in one
 *   instruction and VPROLD rotates, so a step's chain is ternlog, add, rotate, add). Where WebAssembly's SIMD has
 *   neither, this measured 2.5-2.6 GiB/s over four streams on a Sapphire Rapids core against 2.07 (docs/performance.md,
 *   thirty-eighth session);
 * - interleaved in general-purpose registers (plain C below: four independent chains the core's ALUs run side by
 *   side). On a Zen 5 core the vector lanes reached 1.65 GiB/s, this 2.4-2.5 (fortieth session).
 * Which is faster depends on the core, so the addon times both when it loads and runs the faster (`lanes`). One or two
 * streams always run interleaved in general-purpose registers: a vector runs one stream in the time of four, ~0.42
 * GiB/s on Zen 5, where one scalar chain reaches ~0.84 and two ~1.65.
 *
 * Exports: `md5x4(state, b0, b1, b2, b3, blocks)`: `state` a Uint32Array of 16 (A of lanes 0-3, then B, C, D), `bi`
 * Uint8Arrays of at least 64 x blocks bytes, lane i updated with the first `blocks` 64-byte blocks of `bi`;
 * `md5x2(state, b0, b1, blocks)`: the same for lanes 0 and 1 of that state (lanes 2 and 3 left as they are);
 * `md5x1(state, b, blocks)`: `state` a Uint32Array of 4 (A, B, C, D), one stream;
 * `lanes`: "avx512" or "scalar", what md5x4 runs; `md5x4Scalar` and (where the CPU has AVX-512VL) `md5x4Avx512`, each
 * way alone, for tests and `npm run bench:md5`. The scalar code runs on any x86-64 CPU, so the addon runs wherever
 * it loads.
 */
#include "napi-args.h"
#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The sine table T[i] = floor(2^32 * |sin(i + 1)|) (RFC 1321 §3.4). */
static const uint32_t T[64] = {
  0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
  0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
  0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
  0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
  0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
  0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
  0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
  0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

/*
 * One step: a = b + ((a + F(b, c, d) + X[k] + T[i]) <<< s). The message word and the constant are added to a first
 * (known a step earlier), F last, so the chain from b is ternlog, add, rotate, add. The ternlog immediates are the
 * truth tables of the round functions with inputs (b, c, d) as bits (2, 1, 0) of the index: F = b ? c : d is 0xCA,
 * G = d ? b : c is 0xE4, H = b ^ c ^ d is 0x96, I = c ^ (b | ~d) is 0x39.
 */
#define STEP(IMM, a, b, c, d, k, i, s) do { \
    __m128i t_ = _mm_add_epi32(_mm_add_epi32(a, x[k]), _mm_set1_epi32((int)T[i])); \
    t_ = _mm_add_epi32(t_, _mm_ternarylogic_epi32(b, c, d, IMM)); \
    a = _mm_add_epi32(b, _mm_rol_epi32(t_, s)); \
  } while (0)
#define F(i, a, b, c, d, k, s) STEP(0xCA, a, b, c, d, k, i, s)
#define G(i, a, b, c, d, k, s) STEP(0xE4, a, b, c, d, k, i, s)
#define H(i, a, b, c, d, k, s) STEP(0x96, a, b, c, d, k, i, s)
#define I(i, a, b, c, d, k, s) STEP(0x39, a, b, c, d, k, i, s)

__attribute__((target("avx512f,avx512vl")))
static void md5x4_avx512(uint32_t st[16], const uint8_t *p0, const uint8_t *p1, const uint8_t *p2, const uint8_t *p3, size_t n) {
  __m128i a = _mm_loadu_si128((const void *)st), b = _mm_loadu_si128((const void *)(st + 4));
  __m128i c = _mm_loadu_si128((const void *)(st + 8)), d = _mm_loadu_si128((const void *)(st + 12));
  for (size_t blk = 0; blk < n; blk++) {
    /* Word k of each lane's block into lane i of x[k]: a 4 × 4 transpose per 16 bytes (words are little-endian,
       RFC 1321 §3.4, as x86 loads them). */
    __m128i x[16];
    for (int q = 0; q < 4; q++) {
      __m128i r0 = _mm_loadu_si128((const void *)(p0 + 16 * q)), r1 = _mm_loadu_si128((const void *)(p1 + 16 * q));
      __m128i r2 = _mm_loadu_si128((const void *)(p2 + 16 * q)), r3 = _mm_loadu_si128((const void *)(p3 + 16 * q));
      __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpackhi_epi32(r0, r1);
      __m128i t2 = _mm_unpacklo_epi32(r2, r3), t3 = _mm_unpackhi_epi32(r2, r3);
      x[4 * q] = _mm_unpacklo_epi64(t0, t2);
      x[4 * q + 1] = _mm_unpackhi_epi64(t0, t2);
      x[4 * q + 2] = _mm_unpacklo_epi64(t1, t3);
      x[4 * q + 3] = _mm_unpackhi_epi64(t1, t3);
    }
    __m128i aa = a, bb = b, cc = c, dd = d;
    F(0, a, b, c, d, 0, 7);   F(1, d, a, b, c, 1, 12);   F(2, c, d, a, b, 2, 17);   F(3, b, c, d, a, 3, 22);
    F(4, a, b, c, d, 4, 7);   F(5, d, a, b, c, 5, 12);   F(6, c, d, a, b, 6, 17);   F(7, b, c, d, a, 7, 22);
    F(8, a, b, c, d, 8, 7);   F(9, d, a, b, c, 9, 12);   F(10, c, d, a, b, 10, 17); F(11, b, c, d, a, 11, 22);
    F(12, a, b, c, d, 12, 7); F(13, d, a, b, c, 13, 12); F(14, c, d, a, b, 14, 17); F(15, b, c, d, a, 15, 22);
    G(16, a, b, c, d, 1, 5);  G(17, d, a, b, c, 6, 9);   G(18, c, d, a, b, 11, 14); G(19, b, c, d, a, 0, 20);
    G(20, a, b, c, d, 5, 5);  G(21, d, a, b, c, 10, 9);  G(22, c, d, a, b, 15, 14); G(23, b, c, d, a, 4, 20);
    G(24, a, b, c, d, 9, 5);  G(25, d, a, b, c, 14, 9);  G(26, c, d, a, b, 3, 14);  G(27, b, c, d, a, 8, 20);
    G(28, a, b, c, d, 13, 5); G(29, d, a, b, c, 2, 9);   G(30, c, d, a, b, 7, 14);  G(31, b, c, d, a, 12, 20);
    H(32, a, b, c, d, 5, 4);  H(33, d, a, b, c, 8, 11);  H(34, c, d, a, b, 11, 16); H(35, b, c, d, a, 14, 23);
    H(36, a, b, c, d, 1, 4);  H(37, d, a, b, c, 4, 11);  H(38, c, d, a, b, 7, 16);  H(39, b, c, d, a, 10, 23);
    H(40, a, b, c, d, 13, 4); H(41, d, a, b, c, 0, 11);  H(42, c, d, a, b, 3, 16);  H(43, b, c, d, a, 6, 23);
    H(44, a, b, c, d, 9, 4);  H(45, d, a, b, c, 12, 11); H(46, c, d, a, b, 15, 16); H(47, b, c, d, a, 2, 23);
    I(48, a, b, c, d, 0, 6);  I(49, d, a, b, c, 7, 10);  I(50, c, d, a, b, 14, 15); I(51, b, c, d, a, 5, 21);
    I(52, a, b, c, d, 12, 6); I(53, d, a, b, c, 3, 10);  I(54, c, d, a, b, 10, 15); I(55, b, c, d, a, 1, 21);
    I(56, a, b, c, d, 8, 6);  I(57, d, a, b, c, 15, 10); I(58, c, d, a, b, 6, 15);  I(59, b, c, d, a, 13, 21);
    I(60, a, b, c, d, 4, 6);  I(61, d, a, b, c, 11, 10); I(62, c, d, a, b, 2, 15);  I(63, b, c, d, a, 9, 21);
    a = _mm_add_epi32(a, aa); b = _mm_add_epi32(b, bb); c = _mm_add_epi32(c, cc); d = _mm_add_epi32(d, dd);
    p0 += 64; p1 += 64; p2 += 64; p3 += 64;
  }
  _mm_storeu_si128((void *)st, a); _mm_storeu_si128((void *)(st + 4), b);
  _mm_storeu_si128((void *)(st + 8), c); _mm_storeu_si128((void *)(st + 12), d);
}

/*
 * The same steps on 32-bit scalars, for L streams interleaved (variables aL, bL, cL, dL and pointer pL of stream L):
 * written out per stream rather than as loops over arrays, so that the compiler keeps every stream's state in
 * registers at -O2 (as loops over arrays it did so only at -O3 with unrolling: 0.55 against 1.7 GiB/s for two streams).
 * F, G and I in the forms with fewest operations: F = d ^ (b & (c ^ d)), G = c ^ (d & (b ^ c)).
 */
#define ROL(x, s) (((x) << (s)) | ((x) >> (32 - (s))))
#define SF(b, c, d) ((d) ^ ((b) & ((c) ^ (d))))
#define SG(b, c, d) ((c) ^ ((d) & ((b) ^ (c))))
#define SH(b, c, d) ((b) ^ (c) ^ (d))
#define SI(b, c, d) ((c) ^ ((b) | ~(d)))
static inline uint32_t word(const uint8_t *p, int k) {
  uint32_t v;
  memcpy(&v, p + 4 * k, 4); /* little-endian words (RFC 1321 §3.4), as x86 loads them */
  return v;
}
#define SSTEP(FN, a, b, c, d, k, i, s, L) { \
    uint32_t t_ = a##L + word(p##L, k) + T[i] + FN(b##L, c##L, d##L); \
    a##L = b##L + ROL(t_, s); \
  }
#define S1(FN, a, b, c, d, k, i, s) SSTEP(FN, a, b, c, d, k, i, s, 0)
#define S2(FN, a, b, c, d, k, i, s) S1(FN, a, b, c, d, k, i, s) SSTEP(FN, a, b, c, d, k, i, s, 1)
#define S4(FN, a, b, c, d, k, i, s) S2(FN, a, b, c, d, k, i, s) SSTEP(FN, a, b, c, d, k, i, s, 2) SSTEP(FN, a, b, c, d, k, i, s, 3)
#define SCALAR_ROUNDS(S) \
  S(SF, a, b, c, d, 0, 0, 7)   S(SF, d, a, b, c, 1, 1, 12)  S(SF, c, d, a, b, 2, 2, 17)  S(SF, b, c, d, a, 3, 3, 22) \
  S(SF, a, b, c, d, 4, 4, 7)   S(SF, d, a, b, c, 5, 5, 12)  S(SF, c, d, a, b, 6, 6, 17)  S(SF, b, c, d, a, 7, 7, 22) \
  S(SF, a, b, c, d, 8, 8, 7)   S(SF, d, a, b, c, 9, 9, 12)  S(SF, c, d, a, b, 10, 10, 17) S(SF, b, c, d, a, 11, 11, 22) \
  S(SF, a, b, c, d, 12, 12, 7) S(SF, d, a, b, c, 13, 13, 12) S(SF, c, d, a, b, 14, 14, 17) S(SF, b, c, d, a, 15, 15, 22) \
  S(SG, a, b, c, d, 1, 16, 5)  S(SG, d, a, b, c, 6, 17, 9)  S(SG, c, d, a, b, 11, 18, 14) S(SG, b, c, d, a, 0, 19, 20) \
  S(SG, a, b, c, d, 5, 20, 5)  S(SG, d, a, b, c, 10, 21, 9) S(SG, c, d, a, b, 15, 22, 14) S(SG, b, c, d, a, 4, 23, 20) \
  S(SG, a, b, c, d, 9, 24, 5)  S(SG, d, a, b, c, 14, 25, 9) S(SG, c, d, a, b, 3, 26, 14)  S(SG, b, c, d, a, 8, 27, 20) \
  S(SG, a, b, c, d, 13, 28, 5) S(SG, d, a, b, c, 2, 29, 9)  S(SG, c, d, a, b, 7, 30, 14)  S(SG, b, c, d, a, 12, 31, 20) \
  S(SH, a, b, c, d, 5, 32, 4)  S(SH, d, a, b, c, 8, 33, 11) S(SH, c, d, a, b, 11, 34, 16) S(SH, b, c, d, a, 14, 35, 23) \
  S(SH, a, b, c, d, 1, 36, 4)  S(SH, d, a, b, c, 4, 37, 11) S(SH, c, d, a, b, 7, 38, 16)  S(SH, b, c, d, a, 10, 39, 23) \
  S(SH, a, b, c, d, 13, 40, 4) S(SH, d, a, b, c, 0, 41, 11) S(SH, c, d, a, b, 3, 42, 16)  S(SH, b, c, d, a, 6, 43, 23) \
  S(SH, a, b, c, d, 9, 44, 4)  S(SH, d, a, b, c, 12, 45, 11) S(SH, c, d, a, b, 15, 46, 16) S(SH, b, c, d, a, 2, 47, 23) \
  S(SI, a, b, c, d, 0, 48, 6)  S(SI, d, a, b, c, 7, 49, 10) S(SI, c, d, a, b, 14, 50, 15) S(SI, b, c, d, a, 5, 51, 21) \
  S(SI, a, b, c, d, 12, 52, 6) S(SI, d, a, b, c, 3, 53, 10) S(SI, c, d, a, b, 10, 54, 15) S(SI, b, c, d, a, 1, 55, 21) \
  S(SI, a, b, c, d, 8, 56, 6)  S(SI, d, a, b, c, 15, 57, 10) S(SI, c, d, a, b, 6, 58, 15) S(SI, b, c, d, a, 13, 59, 21) \
  S(SI, a, b, c, d, 4, 60, 6)  S(SI, d, a, b, c, 11, 61, 10) S(SI, c, d, a, b, 2, 62, 15) S(SI, b, c, d, a, 9, 63, 21)
/*
 * GCC's SLP vectorizer packs the streams' adjacent state words into SSE registers, where a rotate is two shifts and an
 * or: two streams ran at 0.57 GiB/s that way against 1.7 in general-purpose registers. SCALAR keeps it off.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define SCALAR __attribute__((optimize("no-tree-vectorize")))
#else
#define SCALAR
#endif
/* Stream L's state in the lanes layout of md5x4 (A of lanes 0-3, then B, C, D). */
#define LOAD(L) uint32_t a##L = st[L], b##L = st[4 + L], c##L = st[8 + L], d##L = st[12 + L];
#define SAVE(L) st[L] = a##L; st[4 + L] = b##L; st[8 + L] = c##L; st[12 + L] = d##L;
#define KEEP(L) uint32_t aa##L = a##L, bb##L = b##L, cc##L = c##L, dd##L = d##L;
#define NEXT(L) a##L += aa##L; b##L += bb##L; c##L += cc##L; d##L += dd##L; p##L += 64;

SCALAR static void md5s1(uint32_t st[16], const uint8_t *p0, size_t n) {
  LOAD(0)
  for (size_t blk = 0; blk < n; blk++) { KEEP(0) SCALAR_ROUNDS(S1) NEXT(0) }
  SAVE(0)
}

SCALAR static void md5s2(uint32_t st[16], const uint8_t *p0, const uint8_t *p1, size_t n) {
  LOAD(0) LOAD(1)
  for (size_t blk = 0; blk < n; blk++) { KEEP(0) KEEP(1) SCALAR_ROUNDS(S2) NEXT(0) NEXT(1) }
  SAVE(0) SAVE(1)
}

SCALAR static void md5s4(uint32_t st[16], const uint8_t *p0, const uint8_t *p1, const uint8_t *p2, const uint8_t *p3, size_t n) {
  LOAD(0) LOAD(1) LOAD(2) LOAD(3)
  for (size_t blk = 0; blk < n; blk++) { KEEP(0) KEEP(1) KEEP(2) KEEP(3) SCALAR_ROUNDS(S4) NEXT(0) NEXT(1) NEXT(2) NEXT(3) }
  SAVE(0) SAVE(1) SAVE(2) SAVE(3)
}

typedef void (*md5x4_fn)(uint32_t st[16], const uint8_t *, const uint8_t *, const uint8_t *, const uint8_t *, size_t);

/* The CPU has AVX-512F and AVX-512VL: probed once, when the addon loads. */
static bool avx512vl;
/* What md5x4 runs: the faster of the two on this CPU, timed when the addon loads (choose_lanes). */
static md5x4_fn lanes4 = md5s4;

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The least of five timed runs of `fn` over four streams of 32 KiB each (~0.1 ms a run); runs alternate with the
   other way's in choose_lanes, so that a moment of a busy machine does not decide. */
static double timed(md5x4_fn fn, const uint8_t *buf, double best) {
  uint32_t st[16] = {0};
  double t0 = seconds();
  fn(st, buf, buf + 32768, buf + 65536, buf + 98304, 512);
  double t = seconds() - t0;
  return t < best ? t : best;
}

static void choose_lanes(void) {
  if (!avx512vl) return;
  uint8_t *buf = malloc(131072);
  if (buf == NULL) return;
  for (size_t i = 0; i < 131072; i++) buf[i] = (uint8_t)(i * 31 + (i >> 9));
  double vector = 1e9, scalar = 1e9;
  for (int run = 0; run < 5; run++) {
    vector = timed(md5x4_avx512, buf, vector);
    scalar = timed(md5s4, buf, scalar);
  }
  free(buf);
  if (vector < scalar) lanes4 = md5x4_avx512;
}

/* A typed array argument of the given type and at least `min` elements; NULL (with a pending TypeError) otherwise. */
static void *typed(napi_env env, napi_value v, napi_typedarray_type want, size_t min, const char *what) {
  void *data;
  size_t length;
  if (!args_typed(env, v, want, &data, &length) || length < min) {
    napi_throw_type_error(env, NULL, what);
    return NULL;
  }
  return data;
}

/* The block count argument: a whole number. */
static bool blocks_arg(napi_env env, napi_value v, size_t *out) {
  uint32_t n;
  if (!args_u32(env, v, &n)) {
    napi_throw_type_error(env, NULL, "md5: blocks must be a non-negative integer");
    return false;
  }
  *out = n;
  return true;
}

/*
 * The arguments of a call (state, b0 … b<lanes-1>, blocks), whose form `usage` names: the state (at least `words`
 * elements) and each lane's data (at least 64 x blocks bytes); false with a pending TypeError otherwise.
 */
static bool lane_args(napi_env env, napi_callback_info info, int lanes, size_t words, const char *usage,
                      uint32_t **st, const uint8_t *p[4], size_t *n) {
  napi_value argv[6];
  if (!args_get(env, info, (size_t)lanes + 2, argv, usage)) return false;
  if (!blocks_arg(env, argv[lanes + 1], n)) return false;
  *st = typed(env, argv[0], napi_uint32_array, words, words == 4 ? "md5x1: state must be a Uint32Array of 4" : "md5: state must be a Uint32Array of 16");
  if (*st == NULL) return false;
  for (int i = 0; i < lanes; i++) {
    p[i] = typed(env, argv[1 + i], napi_uint8_array, 64 * *n, "md5: each lane needs a Uint8Array of 64 x blocks bytes");
    if (p[i] == NULL) return false;
  }
  return true;
}

static napi_value four(napi_env env, napi_callback_info info, md5x4_fn fn) {
  uint32_t *st;
  const uint8_t *p[4];
  size_t n;
  if (lane_args(env, info, 4, 16, "md5x4(state, b0, b1, b2, b3, blocks)", &st, p, &n)) fn(st, p[0], p[1], p[2], p[3], n);
  return NULL;
}

static napi_value Md5x4(napi_env env, napi_callback_info info) { return four(env, info, lanes4); }
static napi_value Md5x4Scalar(napi_env env, napi_callback_info info) { return four(env, info, md5s4); }
static napi_value Md5x4Avx512(napi_env env, napi_callback_info info) { return four(env, info, md5x4_avx512); }

static napi_value Md5x2(napi_env env, napi_callback_info info) {
  uint32_t *st;
  const uint8_t *p[4];
  size_t n;
  if (lane_args(env, info, 2, 16, "md5x2(state, b0, b1, blocks)", &st, p, &n)) md5s2(st, p[0], p[1], n);
  return NULL;
}

static napi_value Md5x1(napi_env env, napi_callback_info info) {
  uint32_t *st;
  const uint8_t *p[4];
  size_t n;
  if (!lane_args(env, info, 1, 4, "md5x1(state, b, blocks)", &st, p, &n)) return NULL;
  uint32_t lanes[16] = { st[0], 0, 0, 0, st[1], 0, 0, 0, st[2], 0, 0, 0, st[3], 0, 0, 0 };
  md5s1(lanes, p[0], n);
  for (int w = 0; w < 4; w++) st[w] = lanes[4 * w];
  return NULL;
}

NAPI_MODULE_INIT() {
  __builtin_cpu_init();
  avx512vl = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
  choose_lanes();
  args_export(env, exports, "md5x4", Md5x4);
  args_export(env, exports, "md5x2", Md5x2);
  args_export(env, exports, "md5x1", Md5x1);
  args_export(env, exports, "md5x4Scalar", Md5x4Scalar);
  if (avx512vl) args_export(env, exports, "md5x4Avx512", Md5x4Avx512);
  napi_value v;
  napi_create_string_utf8(env, lanes4 == md5s4 ? "scalar" : "avx512", NAPI_AUTO_LENGTH, &v);
  napi_set_named_property(env, exports, "lanes", v);
  return exports;
}
