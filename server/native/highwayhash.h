/*
 * HighwayHash-256 (Alakuijala, Cox, Wassenberg, "Fast keyed hash/pseudo-random function using SIMD multiply and
 * permute", 2016), the bitrot hash of every shard chunk (MinIO's, server/src/storage/bitrot/hasher.ts), so that the
 * event loop can hash a chunk's bytes while it copies them into the erasure block (bitrot.c). Written from the paper's
 * algorithm; the tests check it against the highwayhasher package the server hashes with everywhere else, byte for
 * byte, for every length and cut, and the server checks it once at start (hasher.ts). The whole 32-byte packets go through AVX2 (four 64-bit lanes, the paper's layout), the rest in C.
 */
#ifndef SVC_HIGHWAYHASH_H
#define SVC_HIGHWAYHASH_H
#include <immintrin.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>

typedef struct { uint64_t v0[4], v1[4], mul0[4], mul1[4]; } hh_state;

static inline uint64_t hh_read64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static inline void hh_reset(hh_state *s, const uint8_t key[32]) {
  static const uint64_t init0[4] = { 0xdbe6d5d5fe4cce2full, 0xa4093822299f31d0ull, 0x13198a2e03707344ull, 0x243f6a8885a308d3ull };
  static const uint64_t init1[4] = { 0x3bd39e10cb0ef593ull, 0xc0acf169b5f18a8cull, 0xbe5466cf34e90c6cull, 0x452821e638d01377ull };
  for (int i = 0; i < 4; i++) {
    uint64_t k = hh_read64(key + 8 * i);
    s->mul0[i] = init0[i];
    s->mul1[i] = init1[i];
    s->v0[i] = init0[i] ^ k;
    s->v1[i] = init1[i] ^ ((k >> 32) | (k << 32));
  }
}

/* The byte shuffle of each pair of lanes (v0 low, v1 high) that spreads the multiplications' best-mixed bytes. */
static inline void hh_zipper_add(uint64_t v1, uint64_t v0, uint64_t *add1, uint64_t *add0) {
  *add0 += (((v0 & 0xff000000ull) | (v1 & 0xff00000000ull)) >> 24) | (((v0 & 0xff0000000000ull) | (v1 & 0xff000000000000ull)) >> 16)
    | (v0 & 0xff0000ull) | ((v0 & 0xff00ull) << 32) | ((v1 & 0xff00000000000000ull) >> 8) | (v0 << 56);
  *add1 += (((v1 & 0xff000000ull) | (v0 & 0xff00000000ull)) >> 24) | (v1 & 0xff0000ull) | ((v1 & 0xff0000000000ull) >> 16)
    | ((v1 & 0xff00ull) << 24) | ((v0 & 0xff000000000000ull) >> 8) | ((v1 & 0xffull) << 48) | (v0 & 0xff00000000000000ull);
}

static inline void hh_update_lanes(hh_state *s, const uint64_t lanes[4]) {
  for (int i = 0; i < 4; i++) {
    s->v1[i] += s->mul0[i] + lanes[i];
    s->mul0[i] ^= (s->v1[i] & 0xffffffffull) * (s->v0[i] >> 32);
    s->v0[i] += s->mul1[i];
    s->mul1[i] ^= (s->v0[i] & 0xffffffffull) * (s->v1[i] >> 32);
  }
  hh_zipper_add(s->v1[1], s->v1[0], &s->v0[1], &s->v0[0]);
  hh_zipper_add(s->v1[3], s->v1[2], &s->v0[3], &s->v0[2]);
  hh_zipper_add(s->v0[1], s->v0[0], &s->v1[1], &s->v1[0]);
  hh_zipper_add(s->v0[3], s->v0[2], &s->v1[3], &s->v1[2]);
}

/* `n` whole 32-byte packets at `p`: the same update as hh_update_lanes, four lanes per instruction. With `dst`, each
   packet is also stored there: a copy and its hash that read the source once. */
