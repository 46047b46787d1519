// GC references through async calls (weft/async.h): an async host
// function's anyref arguments are released when its call ends, the anyref
// it returns is given to Weft, and the anyref results of an async call are
// rooted only by the handles C gets. The store's memory limit keeps the GC
// heap at 1 MiB, so a root left behind by any of them (each call makes a
// 64 KiB array) would exhaust it within 16 calls: 64 calls of each kind
// succeed only if every root is released.
#include "weft_common.h"

static const char *WAT =
    "(module\n"
    "  (type $bytes (array (mut i8)))\n"
    "  (import \"host\" \"echo\" (func $echo (param anyref) (result anyref)))\n"
    "  (func (export \"make\") (result anyref) (array.new_default $bytes (i32.const 65536)))\n"
    "  (func (export \"give\") (result i32)\n"
    "    (ref.test (ref $bytes) (call $echo (array.new_default $bytes (i32.const 65536))))))\n";

static int echoes = 0;

static bool done_now(void *env) {
  (void)env;
  return true;
}

// host.echo: returns (a new root of) its argument, after one poll.
static void host_echo(void *env, weft_caller_t *caller, const weft_val_t *args, size_t nargs, weft_val_t *results,
                      size_t nresults, wasm_trap_t **trap_ret, weft_async_continuation_t *continuation_ret) {
  (void)env;
  (void)trap_ret;
  check(caller != NULL && nargs == 1 && nresults == 1 && args[0].kind == WEFT_ANYREF);
  weft_val_clone(&args[0], &results[0]);
  echoes++;
  continuation_ret->callback = done_now;
  continuation_ret->env = NULL;
  continuation_ret->finalizer = NULL;
}

static void drive(weft_call_future_t *future) {
  check(future != NULL);
  while (!weft_call_future_poll(future)) {
  }
  weft_call_future_delete(future);
}

int main(void) {
  wasm_config_t *config = wasm_config_new();
  weft_config_wasm_gc_set(config, true);
  wasm_engine_t *engine = wasm_engine_new_with_config(config);
  weft_module_t *module = compile_wat(engine, WAT);

  weft_linker_t *linker = weft_linker_new(engine);
  wasm_functype_t *ty = wasm_functype_new_1_1(wasm_valtype_new(WEFT_WASM_ANYREF), wasm_valtype_new(WEFT_WASM_ANYREF));
  check_ok(weft_linker_define_async_func(linker, "host", 4, "echo", 4, ty, host_echo, NULL, NULL), "define_async");
  wasm_functype_delete(ty);

  weft_store_t *store = weft_store_new(engine, NULL, NULL);
  weft_store_limiter(store, 1 << 20, -1, -1, -1, -1);
  weft_context_t *cx = weft_store_context(store);
  weft_instance_t inst;
  wasm_trap_t *trap = NULL;
  weft_error_t *err = NULL;
  drive(weft_linker_instantiate_async(linker, cx, module, &inst, &trap, &err));
  check(trap == NULL && err == NULL);

  // Async calls returning an anyref: C unroots each result.
  weft_func_t make = get_func(cx, &inst, "make");
  int made = 0;
  for (int i = 0; i < 64; i++) {
    weft_val_t res;
    drive(weft_func_call_async(cx, &make, NULL, 0, &res, 1, &trap, &err));
    if (trap || err) {
      fprintf(stderr, "make failed at call %d\n", i);
      if (trap) check(trap_contains(trap, ""));
      if (err) check(error_contains(err, ""));
      return 1;
    }
    check(res.kind == WEFT_ANYREF && weft_anyref_is_array(cx, &res.of.anyref));
    weft_val_unroot(&res);
    made++;
  }
  printf("async calls returning a 64 KiB array: %d\n", made);

  // Async host calls taking and returning an anyref.
  weft_func_t give = get_func(cx, &inst, "give");
  int arrays = 0;
  for (int i = 0; i < 64; i++) {
    weft_val_t res;
    drive(weft_func_call_async(cx, &give, NULL, 0, &res, 1, &trap, &err));
    if (trap || err) {
      fprintf(stderr, "give failed at call %d\n", i);
      if (trap) check(trap_contains(trap, ""));
      if (err) check(error_contains(err, ""));
      return 1;
    }
    arrays += res.of.i32;
  }
  printf("async host calls echoing a 64 KiB array: %d, echoed arrays %d\n", echoes, arrays);

  weft_store_delete(store);
  weft_linker_delete(linker);
  weft_module_delete(module);
  wasm_engine_delete(engine);
  return 0;
}
