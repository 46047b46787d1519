// Host references (foreign objects) through externref globals, tables and
// function calls: they come back as the same object with the same host info.
#include "common.h"

static wasm_trap_t *callback(const wasm_val_vec_t *args, wasm_val_vec_t *results) {
  printf("Calling back...\n> %p\n", args->data[0].of.ref ? wasm_ref_get_host_info(args->data[0].of.ref) : NULL);
  wasm_val_copy(&results->data[0], &args->data[0]);
  return NULL;
}

static const wasm_func_t *global_set, *global_get, *table_set, *table_get, *func_call;

static wasm_ref_t *call_r_r(const wasm_func_t *f, wasm_ref_t *r) {
  wasm_val_t as[1] = {WASM_REF_VAL(r)};
  wasm_val_t rs[1] = {WASM_INIT_VAL};
  wasm_val_vec_t args = WASM_ARRAY_VEC(as), results = WASM_ARRAY_VEC(rs);
  check(wasm_func_call(f, &args, &results) == NULL);
  return rs[0].of.ref;
}

static void call_v_r(const wasm_func_t *f, wasm_ref_t *r) {
  wasm_val_t as[1] = {WASM_REF_VAL(r)};
  wasm_val_vec_t args = WASM_ARRAY_VEC(as), results = WASM_EMPTY_VEC;
  check(wasm_func_call(f, &args, &results) == NULL);
}

static wasm_ref_t *call_r_v(const wasm_func_t *f) {
  wasm_val_t rs[1] = {WASM_INIT_VAL};
  wasm_val_vec_t args = WASM_EMPTY_VEC, results = WASM_ARRAY_VEC(rs);
  check(wasm_func_call(f, &args, &results) == NULL);
  return rs[0].of.ref;
}

static void call_v_ir(const wasm_func_t *f, int32_t i, wasm_ref_t *r) {
  wasm_val_t as[2] = {WASM_I32_VAL(i), WASM_REF_VAL(r)};
  wasm_val_vec_t args = WASM_ARRAY_VEC(as), results = WASM_EMPTY_VEC;
  check(wasm_func_call(f, &args, &results) == NULL);
}

static wasm_ref_t *call_r_i(const wasm_func_t *f, int32_t i) {
  wasm_val_t as[1] = {WASM_I32_VAL(i)};
  wasm_val_t rs[1] = {WASM_INIT_VAL};
  wasm_val_vec_t args = WASM_ARRAY_VEC(as), results = WASM_ARRAY_VEC(rs);
  check(wasm_func_call(f, &args, &results) == NULL);
  return rs[0].of.ref;
}

// Checks that `actual` is `expected` (both may be null), then deletes it.
static void check_ref(wasm_ref_t *actual, const wasm_ref_t *expected) {
  check(wasm_ref_same(actual, expected));
  if (actual != NULL) {
    check(wasm_ref_get_host_info(actual) == wasm_ref_get_host_info(expected));
    wasm_ref_delete(actual);
  }
}

int main(void) {
  printf("Initializing...\n");
  wasm_engine_t *engine = wasm_engine_new();
  wasm_store_t *store = wasm_store_new(engine);
  wasm_module_t *module = load_module(store, "hostref.wasm");

  wasm_functype_t *ty = wasm_functype_new_1_1(wasm_valtype_new_externref(), wasm_valtype_new_externref());
  wasm_func_t *f = wasm_func_new(store, ty, callback);
  wasm_functype_delete(ty);
  wasm_extern_t *imports[] = {wasm_func_as_extern(f)};
  wasm_extern_vec_t import_vec = WASM_ARRAY_VEC(imports);
  wasm_instance_t *instance = wasm_instance_new(store, module, &import_vec, NULL);
  check(instance != NULL);
  wasm_func_delete(f);

  wasm_extern_vec_t exports;
  wasm_instance_exports(instance, &exports);
  wasm_global_t *global = wasm_extern_as_global(exports.data[0]);
  wasm_table_t *table = wasm_extern_as_table(exports.data[1]);
  global_set = export_func(&exports, 2);
  global_get = export_func(&exports, 3);
  table_set = export_func(&exports, 4);
  table_get = export_func(&exports, 5);
  func_call = export_func(&exports, 6);

  printf("Creating references...\n");
  wasm_ref_t *host1 = wasm_foreign_as_ref(wasm_foreign_new(store));
  wasm_ref_t *host2 = wasm_foreign_as_ref(wasm_foreign_new(store));
  wasm_ref_set_host_info(host1, (void *)1);
  wasm_ref_set_host_info(host2, (void *)2);
  check(wasm_ref_as_foreign(host1) != NULL);
  check(wasm_ref_as_func(host1) == NULL);
  check(!wasm_ref_same(host1, host2));
  wasm_ref_t *host1_copy = wasm_ref_copy(host1);
  check_ref(host1_copy, host1);

  printf("Accessing global...\n");
  check_ref(call_r_v(global_get), NULL);
  call_v_r(global_set, host1);
  check_ref(call_r_v(global_get), host1);
  call_v_r(global_set, host2);
  check_ref(call_r_v(global_get), host2);
  call_v_r(global_set, NULL);
  check_ref(call_r_v(global_get), NULL);

  wasm_val_t val;
  wasm_global_get(global, &val);
  check(val.kind == WASM_EXTERNREF && val.of.ref == NULL);
  val = (wasm_val_t)WASM_REF_VAL(host2);
  val.kind = WASM_EXTERNREF;
  wasm_global_set(global, &val);
  check_ref(call_r_v(global_get), host2);
  wasm_global_get(global, &val);
  check(val.kind == WASM_EXTERNREF);
  check_ref(val.of.ref, host2);

  printf("Accessing table...\n");
  check_ref(call_r_i(table_get, 0), NULL);
  check_ref(call_r_i(table_get, 1), NULL);
  call_v_ir(table_set, 0, host1);
  call_v_ir(table_set, 1, host2);
  check_ref(call_r_i(table_get, 0), host1);
  check_ref(call_r_i(table_get, 1), host2);
  call_v_ir(table_set, 0, NULL);
  check_ref(call_r_i(table_get, 0), NULL);
  check(wasm_table_get(table, 2) == NULL);
  check(wasm_table_set(table, 2, host1));
  check_ref(call_r_i(table_get, 2), host1);
  check_ref(wasm_table_get(table, 2), host1);

  printf("Accessing function...\n");
  check_ref(call_r_r(func_call, NULL), NULL);
  check_ref(call_r_r(func_call, host1), host1);
  check_ref(call_r_r(func_call, host2), host2);

  wasm_ref_delete(host1);
  wasm_ref_delete(host2);
  wasm_extern_vec_delete(&exports);
  wasm_instance_delete(instance);
  wasm_module_delete(module);
  printf("Shutting down...\n");
  wasm_store_delete(store);
  wasm_engine_delete(engine);
  printf("Done.\n");
  return 0;
}
