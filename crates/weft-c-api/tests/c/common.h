// Helpers of Weft's C API tests.
#ifndef WEFT_TEST_COMMON_H
#define WEFT_TEST_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wasm.h>

// Fails the test with a message unless `cond` holds.
#define check(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

// Reads `path` into `out` (a new byte vector).
static inline void read_file(const char *path, wasm_byte_vec_t *out) {
  FILE *f = fopen(path, "rb");
  check(f != NULL);
  fseek(f, 0L, SEEK_END);
  size_t size = (size_t)ftell(f);
  fseek(f, 0L, SEEK_SET);
  wasm_byte_vec_new_uninitialized(out, size);
  check(fread(out->data, size, 1, f) == 1 || size == 0);
  fclose(f);
}

// Compiles the module in `path` for `store`.
static inline wasm_module_t *load_module(wasm_store_t *store, const char *path) {
  wasm_byte_vec_t binary;
  read_file(path, &binary);
  check(wasm_module_validate(store, &binary));
  wasm_module_t *module = wasm_module_new(store, &binary);
  wasm_byte_vec_delete(&binary);
  check(module != NULL);
  return module;
}

// The export `i` of `exports` as a function.
static inline wasm_func_t *export_func(const wasm_extern_vec_t *exports, size_t i) {
  check(i < exports->size);
  wasm_func_t *f = wasm_extern_as_func(exports->data[i]);
  check(f != NULL);
  return f;
}

#endif
