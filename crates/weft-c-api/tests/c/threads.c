// One engine and one module shared by threads, each with its own store:
// every thread instantiates the module and calls back into the host.
#include "common.h"
#include <pthread.h>

#define N_THREADS 8
#define N_REPS 20

static wasm_engine_t *engine;
static wasm_shared_module_t *shared;
static int counts[N_THREADS];

static wasm_trap_t *hello(void *env, const wasm_val_vec_t *args, wasm_val_vec_t *results) {
  int id = args->data[0].of.i32;
  check(id == *(int *)env);
  counts[id]++;
  return NULL;
}

static void *run(void *arg) {
  int id = *(int *)arg;
  for (int rep = 0; rep < N_REPS; ++rep) {
    wasm_store_t *store = wasm_store_new(engine);
    wasm_module_t *module = wasm_module_obtain(store, shared);
    check(module != NULL);

    wasm_functype_t *hello_type = wasm_functype_new_1_0(wasm_valtype_new_i32());
    wasm_func_t *func = wasm_func_new_with_env(store, hello_type, hello, arg, NULL);
    wasm_functype_delete(hello_type);
    wasm_globaltype_t *global_type = wasm_globaltype_new(wasm_valtype_new_i32(), WASM_CONST);
    wasm_val_t val = WASM_I32_VAL(id);
    wasm_global_t *global = wasm_global_new(store, global_type, &val);
    wasm_globaltype_delete(global_type);

    wasm_extern_t *imports[] = {wasm_func_as_extern(func), wasm_global_as_extern(global)};
    wasm_extern_vec_t import_vec = WASM_ARRAY_VEC(imports);
    wasm_instance_t *instance = wasm_instance_new(store, module, &import_vec, NULL);
    check(instance != NULL);
    wasm_extern_vec_t exports;
    wasm_instance_exports(instance, &exports);
    wasm_val_vec_t none = WASM_EMPTY_VEC;
    check(wasm_func_call(export_func(&exports, 0), &none, &none) == NULL);

    wasm_extern_vec_delete(&exports);
    wasm_instance_delete(instance);
    wasm_func_delete(func);
    wasm_global_delete(global);
    wasm_module_delete(module);
    wasm_store_delete(store);
  }
  return NULL;
}

int main(void) {
  printf("Initializing...\n");
  engine = wasm_engine_new();
  wasm_store_t *store = wasm_store_new(engine);
  wasm_module_t *module = load_module(store, "threads.wasm");
  shared = wasm_module_share(module);
  wasm_module_delete(module);
  wasm_store_delete(store);

  printf("Running %d threads...\n", N_THREADS);
  pthread_t threads[N_THREADS];
  int ids[N_THREADS];
  for (int i = 0; i < N_THREADS; ++i) {
    ids[i] = i;
    check(pthread_create(&threads[i], NULL, run, &ids[i]) == 0);
  }
  for (int i = 0; i < N_THREADS; ++i) check(pthread_join(threads[i], NULL) == 0);
  for (int i = 0; i < N_THREADS; ++i) check(counts[i] == N_REPS);
  printf("> every thread called back %d times\n", N_REPS);

  wasm_shared_module_delete(shared);
  wasm_engine_delete(engine);
  printf("Done.\n");
  return 0;
}
