// weft.h for core wasm: modules, linkers, host functions with callers,
// calls with their three outcomes, globals, tables, memories, raw values,
// instance-pres and robustness against misuse.
#include "weft_common.h"
#include <assert.h>

static_assert(sizeof(weft_val_t) == 32, "weft_val_t layout");
static_assert(sizeof(weft_val_raw_t) == 16, "weft_val_raw_t layout");
static_assert(sizeof(weft_extern_t) == 32, "weft_extern_t layout");
static_assert(sizeof(weft_func_t) == 16, "weft_func_t layout");
static_assert(sizeof(weft_table_t) == 24, "weft_table_t layout");
static_assert(sizeof(weft_global_t) == 24, "weft_global_t layout");
static_assert(sizeof(weft_instance_t) == 16, "weft_instance_t layout");

static const char *WAT =
    "(module\n"
    "  (import \"host\" \"log\" (func $log (param i32) (result i32)))\n"
    "  (import \"host\" \"fail\" (func $fail))\n"
    "  (import \"host\" \"fail_code\" (func $fail_code))\n"
    "  (memory (export \"memory\") 1)\n"
    "  (global $g (export \"g\") (mut i64) (i64.const 100))\n"
    "  (table (export \"table\") 2 funcref)\n"
    "  (data (i32.const 16) \"weft\")\n"
    "  (func (export \"run\") (param i32) (result i32)\n"
    "    (call $log (i32.add (local.get 0) (i32.const 1))))\n"
    "  (func (export \"fail\") (call $fail))\n"
    "  (func (export \"fail_code\") (call $fail_code))\n"
    "  (func (export \"div\") (param i32 i32) (result i32) (i32.div_s (local.get 0) (local.get 1)))\n"
    "  (func (export \"v128\") (param v128) (result v128) (local.get 0))\n"
    "  (func (export \"many\") (param i32 i64 f32 f64) (result f64 f32 i64 i32)\n"
    "    (local.get 3) (local.get 2) (local.get 1) (local.get 0)))\n";

static int log_calls = 0;

static wasm_trap_t *log_cb(void *env, weft_caller_t *caller, const weft_val_t *args, size_t nargs,
                           weft_val_t *results, size_t nresults) {
  check(nargs == 1 && nresults == 1 && args[0].kind == WEFT_I32);
  check(env == (void *)&log_calls);
  log_calls++;
  // The caller's memory, through the caller's export.
  weft_extern_t mem;
  check(weft_caller_export_get(caller, "memory", 6, &mem));
  check(mem.kind == WEFT_EXTERN_MEMORY);
  weft_context_t *cx = weft_caller_context(caller);
  uint8_t *data = weft_memory_data(cx, &mem.of.memory);
  printf("> log %d, memory says %.4s\n", args[0].of.i32, (const char *)data + 16);
  check(!weft_caller_export_get(caller, "nope", 4, &mem));
  // Reentrance: the store is usable from inside the host function.
  weft_extern_t g;
  check(weft_caller_export_get(caller, "g", 1, &g));
  weft_val_t v;
  weft_global_get(cx, &g.of.global, &v);
  check(v.kind == WEFT_I64 && v.of.i64 == 100);
  results[0].kind = WEFT_I32;
  results[0].of.i32 = args[0].of.i32 * 2;
  return NULL;
}

static wasm_trap_t *fail_cb(void *env, weft_caller_t *caller, const weft_val_t *args, size_t nargs,
                            weft_val_t *results, size_t nresults) {
  const char *msg = "host says no";
  return weft_trap_new(msg, strlen(msg));
}

static wasm_trap_t *fail_code_cb(void *env, weft_caller_t *caller, const weft_val_t *args, size_t nargs,
                                 weft_val_t *results, size_t nresults) {
  return weft_trap_new_code(WEFT_TRAP_CODE_UNREACHABLE_CODE_REACHED);
}

static int finalized = 0;
static void finalize(void *data) { finalized += *(int *)data; }

static wasm_trap_t *raw_cb(void *env, weft_caller_t *caller, weft_val_raw_t *vals, size_t n) {
  check(n == 2);
  int32_t a = vals[0].i32, b = vals[1].i32;
  vals[0].i64 = (int64_t)a * (int64_t)b;
  return NULL;
}

