// weft_config_host_memory_creator_set: linear memories live in memory the
// host makes (asked for a reservation and no guard), data segments are
// copied into it, every access is bounds-checked, growth goes through the
// host, and the host's failures are errors.
//
// The creator maps the reservation and the guard it is asked for as
// inaccessible and opens the accessible size, as a creator written for
// Wasmtime does (Wasmtime asks for its 4 GiB reservation and 32 MiB guard
// and relies on them; Weft asks for the memory's maximum and no guard).
#define _DEFAULT_SOURCE
#include "weft_common.h"
#include <sys/mman.h>

static const char *WAT = "(module\n"
                         "  (memory (export \"mem\") 1 3)\n"
                         "  (data (i32.const 10) \"hi\")\n"
                         "  (func (export \"load\") (param i32) (result i32) (i32.load8_u (local.get 0)))\n"
                         "  (func (export \"grow\") (param i32) (result i32) (memory.grow (local.get 0))))\n";

struct creator {
  int made, freed, finalized, grows;
  bool fail;
  uint8_t *last_base;
};

struct memory {
  struct creator *creator;
  uint8_t *base;
  size_t size, capacity, mapped;
};

// Makes the first `size` bytes of `m` readable and writable.
static bool open_up_to(struct memory *m, size_t size) {
  return size == 0 || mprotect(m->base, size, PROT_READ | PROT_WRITE) == 0;
}

static uint8_t *memory_get(void *env, size_t *byte_size, size_t *byte_capacity) {
  struct memory *m = env;
  *byte_size = m->size;
  *byte_capacity = m->capacity;
  return m->base;
}

static weft_error_t *memory_grow(void *env, size_t new_size) {
  struct memory *m = env;
  m->creator->grows++;
  if (new_size > m->capacity) return weft_error_new("past the reservation");
  if (!open_up_to(m, new_size)) return weft_error_new("mprotect failed");
  m->size = new_size;
  return NULL;
}

static void memory_free(void *env) {
  struct memory *m = env;
  m->creator->freed++;
  munmap(m->base, m->mapped);
  free(m);
}

static weft_error_t *new_memory(void *env, const wasm_memorytype_t *ty, size_t minimum, size_t maximum,
                                size_t reserved, size_t guard, weft_linear_memory_t *memory_ret) {
  struct creator *c = env;
  if (c->fail) return weft_error_new("the host is out of memories");
  printf("asked: %llu page(s), minimum %zu, maximum %zu", (unsigned long long)weft_memorytype_minimum(ty), minimum,
         maximum);
  WEFT_ONLY(printf(", reserved %zu, guard %zu", reserved, guard));
  printf("\n");
  size_t capacity = reserved != 0 ? reserved : minimum;
  struct memory *m = malloc(sizeof *m);
  m->creator = c;
  m->mapped = capacity + guard == 0 ? 1 : capacity + guard;
  m->base = mmap(NULL, m->mapped, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  check(m->base != MAP_FAILED);
  check(open_up_to(m, minimum));
  m->size = minimum;
  m->capacity = capacity;
  c->made++;
  c->last_base = m->base;
  memory_ret->env = m;
  memory_ret->get_memory = memory_get;
  memory_ret->grow_memory = memory_grow;
  memory_ret->finalizer = memory_free;
  return NULL;
}

static void creator_finalize(void *env) {
  struct creator *c = env;
  c->finalized++;
}

static wasm_engine_t *engine_with(struct creator *c) {
  wasm_config_t *config = wasm_config_new();
  weft_memory_creator_t creator = {.env = c, .new_memory = new_memory, .finalizer = creator_finalize};
  weft_config_host_memory_creator_set(config, &creator);
#ifdef WEFT_CORRECT_USE_ONLY
  // Wasmtime 48 panics ("memory_image is Some only for mmap-based memories")
  // when a module with data segments meets a host memory creator and
  // copy-on-write initialization, its default; Weft takes both.
  weft_config_memory_init_cow_set(config, false);
#endif
  return wasm_engine_new_with_config(config);
}

static int32_t call1(weft_context_t *cx, const weft_func_t *f, int32_t x, wasm_trap_t **trap) {
  weft_val_t arg = {.kind = WEFT_I32, .of.i32 = x};
  weft_val_t res = {.kind = WEFT_I32, .of.i32 = 0};
  *trap = NULL;
  check_ok(weft_func_call(cx, f, &arg, 1, &res, 1, trap), "call");
  return res.of.i32;
}

int main(void) {
  struct creator c = {0};
  wasm_engine_t *engine = engine_with(&c);
  weft_module_t *module = compile_wat(engine, WAT);
  weft_store_t *store = weft_store_new(engine, NULL, NULL);
  weft_context_t *cx = weft_store_context(store);
  weft_instance_t inst;
  wasm_trap_t *trap = NULL;
  check_ok(weft_instance_new(cx, module, NULL, 0, &inst, &trap), "instance_new");
  check(trap == NULL);
  weft_extern_t item;
  check(weft_instance_export_get(cx, &inst, "mem", 3, &item));
  check(item.kind == WEFT_EXTERN_MEMORY);
  weft_memory_t mem = item.of.memory;
  printf("memory is the host's: %d, size %zu\n", weft_memory_data(cx, &mem) == c.last_base,
         weft_memory_data_size(cx, &mem));

  weft_func_t load = get_func(cx, &inst, "load");
  weft_func_t grow = get_func(cx, &inst, "grow");
  printf("load(10) = '%c'\n", (char)call1(cx, &load, 10, &trap));
  c.last_base[20] = 42;
  printf("load(20) = %d\n", call1(cx, &load, 20, &trap));
  // One byte past the end traps, though the host's block is larger.
  call1(cx, &load, 65536, &trap);
  check(trap_contains(trap, "out of bounds"));
  int32_t g1 = call1(cx, &grow, 1, &trap);
  int32_t g5 = call1(cx, &grow, 5, &trap);
  printf("grow(1) = %d, grow(5) = %d, host grows %d\n", g1, g5, c.grows);
  printf("load(65536) = %d, base kept: %d\n", call1(cx, &load, 65536, &trap), weft_memory_data(cx, &mem) == c.last_base);

  // A memory the host makes through the API is the creator's too, as
  // Wasmtime's documentation of with_host_memory says (Wasmtime 48 itself
  // makes such memories without the creator).
#ifndef WEFT_CORRECT_USE_ONLY
  wasm_memorytype_t *ty = NULL;
  check_ok(weft_memorytype_new(2, true, 2, false, false, 16, &ty), "memorytype_new");
  weft_memory_t m2;
  check_ok(weft_memory_new(cx, ty, &m2), "memory_new");
  wasm_memorytype_delete(ty);
  printf("made %d, second is the host's: %d\n", c.made, weft_memory_data(cx, &m2) == c.last_base);
#endif

  weft_store_delete(store);
  printf("freed %d\n", c.freed);
  weft_module_delete(module);
  wasm_engine_delete(engine);
  printf("creator finalized %d\n", c.finalized);

  // A failing creator fails instantiation.
  struct creator failing = {.fail = true};
  engine = engine_with(&failing);
  module = compile_wat(engine, WAT);
  store = weft_store_new(engine, NULL, NULL);
  check(error_contains(weft_instance_new(weft_store_context(store), module, NULL, 0, &inst, &trap),
                       "the host is out of memories"));
  weft_store_delete(store);
  weft_module_delete(module);
  wasm_engine_delete(engine);
  return 0;
}
