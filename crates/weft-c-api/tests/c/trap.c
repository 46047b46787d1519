// Traps raised by the host and by wasm, with their messages and frames.
#include "common.h"

static wasm_store_t *store;

static wasm_trap_t *fail_callback(const wasm_val_vec_t *args, wasm_val_vec_t *results) {
  printf("Calling back...\n");
  wasm_message_t message;
  wasm_name_new_from_string_nt(&message, "callback abort");
  wasm_trap_t *trap = wasm_trap_new(store, &message);
  wasm_name_delete(&message);
  return trap;
}

static void print_frame(const wasm_frame_t *frame) {
  printf("> frame: func index %u\n", wasm_frame_func_index(frame));
  check(wasm_frame_module_offset(frame) >= wasm_frame_func_offset(frame));
}

int main(void) {
  printf("Initializing...\n");
  wasm_engine_t *engine = wasm_engine_new();
  store = wasm_store_new(engine);
  wasm_module_t *module = load_module(store, "trap.wasm");

  wasm_functype_t *fail_type = wasm_functype_new_0_1(wasm_valtype_new_i32());
  wasm_func_t *fail_func = wasm_func_new(store, fail_type, fail_callback);
  wasm_functype_delete(fail_type);
  wasm_extern_t *imports[] = {wasm_func_as_extern(fail_func)};
  wasm_extern_vec_t import_vec = WASM_ARRAY_VEC(imports);
  wasm_instance_t *instance = wasm_instance_new(store, module, &import_vec, NULL);
  check(instance != NULL);
  wasm_func_delete(fail_func);
  wasm_extern_vec_t exports;
  wasm_instance_exports(instance, &exports);
  check(exports.size == 2);

  // A trap made by the host keeps its message.
  wasm_message_t m;
  wasm_name_new_from_string_nt(&m, "made here");
  wasm_trap_t *own_trap = wasm_trap_new(store, &m);
  wasm_name_delete(&m);
  wasm_message_t own_message;
  wasm_trap_message(own_trap, &own_message);
  check(strcmp(own_message.data, "made here") == 0);
  check(own_message.data[own_message.size - 1] == '\0');
  check(wasm_trap_origin(own_trap) == NULL);
  wasm_name_delete(&own_message);
  wasm_trap_t *copy = wasm_trap_copy(own_trap);
  check(wasm_trap_same(copy, own_trap));
  wasm_trap_delete(copy);
  wasm_trap_delete(own_trap);

  for (size_t i = 0; i < 2; ++i) {
    const wasm_func_t *func = export_func(&exports, i);
    printf("Calling export %zu...\n", i);
    wasm_val_t rs[1] = {WASM_INIT_VAL};
    wasm_val_vec_t args = WASM_EMPTY_VEC, results = WASM_ARRAY_VEC(rs);
    wasm_trap_t *trap = wasm_func_call(func, &args, &results);
    check(trap != NULL);

    printf("Printing message...\n");
    wasm_message_t message;
    wasm_trap_message(trap, &message);
    const char *expected = i == 0 ? "callback abort" : "unreachable";
    check(strstr(message.data, expected) != NULL);
    printf("> contains \"%s\"\n", expected);

    printf("Printing origin...\n");
    wasm_frame_t *frame = wasm_trap_origin(trap);
    check(frame != NULL);
    print_frame(frame);
    wasm_frame_t *frame_copy = wasm_frame_copy(frame);
    check(wasm_frame_func_index(frame_copy) == wasm_frame_func_index(frame));
    wasm_frame_delete(frame_copy);
    wasm_frame_delete(frame);

    printf("Printing trace...\n");
    wasm_frame_vec_t trace;
    wasm_trap_trace(trap, &trace);
    check(trace.size == 1);
    for (size_t j = 0; j < trace.size; ++j) print_frame(trace.data[j]);
    wasm_frame_vec_t trace_copy;
    wasm_frame_vec_copy(&trace_copy, &trace);
    check(trace_copy.size == trace.size);
    wasm_frame_vec_delete(&trace_copy);
    wasm_frame_vec_delete(&trace);

    wasm_trap_delete(trap);
    wasm_name_delete(&message);
  }

  wasm_extern_vec_delete(&exports);
  wasm_instance_delete(instance);
  wasm_module_delete(module);
  printf("Shutting down...\n");
  wasm_store_delete(store);
  wasm_engine_delete(engine);
  printf("Done.\n");
  return 0;
}