int main(void) {
  printf("Initializing...\n");
  wasm_engine_t *engine = wasm_engine_new();
  static int store_data = 1000;
  weft_store_t *store = weft_store_new(engine, &store_data, finalize);
  weft_context_t *cx = weft_store_context(store);
  check(weft_context_get_data(cx) == &store_data);

  printf("Compiling...\n");
  weft_module_t *module = compile_wat(engine, WAT);
  wasm_importtype_vec_t imports;
  weft_module_imports(module, &imports);
  check(imports.size == 3);
  wasm_importtype_vec_delete(&imports);
  wasm_exporttype_vec_t exports;
  weft_module_exports(module, &exports);
  check(exports.size == 9);
  wasm_exporttype_vec_delete(&exports);
  check(error_contains(weft_module_validate(engine, (const uint8_t *)"\0asm", 4), "unexpected end"));
  weft_module_t *bad = NULL;
  check(error_contains(weft_module_new(engine, (const uint8_t *)"nope", 4, &bad), ""));
  check(bad == NULL);
  wasm_byte_vec_t junk;
  check(error_contains(weft_wat2wasm("(module", 7, &junk), "expected"));

  printf("Linking...\n");
  weft_linker_t *linker = weft_linker_new(engine);
  wasm_functype_t *log_ty = wasm_functype_new_1_1(wasm_valtype_new_i32(), wasm_valtype_new_i32());
  wasm_functype_t *void_ty = wasm_functype_new_0_0();
  check_ok(weft_linker_define_func(linker, "host", 4, "log", 3, log_ty, log_cb, &log_calls, NULL), "define log");
  check(error_contains(weft_linker_define_func(linker, "host", 4, "log", 3, log_ty, log_cb, NULL, NULL),
                       "defined twice"));
  static int fail_env = 1;
  check_ok(weft_linker_define_func(linker, "host", 4, "fail", 4, void_ty, fail_cb, &fail_env, finalize),
           "define fail");
  weft_instance_t instance;
  wasm_trap_t *trap = NULL;
  // `fail_code` is missing: a link error, not a trap.
  check(error_contains(weft_linker_instantiate(linker, cx, module, &instance, &trap), "fail_code"));
  check(trap == NULL);
  check_ok(weft_linker_define_func(linker, "host", 4, "fail_code", 9, void_ty, fail_code_cb, NULL, NULL),
           "define fail_code");
  check_ok(weft_linker_instantiate(linker, cx, module, &instance, &trap), "instantiate");
  check(trap == NULL && instance.store_id != 0);

  printf("Calling...\n");
  weft_func_t run = get_func(cx, &instance, "run");
  weft_val_t arg = {.kind = WEFT_I32, .of.i32 = 20};
  weft_val_t result;
  check_ok(weft_func_call(cx, &run, &arg, 1, &result, 1, &trap), "call run");
  check(trap == NULL && result.kind == WEFT_I32 && result.of.i32 == 42);
  printf("> run(20) = %d\n", result.of.i32);
  wasm_functype_t *run_ty = weft_func_type(cx, &run);
  check(wasm_functype_params(run_ty)->size == 1 && wasm_functype_results(run_ty)->size == 1);
  wasm_functype_delete(run_ty);

  // Misuse is an error, never a trap.
  check(error_contains(weft_func_call(cx, &run, NULL, 0, &result, 1, &trap), "expected 1 arguments"));
  check(trap == NULL);
  weft_val_t wrong = {.kind = WEFT_I64, .of.i64 = 1};
  check(error_contains(weft_func_call(cx, &run, &wrong, 1, &result, 1, &trap), "type"));
  check(error_contains(weft_func_call(cx, &run, &arg, 1, &result, 0, &trap), "results"));

  // A host's message trap is an error; a trap with a code, or wasm's, a trap.
  weft_func_t fail = get_func(cx, &instance, "fail");
  check(error_contains(weft_func_call(cx, &fail, NULL, 0, NULL, 0, &trap), "host says no"));
  check(trap == NULL);
  weft_func_t fail_code = get_func(cx, &instance, "fail_code");
  check(weft_func_call(cx, &fail_code, NULL, 0, NULL, 0, &trap) == NULL);
  weft_trap_code_t code;
  check(trap != NULL && weft_trap_code(trap, &code) && code == WEFT_TRAP_CODE_UNREACHABLE_CODE_REACHED);
  wasm_trap_delete(trap);
  weft_func_t div = get_func(cx, &instance, "div");
  weft_val_t div_args[2] = {{.kind = WEFT_I32, .of.i32 = 7}, {.kind = WEFT_I32, .of.i32 = 0}};
  check(weft_func_call(cx, &div, div_args, 2, &result, 1, &trap) == NULL);
  check(trap != NULL && weft_trap_code(trap, &code) && code == WEFT_TRAP_CODE_INTEGER_DIVISION_BY_ZERO);
  wasm_frame_vec_t frames;
  wasm_trap_trace(trap, &frames);
  check(frames.size == 1 && wasm_frame_func_index(frames.data[0]) == 6);
  check(weft_frame_func_name(frames.data[0]) == NULL);
  wasm_frame_vec_delete(&frames);
  check(trap_contains(trap, "divide by zero"));
  printf("> div(7, 0) traps\n");

  // v128 and several results.
  weft_func_t v128 = get_func(cx, &instance, "v128");
  weft_val_t vin = {.kind = WEFT_V128}, vout;
  for (int i = 0; i < 16; ++i) vin.of.v128[i] = (uint8_t)i;
  check_ok(weft_func_call(cx, &v128, &vin, 1, &vout, 1, &trap), "call v128");
  check(vout.kind == WEFT_V128 && memcmp(vout.of.v128, vin.of.v128, 16) == 0);
  weft_func_t many = get_func(cx, &instance, "many");
  weft_val_t many_args[4] = {{.kind = WEFT_I32, .of.i32 = 1},
                             {.kind = WEFT_I64, .of.i64 = 2},
                             {.kind = WEFT_F32, .of.f32 = 3.5f},
                             {.kind = WEFT_F64, .of.f64 = 4.25}};
  weft_val_t many_res[4];
  check_ok(weft_func_call(cx, &many, many_args, 4, many_res, 4, &trap), "call many");
  check(many_res[0].of.f64 == 4.25 && many_res[1].of.f32 == 3.5f && many_res[2].of.i64 == 2 &&
        many_res[3].of.i32 == 1);

  // The same call, unchecked.
  weft_val_raw_t raw[4];
  raw[0].i32 = 1;
  raw[1].i64 = 2;
  raw[2].f32 = 3.5f;
  raw[3].f64 = 4.25;
  check_ok(weft_func_call_unchecked(cx, &many, raw, 4, &trap), "call_unchecked");
  check(raw[0].f64 == 4.25 && raw[1].f32 == 3.5f && raw[2].i64 == 2 && raw[3].i32 == 1);
  WEFT_ONLY(check(error_contains(weft_func_call_unchecked(cx, &many, raw, 3, &trap), "needs 4")));

  printf("Exports...\n");
  char *name;
  size_t name_len;
  weft_extern_t item;
  size_t n = 0;
  while (weft_instance_export_nth(cx, &instance, n, &name, &name_len, &item)) {
    printf("> %zu: %.*s (kind %d)\n", n, (int)name_len, name, item.kind);
    n++;
  }
  check(n == 9);

  printf("Globals, tables, memories...\n");
  weft_extern_t g;
  check(weft_instance_export_get(cx, &instance, "g", 1, &g) && g.kind == WEFT_EXTERN_GLOBAL);
  weft_val_t gv = {.kind = WEFT_I64, .of.i64 = 7};
  check_ok(weft_global_set(cx, &g.of.global, &gv), "global_set");
  weft_global_get(cx, &g.of.global, &gv);
  check(gv.of.i64 == 7);
  weft_val_t bad_gv = {.kind = WEFT_I32, .of.i32 = 7};
  check(error_contains(weft_global_set(cx, &g.of.global, &bad_gv), ""));
  wasm_globaltype_t *gt = wasm_globaltype_new(wasm_valtype_new_f64(), WASM_CONST);
  weft_global_t g2;
  weft_val_t f = {.kind = WEFT_F64, .of.f64 = 1.5};
  check_ok(weft_global_new(cx, gt, &f, &g2), "global_new");
  check(error_contains(weft_global_set(cx, &g2, &f), "immutable"));
  wasm_globaltype_delete(gt);

  weft_extern_t t;
  check(weft_instance_export_get(cx, &instance, "table", 5, &t) && t.kind == WEFT_EXTERN_TABLE);
  check(weft_table_size(cx, &t.of.table) == 2);
  weft_val_t fr = {.kind = WEFT_FUNCREF, .of.funcref = run};
  check_ok(weft_table_set(cx, &t.of.table, 1, &fr), "table_set");
  weft_val_t got;
  check(weft_table_get(cx, &t.of.table, 1, &got) && got.kind == WEFT_FUNCREF && !weft_funcref_is_null(&got.of.funcref));
  check(got.of.funcref.store_id == run.store_id && got.of.funcref.__private == run.__private);
  check(weft_table_get(cx, &t.of.table, 0, &got) && weft_funcref_is_null(&got.of.funcref));
  check(!weft_table_get(cx, &t.of.table, 2, &got));
  uint64_t prev;
  weft_val_t null_fr = {.kind = WEFT_FUNCREF};
  weft_funcref_set_null(&null_fr.of.funcref);
  check_ok(weft_table_grow(cx, &t.of.table, 3, &null_fr, &prev), "table_grow");
  check(prev == 2 && weft_table_size(cx, &t.of.table) == 5);
  check(error_contains(weft_table_set(cx, &t.of.table, 5, &fr), ""));

  weft_extern_t m;
  check(weft_instance_export_get(cx, &instance, "memory", 6, &m) && m.kind == WEFT_EXTERN_MEMORY);
  check(weft_memory_size(cx, &m.of.memory) == 1 && weft_memory_data_size(cx, &m.of.memory) == 65536);
  check(memcmp(weft_memory_data(cx, &m.of.memory) + 16, "weft", 4) == 0);
  check_ok(weft_memory_grow(cx, &m.of.memory, 2, &prev), "memory_grow");
  check(prev == 1 && weft_memory_size(cx, &m.of.memory) == 3);
  check(weft_memory_page_size(cx, &m.of.memory) == 65536 && weft_memory_page_size_log2(cx, &m.of.memory) == 16);
  wasm_memorytype_t *mt = NULL;
  check_ok(weft_memorytype_new(1, true, 2, true, false, 16, &mt), "memorytype_new");
  check(weft_memorytype_is64(mt) && weft_memorytype_minimum(mt) == 1);
  uint64_t max;
  check(weft_memorytype_maximum(mt, &max) && max == 2);
  weft_memory_t m64;
  check_ok(weft_memory_new(cx, mt, &m64), "memory_new");
  check(error_contains(weft_memory_grow(cx, &m64, 2, &prev), ""));
  wasm_memorytype_delete(mt);
  check(error_contains(weft_memorytype_new(1, false, 0, false, true, 16, &mt), ""));

  printf("Raw host functions...\n");
  wasm_valtype_t *ps[2] = {wasm_valtype_new_i32(), wasm_valtype_new_i32()};
  wasm_valtype_t *rs[1] = {wasm_valtype_new_i64()};
  wasm_valtype_vec_t pv, rv;
  wasm_valtype_vec_new(&pv, 2, ps);
  wasm_valtype_vec_new(&rv, 1, rs);
  wasm_functype_t *mul_ty = wasm_functype_new(&pv, &rv);
  weft_func_t mul;
  weft_func_new_unchecked(cx, mul_ty, raw_cb, NULL, NULL, &mul);
  wasm_functype_delete(mul_ty);
  weft_val_t mul_args[2] = {{.kind = WEFT_I32, .of.i32 = 6}, {.kind = WEFT_I32, .of.i32 = 7}};
  check_ok(weft_func_call(cx, &mul, mul_args, 2, &result, 1, &trap), "call mul");
  check(result.kind == WEFT_I64 && result.of.i64 == 42);
  void *raw_ref = weft_func_to_raw(cx, &mul);
  check(raw_ref != NULL);
  weft_func_t back;
  weft_func_from_raw(cx, raw_ref, &back);
  check(back.store_id == mul.store_id && back.__private == mul.__private);

  printf("Objects of another store...\n");
  weft_store_t *other = weft_store_new(engine, NULL, NULL);
  weft_context_t *ocx = weft_store_context(other);
#ifndef WEFT_CORRECT_USE_ONLY
  check(error_contains(weft_func_call(ocx, &run, &arg, 1, &result, 1, &trap), "wrong store"));
  check(weft_func_type(ocx, &run) == NULL);
  check(weft_memory_data(ocx, &m.of.memory) == NULL);
  weft_instance_t other_instance;
  check(error_contains(weft_instance_new(ocx, module, NULL, 0, &other_instance, &trap), "imports"));
  weft_func_t bogus = {.store_id = run.store_id, .__private = (void *)(uintptr_t)100000};
  check(error_contains(weft_func_call(cx, &bogus, NULL, 0, NULL, 0, &trap), "invalid"));
#endif

  printf("Instance-pre...\n");
  weft_instance_pre_t *pre = NULL;
  check_ok(weft_linker_instantiate_pre(linker, module, &pre), "instantiate_pre");
  weft_instance_t i2;
  check_ok(weft_instance_pre_instantiate(pre, ocx, &i2, &trap), "pre_instantiate");
  weft_func_t run2 = get_func(ocx, &i2, "run");
  check_ok(weft_func_call(ocx, &run2, &arg, 1, &result, 1, &trap), "call run in other store");
  check(result.of.i32 == 42);
  weft_module_t *pre_module = weft_instance_pre_module(pre);
  check(pre_module != NULL);
  weft_module_delete(pre_module);
  weft_instance_pre_delete(pre);

  printf("Serializing...\n");
  wasm_byte_vec_t bytes;
  check_ok(weft_module_serialize(module, &bytes), "serialize");
  weft_module_t *module2 = NULL;
  check_ok(weft_module_deserialize(engine, (const uint8_t *)bytes.data, bytes.size, &module2), "deserialize");
  wasm_byte_vec_delete(&bytes);
  weft_linker_t *linker2 = weft_linker_clone(linker);
  weft_instance_t i3;
  check_ok(weft_linker_instantiate(linker2, ocx, module2, &i3, &trap), "instantiate deserialized");
  weft_module_delete(module2);
  weft_linker_delete(linker2);

  printf("Unknown imports...\n");
  weft_module_t *needs = compile_wat(engine, "(module (import \"x\" \"y\" (func (result i32)))"
                                             " (func (export \"f\") (result i32) (call 0)))");
  weft_linker_t *l3 = weft_linker_new(engine);
  check_ok(weft_linker_define_unknown_imports_as_default_values(l3, cx, needs), "default values");
  weft_instance_t i4;
  check_ok(weft_linker_instantiate(l3, cx, needs, &i4, &trap), "instantiate with defaults");
  weft_func_t ff = get_func(cx, &i4, "f");
  check_ok(weft_func_call(cx, &ff, NULL, 0, &result, 1, &trap), "call default");
  check(result.of.i32 == 0);
  weft_linker_delete(l3);
  l3 = weft_linker_new(engine);
  check_ok(weft_linker_define_unknown_imports_as_traps(l3, needs), "traps");
  check_ok(weft_linker_instantiate(l3, cx, needs, &i4, &trap), "instantiate with traps");
  ff = get_func(cx, &i4, "f");
  check(error_contains(weft_func_call(cx, &ff, NULL, 0, &result, 1, &trap), "unknown import"));
  check_ok(weft_linker_define_instance(l3, cx, "inst", 4, &instance), "define_instance");
  weft_extern_t via;
  check(weft_linker_get(l3, cx, "inst", 4, "run", 3, &via) && via.kind == WEFT_EXTERN_FUNC);
  check(!weft_linker_get(l3, cx, "inst", 4, "nope", 4, &via));
  check_ok(weft_linker_define_wasi(l3), "define_wasi");
  WEFT_ONLY(check(error_contains(weft_linker_define_wasi(NULL), "null")));
  weft_linker_delete(l3);
  weft_module_delete(needs);

  // Null pointers are errors, not crashes.
#ifndef WEFT_CORRECT_USE_ONLY
  check(error_contains(weft_func_call(NULL, &run, NULL, 0, NULL, 0, &trap), "null"));
  check(error_contains(weft_module_new(NULL, NULL, 0, &bad), "null"));
  check(weft_linker_new(NULL) == NULL);
#endif

  printf("Shutting down...\n");
  wasm_functype_delete(log_ty);
  wasm_functype_delete(void_ty);
  weft_linker_delete(linker);
  weft_module_delete(module);
  weft_store_delete(other);
  check(finalized == 0);
  weft_store_delete(store);
  // The store's data, and the linker function's data, which the store used.
  check(finalized == 1001);
  wasm_engine_delete(engine);
  printf("> log called %d times\n", log_calls);
  printf("Done.\n");
  return 0;
}
