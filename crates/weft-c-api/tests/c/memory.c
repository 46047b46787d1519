// A memory exported by wasm and one made by the host: reads, writes,
// growth and out-of-bounds traps.
#include "common.h"

static const wasm_func_t *size_func, *load_func, *store_func;

static int32_t call(const wasm_func_t *f, int n, int32_t a, int32_t b, int *trapped) {
  wasm_val_t as[2] = {WASM_I32_VAL(a), WASM_I32_VAL(b)};
  wasm_val_t rs[1] = {WASM_INIT_VAL};
  wasm_val_vec_t args = {(size_t)n, as};
  wasm_val_vec_t results = {wasm_func_result_arity(f), rs};
  wasm_trap_t *trap = wasm_func_call(f, &args, &results);
  *trapped = trap != NULL;
  if (trap) wasm_trap_delete(trap);
  return rs[0].of.i32;
}

int main(void) {
  printf("Initializing...\n");
  wasm_engine_t *engine = wasm_engine_new();
  wasm_store_t *store = wasm_store_new(engine);
  wasm_module_t *module = load_module(store, "memory.wasm");
  wasm_extern_vec_t imports = WASM_EMPTY_VEC;
  wasm_instance_t *instance = wasm_instance_new(store, module, &imports, NULL);
  check(instance != NULL);

  wasm_extern_vec_t exports;
  wasm_instance_exports(instance, &exports);
  wasm_memory_t *memory = wasm_extern_as_memory(exports.data[0]);
  check(memory != NULL);
  size_func = export_func(&exports, 1);
  load_func = export_func(&exports, 2);
  store_func = export_func(&exports, 3);
  int trapped;

  printf("Checking memory...\n");
  check(wasm_memory_size(memory) == 2);
  check(wasm_memory_data_size(memory) == 0x20000);
  check(wasm_memory_data(memory)[0] == 0);
  check(wasm_memory_data(memory)[0x1000] == 1);
  check(wasm_memory_data(memory)[0x1003] == 4);
  check(call(size_func, 0, 0, 0, &trapped) == 2 && !trapped);
  check(call(load_func, 1, 0x1002, 0, &trapped) == 3 && !trapped);
  check(call(load_func, 1, 0x1ffff, 0, &trapped) == 0 && !trapped);
  call(load_func, 1, 0x20000, 0, &trapped);
  check(trapped);

  printf("Mutating memory...\n");
  wasm_memory_data(memory)[0x1003] = 5;
  call(store_func, 2, 0x1002, 7, &trapped);
  check(!trapped);
  call(store_func, 2, 0x20000, 0, &trapped);
  check(trapped);
  check(wasm_memory_data(memory)[0x1002] == 7);
  check(call(load_func, 1, 0x1003, 0, &trapped) == 5);

  printf("Growing memory...\n");
  check(wasm_memory_grow(memory, 1));
  check(wasm_memory_size(memory) == 3);
  check(wasm_memory_data_size(memory) == 0x30000);
  check(call(load_func, 1, 0x20000, 0, &trapped) == 0 && !trapped);
  call(load_func, 1, 0x30000, 0, &trapped);
  check(trapped);
  check(!wasm_memory_grow(memory, 1));
  check(wasm_memory_grow(memory, 0));

  wasm_memorytype_t *mt = wasm_memory_type(memory);
  const wasm_limits_t *limits = wasm_memorytype_limits(mt);
  printf("> limits: min %u, max %u\n", limits->min, limits->max);
  wasm_memorytype_delete(mt);

  printf("Creating stand-alone memory...\n");
  wasm_limits_t lim = {5, 5};
  wasm_memorytype_t *memorytype = wasm_memorytype_new(&lim);
  wasm_memory_t *memory2 = wasm_memory_new(store, memorytype);
  check(memory2 != NULL);
  check(wasm_memory_size(memory2) == 5);
  check(!wasm_memory_grow(memory2, 1));
  check(wasm_memory_grow(memory2, 0));
  wasm_memorytype_delete(memorytype);
  wasm_memory_delete(memory2);

  wasm_extern_vec_delete(&exports);
  wasm_instance_delete(instance);
  wasm_module_delete(module);
  printf("Shutting down...\n");
  wasm_store_delete(store);
  wasm_engine_delete(engine);
  printf("Done.\n");
  return 0;
}
