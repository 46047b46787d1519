// weft/profiling.h: a module looping over calls of a few functions, sampled
// from a host function; the profile is JSON naming the functions.
#include "weft_common.h"

static const char *WAT =
    "(module $prog\n"
    "  (import \"host\" \"tick\" (func $tick))\n"
    "  (func $leaf call $tick)\n"
    "  (func $work (param i32)\n"
    "    (if (i32.and (local.get 0) (i32.const 1)) (then call $leaf) (else call $tick)))\n"
    "  (func $main (export \"main\") (local $i i32)\n"
    "    (loop $l\n"
    "      (call $work (local.get $i))\n"
    "      (local.set $i (i32.add (local.get $i) (i32.const 1)))\n"
    "      (br_if $l (i32.lt_u (local.get $i) (i32.const 10))))))\n";

static weft_guestprofiler_t *profiler;
static int ticks = 0;

static wasm_trap_t *tick_cb(void *env, weft_caller_t *caller, const weft_val_t *args, size_t nargs,
                            weft_val_t *results, size_t nresults) {
  weft_guestprofiler_sample(profiler, (const weft_store_t *)env, 1000);
  ticks++;
  return NULL;
}

static bool contains(const wasm_byte_vec_t *v, const char *needle) {
  size_t n = strlen(needle);
  for (size_t i = 0; i + n <= v->size; i++)
    if (memcmp(v->data + i, needle, n) == 0) return true;
  return false;
}

int main(void) {
  wasm_engine_t *engine = wasm_engine_new();
  weft_store_t *store = weft_store_new(engine, NULL, NULL);
  weft_context_t *cx = weft_store_context(store);
  weft_module_t *module = compile_wat(engine, WAT);

  wasm_name_t program, modname;
  wasm_name_new_from_string(&program, "prog");
  wasm_name_new_from_string(&modname, "prog");
  weft_guestprofiler_modules_t modules[1] = {{&modname, module}};
  profiler = weft_guestprofiler_new(engine, &program, 1000000, modules, 1);
  check(profiler != NULL);
  // Misuse: null arguments give null or do nothing.
#ifndef WEFT_CORRECT_USE_ONLY
  check(weft_guestprofiler_new(NULL, &program, 1, modules, 1) == NULL);
  check(weft_guestprofiler_new(engine, &program, 1, NULL, 1) == NULL);
  // A module of another engine is refused.
  wasm_engine_t *engine2 = wasm_engine_new();
  check(weft_guestprofiler_new(engine2, &program, 1, modules, 1) == NULL);
  wasm_engine_delete(engine2);
  weft_guestprofiler_sample(NULL, store, 0);
  weft_guestprofiler_sample(profiler, NULL, 0);
#endif

  weft_linker_t *linker = weft_linker_new(engine);
  wasm_functype_t *ty = wasm_functype_new_0_0();
  check_ok(weft_linker_define_func(linker, "host", 4, "tick", 4, ty, tick_cb, store, NULL), "define tick");
  wasm_functype_delete(ty);
  weft_instance_t instance;
  wasm_trap_t *trap = NULL;
  check_ok(weft_linker_instantiate(linker, cx, module, &instance, &trap), "instantiate");
  check(trap == NULL);
  weft_func_t main_fn = get_func(cx, &instance, "main");
  check_ok(weft_func_call(cx, &main_fn, NULL, 0, NULL, 0, &trap), "call main");
  check(trap == NULL);
  // Outside wasm the sample has an empty stack.
  weft_guestprofiler_sample(profiler, store, 0);

  wasm_byte_vec_t json;
  check_ok(weft_guestprofiler_finish(profiler, &json), "finish");
  check(json.size > 0 && json.data[0] == '{');
  printf("%d samples from host calls\n", ticks);
  // Weft labels a frame `prog!main`; Wasmtime names it `main` in a library
  // named `prog`.
  printf("profile names prog: %d\n", contains(&json, "\"prog"));
  printf("profile names main: %d\n", contains(&json, "main\""));
  printf("profile names work: %d\n", contains(&json, "work\""));
  printf("profile names leaf: %d\n", contains(&json, "leaf\""));
  WEFT_ONLY(check(contains(&json, "\"prog!main\"") && contains(&json, "\"prog!leaf\"")));
#ifndef WEFT_CORRECT_USE_ONLY
  check(error_contains(weft_guestprofiler_finish(NULL, &json), "guestprofiler"));
  weft_guestprofiler_delete(NULL);
  weft_guestprofiler_delete(weft_guestprofiler_new(engine, &program, 1, NULL, 0));
#endif
  wasm_byte_vec_delete(&json);

  wasm_name_delete(&program);
  wasm_name_delete(&modname);
  weft_linker_delete(linker);
  weft_module_delete(module);
  weft_store_delete(store);
  wasm_engine_delete(engine);
  return 0;
}
