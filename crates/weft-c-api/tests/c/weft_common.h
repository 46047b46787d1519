// Helpers of the weft.h tests.
#ifndef WEFT_TEST_WEFT_COMMON_H
#define WEFT_TEST_WEFT_COMMON_H

#include "common.h"
#include <weft.h>

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

// Whether the error's message contains `needle`; deletes the error.
static inline bool error_contains(weft_error_t *err, const char *needle) {
  check(err != NULL);
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
