// Helpers of the weft.h tests.
#ifndef WEFT_TEST_WEFT_COMMON_H
#define WEFT_TEST_WEFT_COMMON_H

#include "common.h"
#include <weft.h>

// Checks of how Weft refuses misuse (null pointers, objects of another
// store, wrong kinds) and uses of Weft's own additions go in WEFT_ONLY(...)
// or inside `#ifndef WEFT_CORRECT_USE_ONLY`. scripts/against-wasmtime.sh
// defines WEFT_CORRECT_USE_ONLY to run the rest of each program against
// Wasmtime's C API, which does not make those checks, and compares the
// outputs of both runtimes.
#ifdef WEFT_CORRECT_USE_ONLY
#define WEFT_ONLY(...) ((void)0)
#else
#define WEFT_ONLY(...) __VA_ARGS__
#endif

// Fails the test, printing the error, unless `err` is NULL.
static inline void check_ok(weft_error_t *err, const char *what) {
  if (err != NULL) {
    wasm_name_t message;
    weft_error_message(err, &message);
    fprintf(stderr, "%s failed: %.*s\n", what, (int)message.size, message.data);
    wasm_byte_vec_delete(&message);
    weft_error_delete(err);
    exit(1);
  }
}

// Whether the error's message contains `needle` (under
// WEFT_CORRECT_USE_ONLY: whether there is an error, whatever its words);
// deletes the error.
#define error_contains(err, needle) error_contains_at(err, needle, __FILE__, __LINE__)
static inline bool error_contains_at(weft_error_t *err, const char *needle, const char *file, int line) {
  if (err == NULL) {
    fprintf(stderr, "%s:%d: expected an error, got none\n", file, line);
    exit(1);
  }
#ifdef WEFT_CORRECT_USE_ONLY
  needle = "";
#endif
  wasm_name_t message;
  weft_error_message(err, &message);
  char *text = malloc(message.size + 1);
  memcpy(text, message.data, message.size);
  text[message.size] = 0;
  bool found = strstr(text, needle) != NULL;
  if (!found) fprintf(stderr, "error message: %s\n", text);
  free(text);
  wasm_byte_vec_delete(&message);
  weft_error_delete(err);
  return found;
}

// Whether the trap's message contains `needle`; deletes the trap.
static inline bool trap_contains(wasm_trap_t *trap, const char *needle) {
  check(trap != NULL);
  wasm_message_t message;
  wasm_trap_message(trap, &message);
  bool found = strstr(message.data, needle) != NULL;
  if (!found) fprintf(stderr, "trap message: %s\n", message.data);
  wasm_byte_vec_delete(&message);
  wasm_trap_delete(trap);
  return found;
}

// Compiles WebAssembly text.
static inline weft_module_t *compile_wat(wasm_engine_t *engine, const char *wat) {
  wasm_byte_vec_t wasm;
  check_ok(weft_wat2wasm(wat, strlen(wat), &wasm), "wat2wasm");
  weft_module_t *module = NULL;
  check_ok(weft_module_new(engine, (const uint8_t *)wasm.data, wasm.size, &module), "module_new");
  wasm_byte_vec_delete(&wasm);
  return module;
}

// The exported function `name` of `instance`.
static inline weft_func_t get_func(weft_context_t *cx, const weft_instance_t *instance, const char *name) {
  weft_extern_t item;
  check(weft_instance_export_get(cx, instance, name, strlen(name), &item));
  check(item.kind == WEFT_EXTERN_FUNC);
  return item.of.func;
}

#endif