__attribute__((target("avx2")))
static inline void hh_update_packets(hh_state *s, const uint8_t *p, uint8_t *dst, size_t n) {
  __m256i v0 = _mm256_loadu_si256((const void *)s->v0), v1 = _mm256_loadu_si256((const void *)s->v1);
  __m256i mul0 = _mm256_loadu_si256((const void *)s->mul0), mul1 = _mm256_loadu_si256((const void *)s->mul1);
  /* hh_zipper_add as a byte shuffle within each 128-bit half (derived from the scalar form above). */
  const __m256i zipper = _mm256_set_epi64x(0x070806090D0A040Bll, 0x000F010E05020C03ll, 0x070806090D0A040Bll, 0x000F010E05020C03ll);
  for (size_t i = 0; i < n; i++, p += 32) {
    __m256i x = _mm256_loadu_si256((const void *)p);
    if (dst != NULL) { _mm256_storeu_si256((void *)dst, x); dst += 32; }
    v1 = _mm256_add_epi64(v1, _mm256_add_epi64(mul0, x));
    mul0 = _mm256_xor_si256(mul0, _mm256_mul_epu32(v1, _mm256_srli_epi64(v0, 32)));
    v0 = _mm256_add_epi64(v0, mul1);
    mul1 = _mm256_xor_si256(mul1, _mm256_mul_epu32(v0, _mm256_srli_epi64(v1, 32)));
    v0 = _mm256_add_epi64(v0, _mm256_shuffle_epi8(v1, zipper));
    v1 = _mm256_add_epi64(v1, _mm256_shuffle_epi8(v0, zipper));
  }
  _mm256_storeu_si256((void *)s->v0, v0); _mm256_storeu_si256((void *)s->v1, v1);
  _mm256_storeu_si256((void *)s->mul0, mul0); _mm256_storeu_si256((void *)s->mul1, mul1);
}

static inline void hh_rotate32_by(uint64_t count, uint64_t lanes[4]) {
  for (int i = 0; i < 4; i++) {
    uint32_t half0 = (uint32_t)lanes[i], half1 = (uint32_t)(lanes[i] >> 32);
    if (count != 0) {
      half0 = (half0 << count) | (half0 >> (32 - count));
      half1 = (half1 << count) | (half1 >> (32 - count));
    }
    lanes[i] = half0 | ((uint64_t)half1 << 32);
  }
}

/* The last `size` (1–31) bytes: the length mixed into the state, then one packet built from the bytes. */
static inline void hh_update_remainder(hh_state *s, const uint8_t *bytes, size_t size) {
  const size_t size_mod4 = size & 3;
  const uint8_t *remainder = bytes + (size & ~(size_t)3);
  uint8_t packet[32] = { 0 };
  for (int i = 0; i < 4; i++) s->v0[i] += ((uint64_t)size << 32) + size;
  hh_rotate32_by(size, s->v1);
  memcpy(packet, bytes, (size_t)(remainder - bytes));
  if (size & 16) {
    for (int i = 0; i < 4; i++) packet[28 + i] = remainder[i + size_mod4 - 4];
  } else if (size_mod4 != 0) {
    packet[16] = remainder[0];
    packet[17] = remainder[size_mod4 >> 1];
    packet[18] = remainder[size_mod4 - 1];
  }
  uint64_t lanes[4];
  for (int i = 0; i < 4; i++) lanes[i] = hh_read64(packet + 8 * i);
  hh_update_lanes(s, lanes);
}

static inline void hh_modular_reduction(uint64_t a3_unmasked, uint64_t a2, uint64_t a1, uint64_t a0, uint64_t *m1, uint64_t *m0) {
  uint64_t a3 = a3_unmasked & 0x3FFFFFFFFFFFFFFFull;
  *m1 = a1 ^ ((a3 << 1) | (a2 >> 63)) ^ ((a3 << 2) | (a2 >> 62));
  *m0 = a0 ^ (a2 << 1) ^ (a2 << 2);
}

/* The digest of a state (left unchanged) whose last `plen` (0–31) bytes are in `part`: HighwayHash-256, four
   little-endian words. */
static inline void hh_finalize256(const hh_state *state, const uint8_t *part, size_t plen, uint8_t out[32]) {
  hh_state s = *state;
  if (plen != 0) hh_update_remainder(&s, part, plen);
  for (int r = 0; r < 10; r++) {
    const uint64_t *v = s.v0;
    uint64_t permuted[4] = { (v[2] >> 32) | (v[2] << 32), (v[3] >> 32) | (v[3] << 32), (v[0] >> 32) | (v[0] << 32), (v[1] >> 32) | (v[1] << 32) };
    hh_update_lanes(&s, permuted);
  }
  uint64_t h[4];
  hh_modular_reduction(s.v1[1] + s.mul1[1], s.v1[0] + s.mul1[0], s.v0[1] + s.mul0[1], s.v0[0] + s.mul0[0], &h[1], &h[0]);
  hh_modular_reduction(s.v1[3] + s.mul1[3], s.v1[2] + s.mul1[2], s.v0[3] + s.mul0[3], s.v0[2] + s.mul0[2], &h[3], &h[2]);
  memcpy(out, h, 32);
}

#endif
