// weft/sharedmemory.h: one shared memory imported by instances of two
// stores on two threads, which count into it with atomics and wake each
// other with wait/notify; growth seen by wasm and the host; shared memories
// exported by instances; handles, clones and misuse.
#include "weft_common.h"
#include <pthread.h>

static const char *USER_WAT =
    "(module\n"
    "  (import \"env\" \"mem\" (memory 1 4 shared))\n"
    "  (func (export \"count\") (param $n i32)\n"
    "    (loop $l\n"
    "      (drop (i32.atomic.rmw.add (i32.const 128) (i32.const 1)))\n"
    "      (local.set $n (i32.sub (local.get $n) (i32.const 1)))\n"
    "      (br_if $l (local.get $n))))\n"
    "  (func (export \"wait\") (result i32)\n"
    "    (memory.atomic.wait32 (i32.const 64) (i32.const 0) (i64.const -1)))\n"
    "  (func (export \"notify\") (result i32)\n"
    "    (memory.atomic.notify (i32.const 64) (i32.const 1)))\n"
    "  (func (export \"size\") (result i32) (memory.size)))\n";

#define COUNT 100000

static wasm_engine_t *engine;
static weft_module_t *module;
static weft_sharedmemory_t *memory;

// A store with an instance of the user module importing `memory`.
static weft_store_t *instantiate(weft_instance_t *instance) {
  weft_store_t *store = weft_store_new(engine, NULL, NULL);
  weft_context_t *cx = weft_store_context(store);
  weft_linker_t *linker = weft_linker_new(engine);
  weft_extern_t item;
  item.kind = WEFT_EXTERN_SHAREDMEMORY;
  item.of.sharedmemory = memory;
  check_ok(weft_linker_define(linker, cx, "env", 3, "mem", 3, &item), "define");
  wasm_trap_t *trap = NULL;
  check_ok(weft_linker_instantiate(linker, cx, module, instance, &trap), "instantiate");
  check(trap == NULL);
  weft_linker_delete(linker);
  return store;
}

// Calls export `name` with `nargs` arguments; its one i32 result, or 0 when
// `nresults` is 0.
static int32_t call(weft_context_t *cx, const weft_instance_t *instance, const char *name, const weft_val_t *args,
                    size_t nargs, size_t nresults) {
  weft_func_t f = get_func(cx, instance, name);
  weft_val_t result = {.kind = WEFT_I32, .of.i32 = 0};
  wasm_trap_t *trap = NULL;
  check_ok(weft_func_call(cx, &f, args, nargs, &result, nresults, &trap), name);
  check(trap == NULL);
  return result.of.i32;
}

static void *counter(void *arg) {
  (void)arg;
  weft_instance_t instance;
  weft_store_t *store = instantiate(&instance);
  weft_val_t n = {.kind = WEFT_I32, .of.i32 = COUNT};
  call(weft_store_context(store), &instance, "count", &n, 1, 0);
  weft_store_delete(store);
  return NULL;
}

static void *waiter(void *arg) {
  weft_instance_t instance;
  weft_store_t *store = instantiate(&instance);
  *(int32_t *)arg = call(weft_store_context(store), &instance, "wait", NULL, 0, 1);
  weft_store_delete(store);
  return NULL;
}

