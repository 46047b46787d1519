// Globals defined by the host and by wasm, read and written from both.
#include "common.h"

static wasm_val_t call0(const wasm_func_t *f) {
  wasm_val_t rs[1] = {WASM_INIT_VAL};
  wasm_val_vec_t args = WASM_EMPTY_VEC, results = WASM_ARRAY_VEC(rs);
  check(wasm_func_call(f, &args, &results) == NULL);
  return rs[0];
}

static void call1(const wasm_func_t *f, wasm_val_t v) {
  wasm_val_t as[1] = {v};
  wasm_val_vec_t args = WASM_ARRAY_VEC(as), results = WASM_EMPTY_VEC;
  check(wasm_func_call(f, &args, &results) == NULL);
}

static wasm_val_t get(const wasm_global_t *g) {
  wasm_val_t v;
  wasm_global_get(g, &v);
  return v;
}

int main(void) {
  printf("Initializing...\n");
  wasm_engine_t *engine = wasm_engine_new();
  wasm_store_t *store = wasm_store_new(engine);
  wasm_module_t *module = load_module(store, "global.wasm");

  printf("Creating globals...\n");
  wasm_globaltype_t *const_i64_type = wasm_globaltype_new(wasm_valtype_new_i64(), WASM_CONST);
  wasm_globaltype_t *var_i32_type = wasm_globaltype_new(wasm_valtype_new_i32(), WASM_VAR);
  wasm_val_t v1 = WASM_I64_VAL(1), v2 = WASM_I32_VAL(2);
  wasm_global_t *const_i64 = wasm_global_new(store, const_i64_type, &v1);
  wasm_global_t *var_i32 = wasm_global_new(store, var_i32_type, &v2);
  check(const_i64 && var_i32);
  // A value of the wrong type is refused.
  check(wasm_global_new(store, const_i64_type, &v2) == NULL);
  wasm_globaltype_delete(const_i64_type);
  wasm_globaltype_delete(var_i32_type);

  wasm_globaltype_t *t = wasm_global_type(var_i32);
  check(wasm_globaltype_mutability(t) == WASM_VAR);
  check(wasm_valtype_kind(wasm_globaltype_content(t)) == WASM_I32);
  wasm_globaltype_delete(t);

  printf("Instantiating module...\n");
  wasm_extern_t *imports[] = {wasm_global_as_extern(const_i64), wasm_global_as_extern(var_i32)};
  wasm_extern_vec_t import_vec = WASM_ARRAY_VEC(imports);
  wasm_instance_t *instance = wasm_instance_new(store, module, &import_vec, NULL);
  check(instance != NULL);

  printf("Extracting exports...\n");
  wasm_extern_vec_t exports;
  wasm_instance_exports(instance, &exports);
  check(exports.size == 7);
  wasm_global_t *const_f64 = wasm_extern_as_global(exports.data[0]);
  wasm_global_t *var_i64 = wasm_extern_as_global(exports.data[1]);
  check(const_f64 && var_i64);
  check(wasm_extern_kind(exports.data[0]) == WASM_EXTERN_GLOBAL);
  check(wasm_extern_as_func(exports.data[0]) == NULL);
  const wasm_func_t *get_const_i64 = export_func(&exports, 2);
  const wasm_func_t *get_var_i32 = export_func(&exports, 3);
  const wasm_func_t *set_var_i32 = export_func(&exports, 4);
  const wasm_func_t *get_var_i64 = export_func(&exports, 5);
  const wasm_func_t *set_var_i64 = export_func(&exports, 6);

  printf("Accessing globals...\n");
  check(get(const_i64).of.i64 == 1);
  check(call0(get_const_i64).of.i64 == 1);
  check(get(const_f64).kind == WASM_F64 && get(const_f64).of.f64 == 5.0);
  check(get(var_i32).of.i32 == 2 && call0(get_var_i32).of.i32 == 2);
  check(get(var_i64).of.i64 == 7 && call0(get_var_i64).of.i64 == 7);

  // From the host.
  wasm_val_t v21 = WASM_I32_VAL(21), v27 = WASM_I64_VAL(27);
  wasm_global_set(var_i32, &v21);
  wasm_global_set(var_i64, &v27);
  check(call0(get_var_i32).of.i32 == 21);
  check(call0(get_var_i64).of.i64 == 27);
  printf("> var i32 = %d, var i64 = %lld\n", get(var_i32).of.i32, (long long)get(var_i64).of.i64);

  // A constant global and a mistyped value are left alone.
  wasm_val_t v9 = WASM_F64_VAL(9.0);
  wasm_global_set(const_f64, &v9);
  check(get(const_f64).of.f64 == 5.0);
  wasm_global_set(var_i32, &v27);
  check(get(var_i32).of.i32 == 21);

  // From wasm.
  call1(set_var_i32, (wasm_val_t)WASM_I32_VAL(31));
  call1(set_var_i64, (wasm_val_t)WASM_I64_VAL(37));
  check(get(var_i32).of.i32 == 31);
  check(get(var_i64).of.i64 == 37);
  printf("> var i32 = %d, var i64 = %lld\n", get(var_i32).of.i32, (long long)get(var_i64).of.i64);

  // Two references to one global are the same; others are not.
  wasm_global_t *copy = wasm_global_copy(var_i32);
  check(wasm_global_same(copy, var_i32));
  check(!wasm_global_same(copy, const_i64));
  wasm_global_delete(copy);

  wasm_extern_vec_delete(&exports);
  wasm_instance_delete(instance);
  wasm_module_delete(module);
  wasm_global_delete(const_i64);
  wasm_global_delete(var_i32);
  printf("Shutting down...\n");
  wasm_store_delete(store);
  wasm_engine_delete(engine);
  printf("Done.\n");
  return 0;
}
