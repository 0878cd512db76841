/*
 * MD5 (RFC 1321) of four independent streams at once, one per 32-bit lane of a 128-bit vector, as a Node-API addon
 * for the MD5 worker (server/src/storage/erasure/md5-worker-source.ts). The worker's WebAssembly build of the same
 * four-lane function (md5-wasm.ts) is what runs where this addon is absent or the CPU lacks AVX-512VL.
 *
 * Why native: a step of MD5 needs the previous step's result, so four streams hash in the time of one step chain.
 * WebAssembly's 128-bit SIMD has no rotate and no three-input logic, so each step's chain is and, xor, add, two shifts
 * and an or, add (six or seven cycles); AVX-512VL has VPTERNLOGD (any function of three inputs in one instruction)
 * and VPROLD (a rotate), so the chain is ternlog, add, rotate, add. Measured on the project's machine: 2.5–2.6 GiB/s
 * over four streams against 2.07 for the WebAssembly build, and the worker hashes the transferred batches where they
 * lie instead of copying them into WebAssembly memory first (docs/performance.md, thirty-eighth session).
 *
 * Exports: `supported` (boolean: the CPU has AVX-512F and AVX-512VL; when false the functions throw),
 * `md5x4(state, b0, b1, b2, b3, blocks)`: `state` a Uint32Array of 16 (A of lanes 0–3, then B, C, D), `bi` Uint8Arrays
 * of at least 64 × blocks bytes, lane i updated with the first `blocks` 64-byte blocks of `bi`.
 * `md5x1(state, b, blocks)`: `state` a Uint32Array of 4 (A, B, C, D), one stream (run in all four lanes: the same
 * time as one, ~0.65 GiB/s, OpenSSL's speed here).
 */
#include "napi-args.h"
#include <immintrin.h>
#include <stdint.h>
#include <stdbool.h>

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
static void md5x4(uint32_t st[16], const uint8_t *p0, const uint8_t *p1, const uint8_t *p2, const uint8_t *p3, size_t n) {
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

/* The CPU has AVX-512F and AVX-512VL: probed once, when the addon loads. */
static bool avx512vl;

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
    napi_throw_type_error(env, NULL, "md5x4: blocks must be a non-negative integer");
    return false;
  }
  *out = n;
  return true;
}

static napi_value Md5x4(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  if (!args_get(env, info, 6, argv, "md5x4(state, b0, b1, b2, b3, blocks)")) return NULL;
  if (!avx512vl) { napi_throw_error(env, NULL, "md5x4: this CPU lacks AVX-512VL"); return NULL; }
  size_t n;
  if (!blocks_arg(env, argv[5], &n)) return NULL;
  uint32_t *st = typed(env, argv[0], napi_uint32_array, 16, "md5x4: state must be a Uint32Array of 16");
  if (st == NULL) return NULL;
  const uint8_t *p[4];
  for (int i = 0; i < 4; i++) {
    p[i] = typed(env, argv[1 + i], napi_uint8_array, 64 * n, "md5x4: each lane needs a Uint8Array of 64 × blocks bytes");
    if (p[i] == NULL) return NULL;
  }
  md5x4(st, p[0], p[1], p[2], p[3], n);
  return NULL;
}

static napi_value Md5x1(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  if (!args_get(env, info, 3, argv, "md5x1(state, b, blocks)")) return NULL;
  if (!avx512vl) { napi_throw_error(env, NULL, "md5x1: this CPU lacks AVX-512VL"); return NULL; }
  size_t n;
  if (!blocks_arg(env, argv[2], &n)) return NULL;
  uint32_t *st = typed(env, argv[0], napi_uint32_array, 4, "md5x1: state must be a Uint32Array of 4");
  if (st == NULL) return NULL;
  const uint8_t *p = typed(env, argv[1], napi_uint8_array, 64 * n, "md5x1: the data needs a Uint8Array of 64 × blocks bytes");
  if (p == NULL) return NULL;
  uint32_t lanes[16];
  for (int w = 0; w < 4; w++) for (int i = 0; i < 4; i++) lanes[4 * w + i] = st[w];
  md5x4(lanes, p, p, p, p, n);
  for (int w = 0; w < 4; w++) st[w] = lanes[4 * w];
  return NULL;
}

NAPI_MODULE_INIT() {
  __builtin_cpu_init();
  avx512vl = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
  args_export(env, exports, "md5x4", Md5x4);
  args_export(env, exports, "md5x1", Md5x1);
  napi_value flag;
  napi_get_boolean(env, avx512vl, &flag);
  napi_set_named_property(env, exports, "supported", flag);
  return exports;
}
