/*
 * Argument checks shared by the server's Node-API addons (the .c files beside it): each reads its arguments through these,
 * so that a wrong call from JavaScript is a TypeError with the function's usage, never a read past a buffer.
 */
#ifndef SVC_NAPI_ARGS_H
#define SVC_NAPI_ARGS_H
#define NAPI_VERSION 8
#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>

/* The call's first `n` arguments into argv; false (a TypeError naming `usage` pending) when fewer were given. */
static inline bool args_get(napi_env env, napi_callback_info info, size_t n, napi_value *argv, const char *usage) {
  size_t argc = n;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < n) {
    napi_throw_type_error(env, NULL, usage);
    return false;
  }
  return true;
}

/* A typed array of type `want`: its data (at its offset) and its element count; false when `v` is anything else. */
static inline bool args_typed(napi_env env, napi_value v, napi_typedarray_type want, void **data, size_t *length) {
  bool is = false;
  napi_typedarray_type type;
  if (napi_is_typedarray(env, v, &is) != napi_ok || !is) return false;
  return napi_get_typedarray_info(env, v, &type, length, data, NULL, NULL) == napi_ok && type == want;
}

/* A whole number from 0 to 2^32 - 1; false when `v` is anything else. */
static inline bool args_u32(napi_env env, napi_value v, uint32_t *out) {
  double d;
  if (napi_get_value_double(env, v, &d) != napi_ok || !(d >= 0) || d > 4294967295.0 || d != (double)(uint32_t)d) return false;
  *out = (uint32_t)d;
  return true;
}

/* Sets exports[name] to a function calling `cb`. */
static inline void args_export(napi_env env, napi_value exports, const char *name, napi_callback cb) {
  napi_value fn;
  napi_create_function(env, name, NAPI_AUTO_LENGTH, cb, NULL, &fn);
  napi_set_named_property(env, exports, name, fn);
}

#endif
