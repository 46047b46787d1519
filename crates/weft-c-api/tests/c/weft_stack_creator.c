// weft_config_host_stack_creator_set: async calls run on stacks the host
// makes (counted, and checked to hold the host function's own frame), a
// stack is reused by later calls and finalized with the engine, and bad
// stacks are errors.
#define _POSIX_C_SOURCE 200112L
#include "weft_common.h"
#include <stdint.h>

static const char *WAT = "(module\n"
                         "  (import \"host\" \"where\" (func $where (result i32)))\n"
                         "  (func (export \"run\") (result i32) (call $where)))\n";

// Stacks are aligned to (and sized in) 64 KiB: a multiple of the page size.
#define ALIGN ((size_t)64 << 10)
#define MAX_STACKS 8

struct creator {
  int made, freed, finalized;
  size_t skew; // bytes the stack's length claims beyond its memory (to test a bad stack)
  bool fail;
  // The live stacks, for the host function's check.
  uint8_t *bottoms[MAX_STACKS];
  uint8_t *tops[MAX_STACKS];
};

struct stack {
  struct creator *creator;
  uint8_t *memory;
  size_t len;
  int slot;
};

static uint8_t *stack_get(void *env, size_t *out_len) {
  struct stack *s = env;
  *out_len = s->len;
  return s->memory + s->len + s->creator->skew;
}

static void stack_free(void *env) {
  struct stack *s = env;
  s->creator->freed++;
  s->creator->bottoms[s->slot] = NULL;
  s->creator->tops[s->slot] = NULL;
  free(s->memory);
  free(s);
}

static weft_error_t *new_stack(void *env, size_t size, bool zeroed, weft_stack_memory_t *stack_ret) {
  struct creator *c = env;
  if (c->fail) return weft_error_new("no stacks today");
  int slot = 0;
  while (slot < MAX_STACKS && c->tops[slot] != NULL) slot++;
  check(slot < MAX_STACKS);
  size_t len = (size + ALIGN - 1) / ALIGN * ALIGN;
  void *memory = NULL;
  check(posix_memalign(&memory, ALIGN, len) == 0);
  if (zeroed) memset(memory, 0, len);
  struct stack *s = malloc(sizeof *s);
  s->creator = c;
  s->memory = memory;
  s->len = len;
  s->slot = slot;
  c->bottoms[slot] = memory;
  c->tops[slot] = (uint8_t *)memory + len;
  c->made++;
  stack_ret->env = s;
  stack_ret->get_stack_memory = stack_get;
  stack_ret->finalizer = stack_free;
  return NULL;
}

static void creator_finalize(void *env) {
  struct creator *c = env;
  c->finalized++;
}

// Returns 1 when the host function's frame lies in a live stack of the creator.
static wasm_trap_t *where(void *env, weft_caller_t *caller, const weft_val_t *args, size_t nargs, weft_val_t *results,
                          size_t nresults) {
  struct creator *c = env;
  volatile uint8_t here = 0;
  uint8_t *sp = (uint8_t *)&here;
  int inside = 0;
  for (int i = 0; i < MAX_STACKS; i++)
    if (c->tops[i] != NULL && sp >= c->bottoms[i] && sp < c->tops[i]) inside = 1;
  results[0].kind = WEFT_I32;
  results[0].of.i32 = inside;
  return NULL;
}

static int drive(weft_call_future_t *future) {
  check(future != NULL);
  int polls = 1;
  while (!weft_call_future_poll(future)) polls++;
  weft_call_future_delete(future);
  return polls;
}

// Instantiates the module and calls `run` asynchronously `calls` times with
// stacks of `c`; returns the first error, or NULL.
static weft_error_t *run(struct creator *c, int calls, int *on_stack) {
  wasm_config_t *config = wasm_config_new();
  WEFT_ONLY(weft_config_async_support_set(config, true)); // no effect in Weft; not in Wasmtime 48
  weft_stack_creator_t creator = {.env = c, .new_stack = new_stack, .finalizer = creator_finalize};
  weft_config_host_stack_creator_set(config, &creator);
  wasm_engine_t *engine = wasm_engine_new_with_config(config);
  weft_module_t *module = compile_wat(engine, WAT);
  weft_linker_t *linker = weft_linker_new(engine);
  wasm_valtype_vec_t params, results;
  wasm_valtype_t *r = wasm_valtype_new(WASM_I32);
  wasm_valtype_vec_new_empty(&params);
  wasm_valtype_vec_new(&results, 1, &r);
  wasm_functype_t *ty = wasm_functype_new(&params, &results);
  check_ok(weft_linker_define_func(linker, "host", 4, "where", 5, ty, where, c, NULL), "define_func");
  wasm_functype_delete(ty);
  weft_store_t *store = weft_store_new(engine, NULL, NULL);
  weft_context_t *cx = weft_store_context(store);
  weft_instance_t inst;
  wasm_trap_t *trap = NULL;
  weft_error_t *err = NULL;
  drive(weft_linker_instantiate_async(linker, cx, module, &inst, &trap, &err));
  check(trap == NULL);
  *on_stack = 0;
  for (int i = 0; err == NULL && i < calls; i++) {
    weft_extern_t item;
    check(weft_instance_export_get(cx, &inst, "run", 3, &item));
    weft_val_t res = {.kind = WEFT_I32, .of.i32 = 0};
    drive(weft_func_call_async(cx, &item.of.func, NULL, 0, &res, 1, &trap, &err));
    check(trap == NULL);
    if (err == NULL) *on_stack += res.of.i32;
  }
  weft_store_delete(store);
  weft_linker_delete(linker);
  weft_module_delete(module);
  wasm_engine_delete(engine);
  return err;
}

int main(void) {
  struct creator c = {0};
  int on_stack = 0;
  check_ok(run(&c, 3, &on_stack), "run");
  printf("stacks made %d, freed %d, calls on them %d, creator finalized %d\n", c.made, c.freed, on_stack,
         c.finalized);

#ifndef WEFT_CORRECT_USE_ONLY
  // A stack whose top is not page-aligned (Wasmtime panics).
  struct creator bad = {.skew = 16};
  check(error_contains(run(&bad, 1, &on_stack), "aligned"));
  printf("misaligned: made %d, freed %d, finalized %d\n", bad.made, bad.freed, bad.finalized);
#endif

  // A creator that fails.
  struct creator failing = {.fail = true};
  check(error_contains(run(&failing, 1, &on_stack), "no stacks today"));
  printf("failing: finalized %d\n", failing.finalized);

  // A NULL creator is ignored.
#ifndef WEFT_CORRECT_USE_ONLY
  wasm_config_t *config = wasm_config_new();
  weft_config_host_stack_creator_set(config, NULL);
  wasm_config_delete(config);
#endif
  return 0;
}