int main(void) {
  wasm_config_t *config = wasm_config_new();
  weft_config_shared_memory_set(config, true);
  engine = wasm_engine_new_with_config(config);

  wasm_memorytype_t *ty = NULL;
  check_ok(weft_memorytype_new(1, true, 4, false, true, 16, &ty), "memorytype_new");
  check_ok(weft_sharedmemory_new(engine, ty, &memory), "sharedmemory_new");
  wasm_memorytype_t *got = weft_sharedmemory_type(memory);
  uint64_t max = 0;
  check(weft_memorytype_isshared(got) && weft_memorytype_maximum(got, &max) && max == 4);
  printf("shared memory: %llu page(s), %zu bytes\n", (unsigned long long)weft_sharedmemory_size(memory),
         weft_sharedmemory_data_size(memory));
  wasm_memorytype_delete(got);

  // Misuse.
  wasm_memorytype_t *plain = NULL;
  check_ok(weft_memorytype_new(1, true, 4, false, false, 16, &plain), "memorytype_new");
  weft_sharedmemory_t *bad = NULL;
  check(error_contains(weft_sharedmemory_new(engine, plain, &bad), "shared"));
  // An engine without the shared-memory switch refuses, as Wasmtime's does.
  wasm_engine_t *no_shared = wasm_engine_new();
  check(error_contains(weft_sharedmemory_new(no_shared, ty, &bad), "Config::shared_memory"));
  wasm_engine_delete(no_shared);
#ifndef WEFT_CORRECT_USE_ONLY
  check(error_contains(weft_sharedmemory_new(NULL, ty, &bad), "engine"));
  check(error_contains(weft_sharedmemory_grow(NULL, 1, NULL), "memory"));
  check(weft_sharedmemory_data(NULL) == NULL && weft_sharedmemory_size(NULL) == 0);
  check(weft_sharedmemory_clone(NULL) == NULL && weft_sharedmemory_type(NULL) == NULL);
  weft_sharedmemory_delete(NULL);
#endif
  wasm_memorytype_delete(plain);

  module = compile_wat(engine, USER_WAT);

  // Two threads, two stores, one counter.
  pthread_t a, b;
  pthread_create(&a, NULL, counter, NULL);
  pthread_create(&b, NULL, counter, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  uint8_t *data = weft_sharedmemory_data(memory);
  int32_t total = __atomic_load_n((int32_t *)(data + 128), __ATOMIC_SEQ_CST);
  printf("counter after 2 threads x %d: %d\n", COUNT, total);

  // A waiter on another thread, woken by a notify from this one.
  int32_t woken_with = -1;
  pthread_create(&a, NULL, waiter, &woken_with);
  weft_instance_t instance;
  weft_store_t *store = instantiate(&instance);
  weft_context_t *cx = weft_store_context(store);
  int32_t notified = 0;
  while (notified == 0) notified = call(cx, &instance, "notify", NULL, 0, 1);
  pthread_join(a, NULL);
  printf("notify woke %d waiter, which returned %d\n", notified, woken_with);

  // Growth: by the host, seen by wasm; the data never moves.
  uint64_t prev = 0;
  check_ok(weft_sharedmemory_grow(memory, 2, &prev), "grow");
  printf("grew from %llu pages; wasm sees %d\n", (unsigned long long)prev, call(cx, &instance, "size", NULL, 0, 1));
  check(weft_sharedmemory_data(memory) == data);
  check(weft_sharedmemory_data_size(memory) == 3 * 65536);
  check(error_contains(weft_sharedmemory_grow(memory, 2, &prev), "at most 4"));

  // A clone is the same memory.
  weft_sharedmemory_t *clone = weft_sharedmemory_clone(memory);
  check(weft_sharedmemory_data(clone) == data && weft_sharedmemory_size(clone) == 3);
  weft_sharedmemory_delete(clone);

  // An instance's shared memory comes back as an owned shared memory.
  weft_module_t *definer = compile_wat(engine, "(module (memory (export \"m\") 2 3 shared))");
  weft_instance_t defined;
  wasm_trap_t *trap = NULL;
  weft_linker_t *linker = weft_linker_new(engine);
  check_ok(weft_linker_instantiate(linker, cx, definer, &defined, &trap), "instantiate definer");
  weft_extern_t item;
  check(weft_instance_export_get(cx, &defined, "m", 1, &item));
  check(item.kind == WEFT_EXTERN_SHAREDMEMORY && item.of.sharedmemory != NULL);
  printf("exported shared memory: %llu page(s)\n", (unsigned long long)weft_sharedmemory_size(item.of.sharedmemory));
  weft_extern_delete(&item);
  WEFT_ONLY(check(item.of.sharedmemory == NULL)); // Weft clears a deleted extern
  weft_linker_delete(linker);
  weft_module_delete(definer);

  weft_store_delete(store);
  weft_module_delete(module);
  weft_sharedmemory_delete(memory);
  wasm_memorytype_delete(ty);
  wasm_engine_delete(engine);
  printf("done\n");
  return 0;
}
