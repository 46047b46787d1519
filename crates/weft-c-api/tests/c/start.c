// A start function that traps fails the instantiation with that trap.
#include "common.h"

int main(void) {
  printf("Initializing...\n");
  wasm_engine_t *engine = wasm_engine_new();
  wasm_store_t *store = wasm_store_new(engine);
  wasm_module_t *module = load_module(store, "start.wasm");

  printf("Instantiating module...\n");
  wasm_extern_vec_t imports = WASM_EMPTY_VEC;
  wasm_trap_t *trap = NULL;
  wasm_instance_t *instance = wasm_instance_new(store, module, &imports, &trap);
  check(instance == NULL && trap != NULL);

  printf("Printing message...\n");
  wasm_message_t message;
  wasm_trap_message(trap, &message);
  check(strstr(message.data, "unreachable") != NULL);
  printf("> contains \"unreachable\"\n");
  wasm_name_delete(&message);

  printf("Printing origin...\n");
  wasm_frame_t *frame = wasm_trap_origin(trap);
  check(frame != NULL);
  printf("> func index %u\n", wasm_frame_func_index(frame));
  wasm_frame_delete(frame);

  printf("Printing trace...\n");
  wasm_frame_vec_t trace;
  wasm_trap_trace(trap, &trace);
  printf("> %zu frame(s)\n", trace.size);
  wasm_frame_vec_delete(&trace);
  wasm_trap_delete(trap);

  // Too many imports is a link error, reported as a trap too.
  wasm_functype_t *ty = wasm_functype_new_0_0();
  wasm_extern_vec_t one;
  wasm_extern_vec_new_uninitialized(&one, 1);
  check(one.data[0] == NULL);
  trap = NULL;
  check(wasm_instance_new(store, module, &one, &trap) == NULL && trap != NULL);
  wasm_trap_delete(trap);
  wasm_extern_vec_delete(&one);
  wasm_functype_delete(ty);

  wasm_module_delete(module);
  printf("Shutting down...\n");
  wasm_store_delete(store);
  wasm_engine_delete(engine);
  printf("Done.\n");
  return 0;
}
