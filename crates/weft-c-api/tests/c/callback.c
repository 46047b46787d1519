// Host functions with and without an environment, called from wasm.
#include "common.h"

static wasm_trap_t *print_callback(const wasm_val_vec_t *args, wasm_val_vec_t *results) {
  printf("Calling back...\n> %d\n", args->data[0].of.i32);
  check(args->size == 1 && args->data[0].kind == WASM_I32);
  check(results->size == 1);
  wasm_val_copy(&results->data[0], &args->data[0]);
  return NULL;
}

static int finalized = 0;

static void finalize_env(void *env) { finalized = *(int *)env; }

static wasm_trap_t *closure_callback(void *env, const wasm_val_vec_t *args, wasm_val_vec_t *results) {
  int i = *(int *)env;
  printf("Calling back closure...\n> %d\n", i);
  results->data[0].kind = WASM_I32;
  results->data[0].of.i32 = (int32_t)i;
  return NULL;
}

int main(void) {
  printf("Initializing...\n");
  wasm_engine_t *engine = wasm_engine_new();
  wasm_store_t *store = wasm_store_new(engine);
  wasm_module_t *module = load_module(store, "callback.wasm");

  printf("Creating callbacks...\n");
  wasm_functype_t *print_type = wasm_functype_new_1_1(wasm_valtype_new_i32(), wasm_valtype_new_i32());
  wasm_func_t *print_func = wasm_func_new(store, print_type, print_callback);
  check(wasm_func_param_arity(print_func) == 1 && wasm_func_result_arity(print_func) == 1);

  static int env = 42;
  wasm_functype_t *closure_type = wasm_functype_new_0_1(wasm_valtype_new_i32());
  wasm_func_t *closure_func = wasm_func_new_with_env(store, closure_type, closure_callback, &env, finalize_env);
  wasm_functype_delete(print_type);
  wasm_functype_delete(closure_type);

  printf("Instantiating module...\n");
  wasm_extern_t *imports[] = {wasm_func_as_extern(print_func), wasm_func_as_extern(closure_func)};
  wasm_extern_vec_t import_vec = WASM_ARRAY_VEC(imports);
  wasm_instance_t *instance = wasm_instance_new(store, module, &import_vec, NULL);
  check(instance != NULL);
  wasm_func_delete(print_func);
  wasm_func_delete(closure_func);

  printf("Extracting export...\n");
  wasm_extern_vec_t exports;
  wasm_instance_exports(instance, &exports);
  const wasm_func_t *run_func = export_func(&exports, 0);
  wasm_module_delete(module);
  wasm_instance_delete(instance);

  printf("Calling export...\n");
  wasm_val_t as[2] = {WASM_I32_VAL(3), WASM_I32_VAL(4)};
  wasm_val_t rs[1] = {WASM_INIT_VAL};
  wasm_val_vec_t args = WASM_ARRAY_VEC(as);
  wasm_val_vec_t results = WASM_ARRAY_VEC(rs);
  check(wasm_func_call(run_func, &args, &results) == NULL);

  printf("Printing result...\n> %d\n", rs[0].of.i32);
  check(rs[0].kind == WASM_I32 && rs[0].of.i32 == 49);

  // Wrong arity: a trap, not a crash.
  wasm_val_vec_t none = WASM_EMPTY_VEC;
  wasm_trap_t *trap = wasm_func_call(run_func, &none, &results);
  check(trap != NULL);
  wasm_trap_delete(trap);

  wasm_extern_vec_delete(&exports);
  check(finalized == 0);
  printf("Shutting down...\n");
  wasm_store_delete(store);
  check(finalized == 42);
  wasm_engine_delete(engine);
  printf("Done.\n");
  return 0;
}
