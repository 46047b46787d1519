// Host info finalizers: every one runs, once, by the time its object and
// the store it lives in are deleted.
#include "common.h"

static const int iterations = 500;
static int live_count = 0;

static void finalize(void *data) {
  intptr_t i = (intptr_t)data;
  check(i >= 0 && i <= 4 * iterations);
  --live_count;
}

static void run_in_store(wasm_store_t *store, int offset) {
  wasm_module_t *module = load_module(store, "finalize.wasm");
  wasm_module_set_host_info_with_finalizer(module, (void *)(intptr_t)(offset + iterations + 1), finalize);
  ++live_count;
  printf("Instantiating modules...\n");
  wasm_extern_vec_t imports = WASM_EMPTY_VEC;
  for (int i = 0; i < iterations; ++i) {
    wasm_instance_t *instance = wasm_instance_new(store, module, &imports, NULL);
    check(instance != NULL);
    wasm_instance_set_host_info_with_finalizer(instance, (void *)(intptr_t)(offset + i), finalize);
    ++live_count;
    check(wasm_instance_get_host_info(instance) == (void *)(intptr_t)(offset + i));
    if (i % 2 == 0) {
      // Host info belongs to the function, not to this reference to it.
      wasm_extern_vec_t exports;
      wasm_instance_exports(instance, &exports);
      wasm_func_set_host_info_with_finalizer(wasm_extern_as_func(exports.data[0]), (void *)(intptr_t)i, finalize);
      ++live_count;
      wasm_extern_vec_t again;
      wasm_instance_exports(instance, &again);
      check(wasm_func_get_host_info(wasm_extern_as_func(again.data[0])) == (void *)(intptr_t)i);
      check(wasm_memory_get_host_info(wasm_extern_as_memory(again.data[1])) == NULL);
      wasm_extern_vec_delete(&again);
      wasm_extern_vec_delete(&exports);
    }
    wasm_instance_delete(instance);
  }
  wasm_module_delete(module);
}

int main(void) {
  printf("Initializing...\n");
  wasm_engine_t *engine = wasm_engine_new();

  printf("Live count %d\n", live_count);
  printf("Creating store 1...\n");
  wasm_store_t *store1 = wasm_store_new(engine);
  printf("Running in store 1...\n");
  run_in_store(store1, 0);
  printf("Live count %d\n", live_count);

  printf("Creating store 2...\n");
  wasm_store_t *store2 = wasm_store_new(engine);
  printf("Running in store 2...\n");
  run_in_store(store2, 2 * iterations);
  printf("Live count %d\n", live_count);

  printf("Deleting store 2...\n");
  wasm_store_delete(store2);
  printf("Live count %d\n", live_count);

  printf("Running in store 1...\n");
  run_in_store(store1, iterations);
  printf("Live count %d\n", live_count);

  printf("Deleting store 1...\n");
  wasm_store_delete(store1);
  printf("Live count %d\n", live_count);
  check(live_count == 0);

  // Foreign objects and traps finalize with their last reference.
  wasm_store_t *store = wasm_store_new(engine);
  wasm_foreign_t *foreign = wasm_foreign_new(store);
  wasm_foreign_set_host_info_with_finalizer(foreign, (void *)1, finalize);
  ++live_count;
  wasm_foreign_t *foreign_copy = wasm_foreign_copy(foreign);
  wasm_foreign_delete(foreign);
  check(live_count == 1);
  check(wasm_foreign_get_host_info(foreign_copy) == (void *)1);
  wasm_foreign_delete(foreign_copy);
  check(live_count == 0);
  wasm_store_delete(store);

  wasm_engine_delete(engine);
  printf("Done.\n");
  return 0;
}
