// Several parameters and results, through a host function that reverses.
#include "common.h"

static wasm_trap_t *callback(const wasm_val_vec_t *args, wasm_val_vec_t *results) {
  printf("Calling back...\n> %d %lld %lld %d\n", args->data[0].of.i32, (long long)args->data[1].of.i64,
         (long long)args->data[2].of.i64, args->data[3].of.i32);
  for (size_t i = 0; i < 4; ++i) wasm_val_copy(&results->data[i], &args->data[3 - i]);
  return NULL;
}

int main(void) {
  printf("Initializing...\n");
  wasm_engine_t *engine = wasm_engine_new();
  wasm_store_t *store = wasm_store_new(engine);
  wasm_module_t *module = load_module(store, "multi.wasm");

  wasm_valtype_t *ps[4] = {wasm_valtype_new_i32(), wasm_valtype_new_i64(), wasm_valtype_new_i64(),
                           wasm_valtype_new_i32()};
  wasm_valtype_t *rs[4] = {wasm_valtype_new_i32(), wasm_valtype_new_i64(), wasm_valtype_new_i64(),
                           wasm_valtype_new_i32()};
  wasm_valtype_vec_t params, results;
  wasm_valtype_vec_new(&params, 4, ps);
  wasm_valtype_vec_new(&results, 4, rs);
  wasm_functype_t *type = wasm_functype_new(&params, &results);
  check(params.size == 0 && results.size == 0);
  check(wasm_functype_params(type)->size == 4);
  wasm_func_t *f = wasm_func_new(store, type, callback);
  wasm_functype_delete(type);

  // The host function alone: results in reverse order.
  wasm_val_t direct_args[4] = {WASM_I32_VAL(1), WASM_I64_VAL(2), WASM_I64_VAL(3), WASM_I32_VAL(4)};
  wasm_val_t direct_results[4];
  wasm_val_vec_t da = WASM_ARRAY_VEC(direct_args), dr = WASM_ARRAY_VEC(direct_results);
  check(wasm_func_call(f, &da, &dr) == NULL);
  check(direct_results[0].of.i32 == 4 && direct_results[3].of.i32 == 1);

  wasm_extern_t *imports[] = {wasm_func_as_extern(f)};
  wasm_extern_vec_t import_vec = WASM_ARRAY_VEC(imports);
  wasm_instance_t *instance = wasm_instance_new(store, module, &import_vec, NULL);
  check(instance != NULL);
  wasm_extern_vec_t exports;
  wasm_instance_exports(instance, &exports);
  const wasm_func_t *g = export_func(&exports, 0);

  printf("Calling export...\n");
  wasm_val_t as[4] = {WASM_I32_VAL(1), WASM_I64_VAL(2), WASM_I64_VAL(3), WASM_I32_VAL(4)};
  wasm_val_t out[4] = {WASM_INIT_VAL, WASM_INIT_VAL, WASM_INIT_VAL, WASM_INIT_VAL};
  wasm_val_vec_t args = WASM_ARRAY_VEC(as), res = WASM_ARRAY_VEC(out);
  check(wasm_func_call(g, &args, &res) == NULL);
  printf("Printing result...\n> %d %lld %lld %d\n", out[0].of.i32, (long long)out[1].of.i64,
         (long long)out[2].of.i64, out[3].of.i32);
  check(out[0].kind == WASM_I32 && out[1].kind == WASM_I64 && out[2].kind == WASM_I64 && out[3].kind == WASM_I32);

  // A mistyped argument is a trap, not a crash.
  as[1] = (wasm_val_t)WASM_I32_VAL(2);
  wasm_trap_t *trap = wasm_func_call(g, &args, &res);
  check(trap != NULL);
  wasm_trap_delete(trap);

  wasm_extern_vec_delete(&exports);
  wasm_instance_delete(instance);
  wasm_func_delete(f);
  wasm_module_delete(module);
  printf("Shutting down...\n");
  wasm_store_delete(store);
  wasm_engine_delete(engine);
  printf("Done.\n");
  return 0;
}
