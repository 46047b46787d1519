// A funcref table: elements from wasm and the host, indirect calls, growth.
#include "common.h"

static const wasm_func_t *call_indirect;

static int32_t call(int32_t arg, int32_t index, int *trapped) {
  wasm_val_t as[2] = {WASM_I32_VAL(arg), WASM_I32_VAL(index)};
  wasm_val_t rs[1] = {WASM_INIT_VAL};
  wasm_val_vec_t args = WASM_ARRAY_VEC(as), results = WASM_ARRAY_VEC(rs);
  wasm_trap_t *trap = wasm_func_call(call_indirect, &args, &results);
  *trapped = trap != NULL;
  if (trap) wasm_trap_delete(trap);
  return rs[0].of.i32;
}

static wasm_trap_t *neg_callback(const wasm_val_vec_t *args, wasm_val_vec_t *results) {
  results->data[0] = (wasm_val_t)WASM_I32_VAL(-args->data[0].of.i32);
  return NULL;
}

int main(void) {
  printf("Initializing...\n");
  wasm_engine_t *engine = wasm_engine_new();
  wasm_store_t *store = wasm_store_new(engine);
  wasm_module_t *module = load_module(store, "table.wasm");
  wasm_extern_vec_t imports = WASM_EMPTY_VEC;
  wasm_instance_t *instance = wasm_instance_new(store, module, &imports, NULL);
  check(instance != NULL);
  wasm_extern_vec_t exports;
  wasm_instance_exports(instance, &exports);
  wasm_table_t *table = wasm_extern_as_table(exports.data[0]);
  check(table != NULL);
  call_indirect = export_func(&exports, 1);
  wasm_func_t *f = wasm_extern_as_func(exports.data[2]);
  wasm_func_t *g = wasm_extern_as_func(exports.data[3]);
  int trapped;

  printf("Creating callback...\n");
  wasm_functype_t *neg_type = wasm_functype_new_1_1(wasm_valtype_new_i32(), wasm_valtype_new_i32());
  wasm_func_t *h = wasm_func_new(store, neg_type, neg_callback);
  wasm_functype_delete(neg_type);

  printf("Checking table...\n");
  check(wasm_table_size(table) == 2);
  check(wasm_table_get(table, 0) == NULL);
  wasm_ref_t *e1 = wasm_table_get(table, 1);
  check(e1 != NULL && wasm_ref_same(e1, wasm_func_as_ref(f)));
  check(wasm_func_same(wasm_ref_as_func(e1), f));
  wasm_ref_delete(e1);
  check(wasm_table_get(table, 2) == NULL);
  check(call(7, 1, &trapped) == 7 && !trapped);
  call(7, 0, &trapped);
  check(trapped);
  call(7, 2, &trapped);
  check(trapped);

  printf("Mutating table...\n");
  check(wasm_table_set(table, 0, wasm_func_as_ref(g)));
  check(wasm_table_set(table, 1, NULL));
  check(!wasm_table_set(table, 2, wasm_func_as_ref(f)));
  check(call(7, 0, &trapped) == 666 && !trapped);
  call(7, 1, &trapped);
  check(trapped);
  check(wasm_table_set(table, 1, wasm_func_as_ref(h)));
  check(call(5, 1, &trapped) == -5 && !trapped);
  printf("> host function in the table: %d\n", call(5, 1, &trapped));

  printf("Growing table...\n");
  check(wasm_table_grow(table, 3, wasm_func_as_ref(f)));
  check(wasm_table_size(table) == 5);
  check(call(9, 4, &trapped) == 9 && !trapped);
  check(wasm_table_grow(table, 5, NULL));
  check(wasm_table_size(table) == 10);
  check(!wasm_table_grow(table, 1, NULL));
  check(wasm_table_grow(table, 0, NULL));

  printf("Creating stand-alone table...\n");
  wasm_limits_t limits = {5, 5};
  wasm_tabletype_t *tabletype = wasm_tabletype_new(wasm_valtype_new_funcref(), &limits);
  check(wasm_valtype_kind(wasm_tabletype_element(tabletype)) == WASM_FUNCREF);
  check(wasm_tabletype_limits(tabletype)->min == 5);
  wasm_table_t *table2 = wasm_table_new(store, tabletype, wasm_func_as_ref(h));
  check(table2 != NULL && wasm_table_size(table2) == 5);
  wasm_ref_t *e = wasm_table_get(table2, 4);
  check(wasm_ref_same(e, wasm_func_as_ref(h)));
  wasm_ref_delete(e);
  check(!wasm_table_grow(table2, 1, NULL));
  wasm_tabletype_delete(tabletype);
  wasm_table_delete(table2);

  wasm_func_delete(h);
  wasm_extern_vec_delete(&exports);
  wasm_instance_delete(instance);
  wasm_module_delete(module);
  printf("Shutting down...\n");
  wasm_store_delete(store);
  wasm_engine_delete(engine);
  printf("Done.\n");
  return 0;
}
