// The classic first program: a host function called from wasm.
#include "common.h"

static int calls = 0;

static wasm_trap_t *hello_callback(const wasm_val_vec_t *args, wasm_val_vec_t *results) {
  printf("Calling back...\n");
  printf("> Hello World!\n");
  check(args->size == 0 && results->size == 0);
  calls++;
  return NULL;
}

int main(void) {
  printf("Initializing...\n");
  wasm_engine_t *engine = wasm_engine_new();
  wasm_store_t *store = wasm_store_new(engine);

  printf("Loading binary...\n");
  printf("Compiling module...\n");
  wasm_module_t *module = load_module(store, "hello.wasm");

  printf("Creating callback...\n");
  wasm_functype_t *hello_type = wasm_functype_new_0_0();
  wasm_func_t *hello_func = wasm_func_new(store, hello_type, hello_callback);
  wasm_functype_delete(hello_type);

  printf("Instantiating module...\n");
  wasm_extern_t *imports[] = {wasm_func_as_extern(hello_func)};
  wasm_extern_vec_t import_vec = WASM_ARRAY_VEC(imports);
  wasm_trap_t *trap = NULL;
  wasm_instance_t *instance = wasm_instance_new(store, module, &import_vec, &trap);
  check(instance != NULL && trap == NULL);

  printf("Extracting export...\n");
  wasm_extern_vec_t exports;
  wasm_instance_exports(instance, &exports);
  check(exports.size == 1);
  const wasm_func_t *run_func = export_func(&exports, 0);
  check(wasm_func_param_arity(run_func) == 0 && wasm_func_result_arity(run_func) == 0);

  wasm_module_delete(module);
  wasm_instance_delete(instance);

  printf("Calling export...\n");
  wasm_val_vec_t args = WASM_EMPTY_VEC;
  wasm_val_vec_t results = WASM_EMPTY_VEC;
  check(wasm_func_call(run_func, &args, &results) == NULL);
  check(calls == 1);

  wasm_extern_vec_delete(&exports);
  wasm_func_delete(hello_func);

  printf("Shutting down...\n");
  wasm_store_delete(store);
  wasm_engine_delete(engine);
  printf("Done.\n");
  return 0;
}
