/*
 * The bitrot hash (HighwayHash-256, highwayhash.h) of a shard chunk computed while the chunk's bytes are copied into
 * the erasure block, as a Node-API addon for server/src/storage/bitrot/hasher.ts (`copyStream`).
 *
 * Why: a large PUT copies each body piece into its block and then hashed it from there with highwayhasher
 * (erasure/encode.ts); the two passes cost the event loop ~10–16 ms per 64 MiB object where one pass that loads each
 * 32 bytes once, stores them and hashes them costs ~6.5 (docs/performance.md, thirty-eighth session).
 *
 * A stream's state lives in a Uint8Array of STATE_BYTES owned by JavaScript. Exports: `stateBytes`, `supported`
 * (AVX2; when false the functions throw), `init(state, key)` (32-byte key), `append(state, data)`,
 * `copyIn(state, src, dst)` (copies src into dst, of at least its length, and appends it), `digest(state, out)`
 * (32 bytes into out; the state is left as it was).
 */
#include "napi-args.h"
#include "highwayhash.h"

/* The stream: the hash state, the bytes of an unfinished 32-byte packet. */
typedef struct {
  hh_state s;
  uint8_t part[32];
  uint32_t plen;
  uint32_t magic;
} stream_t;

#define MAGIC 0x53564842u /* "SVHB": a state init() has set up */

static bool avx2;

static stream_t *state_arg(napi_env env, napi_value v, bool fresh) {
  uint8_t *p;
  size_t n;
  if (!args_typed(env, v, napi_uint8_array, (void **)&p, &n) || n < sizeof(stream_t) || ((uintptr_t)p % 8) != 0) {
    napi_throw_type_error(env, NULL, "bitrot: the state must be an 8-byte aligned Uint8Array of stateBytes");
    return NULL;
  }
  stream_t *st = (stream_t *)p;
  if (!fresh && (st->magic != MAGIC || st->plen >= 32)) {
    napi_throw_type_error(env, NULL, "bitrot: the state was not set up by init()");
    return NULL;
  }
  return st;
}

__attribute__((target("avx2")))
static void stream_update(stream_t *st, const uint8_t *src, uint8_t *dst, size_t n) {
  if (st->plen != 0) {
    size_t take = 32 - st->plen < n ? 32 - st->plen : n;
    if (dst != NULL) { memcpy(dst, src, take); dst += take; }
    memcpy(st->part + st->plen, src, take);
    st->plen += (uint32_t)take;
    src += take;
    n -= take;
    if (st->plen < 32) return;
    hh_update_packets(&st->s, st->part, NULL, 1);
    st->plen = 0;
  }
  size_t whole = n / 32;
  hh_update_packets(&st->s, src, dst, whole);
  if (dst != NULL) dst += whole * 32;
  src += whole * 32;
  n -= whole * 32;
  if (n != 0) {
    if (dst != NULL) memcpy(dst, src, n);
    memcpy(st->part, src, n);
    st->plen = (uint32_t)n;
  }
}

/* The prelude of every call but init: `n` arguments, the CPU, a state init() has set up (the first argument). */
static stream_t *stream_call(napi_env env, napi_callback_info info, size_t n, napi_value *argv, const char *usage) {
  if (!args_get(env, info, n, argv, usage)) return NULL;
  if (!avx2) { napi_throw_error(env, NULL, "bitrot: this CPU lacks AVX2"); return NULL; }
  return state_arg(env, argv[0], false);
}

static napi_value Init(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  if (!args_get(env, info, 2, argv, "init(state, key)")) return NULL;
  if (!avx2) { napi_throw_error(env, NULL, "bitrot: this CPU lacks AVX2"); return NULL; }
  stream_t *st = state_arg(env, argv[0], true);
  uint8_t *key;
  size_t nkey;
  if (st == NULL) return NULL;
  if (!args_typed(env, argv[1], napi_uint8_array, (void **)&key, &nkey) || nkey != 32) {
    napi_throw_type_error(env, NULL, "init: the key must be a Uint8Array of 32 bytes");
    return NULL;
  }
  memset(st, 0, sizeof *st);
  hh_reset(&st->s, key);
  st->magic = MAGIC;
  return NULL;
}

static napi_value Append(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  stream_t *st = stream_call(env, info, 2, argv, "append(state, data)");
  uint8_t *data;
  size_t n;
  if (st == NULL) return NULL;
  if (!args_typed(env, argv[1], napi_uint8_array, (void **)&data, &n)) {
    napi_throw_type_error(env, NULL, "append: the data must be a Uint8Array");
    return NULL;
  }
  stream_update(st, data, NULL, n);
  return NULL;
}

static napi_value CopyIn(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  stream_t *st = stream_call(env, info, 3, argv, "copyIn(state, src, dst)");
  uint8_t *src, *dst;
  size_t nsrc, ndst;
  if (st == NULL) return NULL;
  if (!args_typed(env, argv[1], napi_uint8_array, (void **)&src, &nsrc)
      || !args_typed(env, argv[2], napi_uint8_array, (void **)&dst, &ndst) || ndst < nsrc) {
    napi_throw_type_error(env, NULL, "copyIn: src and dst must be Uint8Arrays, dst at least as long as src");
    return NULL;
  }
  /* Overlapping memory would hash bytes the copy has already changed. */
  if (nsrc != 0 && src < dst + nsrc && dst < src + nsrc) {
    napi_throw_range_error(env, NULL, "copyIn: src and dst overlap");
    return NULL;
  }
  stream_update(st, src, dst, nsrc);
  return NULL;
}

static napi_value Digest(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  stream_t *st = stream_call(env, info, 2, argv, "digest(state, out)");
  uint8_t *out;
  size_t n;
  if (st == NULL) return NULL;
  if (!args_typed(env, argv[1], napi_uint8_array, (void **)&out, &n) || n < 32) {
    napi_throw_type_error(env, NULL, "digest: out must be a Uint8Array of at least 32 bytes");
    return NULL;
  }
  hh_finalize256(&st->s, st->part, st->plen, out);
  return NULL;
}

NAPI_MODULE_INIT() {
  __builtin_cpu_init();
  avx2 = __builtin_cpu_supports("avx2");
  args_export(env, exports, "init", Init);
  args_export(env, exports, "append", Append);
  args_export(env, exports, "copyIn", CopyIn);
  args_export(env, exports, "digest", Digest);
  napi_value v;
  napi_create_uint32(env, (uint32_t)sizeof(stream_t), &v);
  napi_set_named_property(env, exports, "stateBytes", v);
  napi_get_boolean(env, avx2, &v);
  napi_set_named_property(env, exports, "supported", v);
  return exports;
}
