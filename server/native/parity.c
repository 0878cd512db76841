/*
 * Reed-Solomon parity of large blocks on the calling thread, bit for bit what @ronomon/reed-solomon computes, as a
 * Node-API addon for server/src/storage/erasure/native-parity.ts.
 *
 * The codec is a Cauchy bitmatrix code: each shard is cut into regions of `w` packets of `packet` bytes, and parity
 * packet a of shard j is the XOR of the data packets (i, c) whose bit is set in row j * w + a of the bitmatrix
 * (small-parity.ts reads those rows from the codec itself and says how). This file only does the XOR, the rows come
 * from JavaScript, and native-parity.ts uses it only after its output matched the codec's on random blocks.
 *
 * Why not the codec: it encodes on libuv's thread pool, and for a 64 MiB PUT the hand-offs (64 jobs queued under the
 * pool's lock, a thread woken for each, the loop woken again) cost the event loop ~5 ms, and the parity it writes
 * lands in another core's cache just before the event loop hashes it (HighwayHash of the parity ran at ~2.7 GiB/s
 * against ~10 for the data chunks hashed as they were copied in). Here each parity packet is computed 64 bytes at a
 * time from all its sources (each source read once, the packet written once), in the cache of the thread that hashes
 * it next (docs/performance.md, thirty-eighth session).
 *
 * Export: `encode(rows, w, packet, data, parity, chunkLen, k, m)`: `rows` an Int32Array holding, for each of the m * w
 * parity rows in order, the count of its sources and then each source as (shard, packet) pairs; `data` a Uint8Array
 * of k chunks of `chunkLen` bytes, `parity` one of m chunks, filled. `chunkLen` a multiple of w * packet, `packet` of 8.
 */
#include "napi-args.h"
#include <immintrin.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>

/* Sources of one row at most: every data packet of a region (the codec's K ≤ 24, w ≤ 8). */
#define MAX_SOURCES 1024

__attribute__((target("avx512f")))
static void xor_packet_avx512(uint8_t *dst, const uint8_t *const *src, int count, size_t n) {
  size_t b = 0;
  for (; b + 64 <= n; b += 64) {
    __m512i v = _mm512_loadu_si512((const void *)(src[0] + b));
    for (int s = 1; s < count; s++) v = _mm512_xor_si512(v, _mm512_loadu_si512((const void *)(src[s] + b)));
    _mm512_storeu_si512((void *)(dst + b), v);
  }
  for (; b + 8 <= n; b += 8) {
    uint64_t v;
    memcpy(&v, src[0] + b, 8);
    for (int s = 1; s < count; s++) { uint64_t x; memcpy(&x, src[s] + b, 8); v ^= x; }
    memcpy(dst + b, &v, 8);
  }
}

static void xor_packet_words(uint8_t *dst, const uint8_t *const *src, int count, size_t n) {
  for (size_t b = 0; b + 8 <= n; b += 8) {
    uint64_t v;
    memcpy(&v, src[0] + b, 8);
    for (int s = 1; s < count; s++) { uint64_t x; memcpy(&x, src[s] + b, 8); v ^= x; }
    memcpy(dst + b, &v, 8);
  }
}

static bool avx512;

static napi_value Encode(napi_env env, napi_callback_info info) {
  napi_value argv[8];
  if (!args_get(env, info, 8, argv, "encode(rows, w, packet, data, parity, chunkLen, k, m)")) return NULL;
  int32_t *rows;
  uint8_t *data, *parity;
  size_t nrows, ndata, nparity;
  uint32_t w, packet, chunk_len, k, m;
  if (!args_typed(env, argv[0], napi_int32_array, (void **)&rows, &nrows)
      || !args_u32(env, argv[1], &w) || !args_u32(env, argv[2], &packet)
      || !args_typed(env, argv[3], napi_uint8_array, (void **)&data, &ndata)
      || !args_typed(env, argv[4], napi_uint8_array, (void **)&parity, &nparity)
      || !args_u32(env, argv[5], &chunk_len) || !args_u32(env, argv[6], &k) || !args_u32(env, argv[7], &m)) {
    napi_throw_type_error(env, NULL, "encode: rows must be an Int32Array, data and parity Uint8Arrays, the rest whole numbers");
    return NULL;
  }
  if (w == 0 || packet == 0 || packet % 8 != 0 || k == 0 || m == 0 || (uint64_t)k * w > MAX_SOURCES || m > 256
      || chunk_len % ((uint64_t)w * packet) != 0 || ndata < (uint64_t)k * chunk_len || nparity < (uint64_t)m * chunk_len) {
    napi_throw_range_error(env, NULL, "encode: chunkLen must be a multiple of w × packet (a multiple of 8), data k and parity m chunks");
    return NULL;
  }
  /* The rows are checked whole before anything is written: every source inside the data. */
  size_t at = 0;
  for (uint32_t r = 0; r < w * m; r++) {
    if (at >= nrows) { napi_throw_range_error(env, NULL, "encode: fewer rows than m × w"); return NULL; }
    int32_t count = rows[at++];
    if (count < 0 || (uint32_t)count > k * w || at + 2 * (size_t)count > nrows) { napi_throw_range_error(env, NULL, "encode: a row runs past the rows"); return NULL; }
    for (int32_t s = 0; s < count; s++) {
      int32_t i = rows[at + 2 * s], c = rows[at + 2 * s + 1];
      if (i < 0 || (uint32_t)i >= k || c < 0 || (uint32_t)c >= w) { napi_throw_range_error(env, NULL, "encode: a source outside the data"); return NULL; }
    }
    at += 2 * (size_t)count;
  }
  const uint8_t *src[MAX_SOURCES];
  for (uint32_t off = 0; off < chunk_len; off += w * packet) {
    at = 0;
    for (uint32_t j = 0; j < m; j++) {
      for (uint32_t a = 0; a < w; a++) {
        int32_t count = rows[at++];
        for (int32_t s = 0; s < count; s++) {
          src[s] = data + (size_t)rows[at + 2 * s] * chunk_len + off + (size_t)rows[at + 2 * s + 1] * packet;
        }
        at += 2 * (size_t)count;
        uint8_t *dst = parity + (size_t)j * chunk_len + off + (size_t)a * packet;
        if (count == 0) memset(dst, 0, packet);
        else if (avx512) xor_packet_avx512(dst, src, count, packet);
        else xor_packet_words(dst, src, count, packet);
      }
    }
  }
  return NULL;
}

NAPI_MODULE_INIT() {
  __builtin_cpu_init();
  avx512 = __builtin_cpu_supports("avx512f");
  args_export(env, exports, "encode", Encode);
  return exports;
}
