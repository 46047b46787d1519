// Extern references through weft.h: made by the host, passed through wasm
// globals, tables and calls, typed and raw, and finalized with the store.
#include "weft_common.h"

static const char *WAT =
    "(module\n"
    "  (import \"\" \"echo\" (func $echo (param externref) (result externref)))\n"
    "  (global (export \"g\") (mut externref) (ref.null extern))\n"
    "  (table (export \"t\") 2 externref)\n"
    "  (func (export \"call\") (param externref) (result externref) (call $echo (local.get 0)))\n"
    "  (func (export \"is_null\") (param externref) (result i32) (ref.is_null (local.get 0))))\n";

static int finalized = 0;
static void finalize(void *data) { finalized += *(int *)data; }

static wasm_trap_t *echo(void *env, weft_caller_t *caller, const weft_val_t *args, size_t nargs, weft_val_t *results,
                         size_t nresults) {
  check(args[0].kind == WEFT_EXTERNREF);
  weft_context_t *cx = weft_caller_context(caller);
  int *data = weft_externref_data(cx, &args[0].of.externref);
  printf("> echo %d\n", data ? *data : -1);
  results[0] = args[0];
  return NULL;
}

int main(void) {
  wasm_engine_t *engine = wasm_engine_new();
  weft_store_t *store = weft_store_new(engine, NULL, NULL);
  weft_context_t *cx = weft_store_context(store);
  weft_module_t *module = compile_wat(engine, WAT);
  weft_linker_t *linker = weft_linker_new(engine);
  wasm_functype_t *ty = wasm_functype_new_1_1(wasm_valtype_new_externref(), wasm_valtype_new_externref());
  check_ok(weft_linker_define_func(linker, "", 0, "echo", 4, ty, echo, NULL, NULL), "define echo");
  wasm_functype_delete(ty);
  weft_instance_t instance;
  wasm_trap_t *trap = NULL;
  check_ok(weft_linker_instantiate(linker, cx, module, &instance, &trap), "instantiate");

  printf("Creating references...\n");
  static int one = 1, two = 2;
  weft_externref_t r1, r2;
  check(weft_externref_new(cx, &one, finalize, &r1));
  check(weft_externref_new(cx, &two, finalize, &r2));
  check(!weft_externref_is_null(&r1));
  check(weft_externref_data(cx, &r1) == &one && weft_externref_data(cx, &r2) == &two);
  weft_externref_t copy;
  weft_externref_clone(&r1, &copy);
  check(weft_externref_data(cx, &copy) == &one);
  weft_externref_unroot(&copy);

  printf("Calling...\n");
  weft_func_t call = get_func(cx, &instance, "call");
  weft_val_t arg = {.kind = WEFT_EXTERNREF, .of.externref = r2}, result;
  check_ok(weft_func_call(cx, &call, &arg, 1, &result, 1, &trap), "call");
  check(result.kind == WEFT_EXTERNREF && weft_externref_data(cx, &result.of.externref) == &two);
  weft_externref_set_null(&arg.of.externref);
  check_ok(weft_func_call(cx, &call, &arg, 1, &result, 1, &trap), "call with null");
  check(weft_externref_is_null(&result.of.externref));
  weft_func_t is_null = get_func(cx, &instance, "is_null");
  check_ok(weft_func_call(cx, &is_null, &arg, 1, &result, 1, &trap), "is_null");
  check(result.of.i32 == 1);

  printf("Globals and tables...\n");
  weft_extern_t g, t;
  check(weft_instance_export_get(cx, &instance, "g", 1, &g));
  check(weft_instance_export_get(cx, &instance, "t", 1, &t));
  weft_val_t v = {.kind = WEFT_EXTERNREF, .of.externref = r1};
  check_ok(weft_global_set(cx, &g.of.global, &v), "global_set");
  weft_global_get(cx, &g.of.global, &v);
  check(weft_externref_data(cx, &v.of.externref) == &one);
  v.of.externref = r2;
  check_ok(weft_table_set(cx, &t.of.table, 1, &v), "table_set");
  check(weft_table_get(cx, &t.of.table, 1, &v) && weft_externref_data(cx, &v.of.externref) == &two);
  check(weft_table_get(cx, &t.of.table, 0, &v) && weft_externref_is_null(&v.of.externref));

  printf("Raw values...\n");
  uint32_t raw = weft_externref_to_raw(cx, &r1);
  check(raw != 0);
  weft_externref_t back;
  weft_externref_from_raw(cx, raw, &back);
  check(weft_externref_data(cx, &back) == &one);
  weft_externref_from_raw(cx, 0, &back);
  check(weft_externref_is_null(&back));
  weft_val_raw_t raws[1];
  raws[0].externref = weft_externref_to_raw(cx, &r2);
  check_ok(weft_func_call_unchecked(cx, &call, raws, 1, &trap), "call_unchecked");
  weft_externref_from_raw(cx, raws[0].externref, &back);
  check(weft_externref_data(cx, &back) == &two);

  // A reference of another store is refused.
  weft_store_t *other = weft_store_new(engine, NULL, NULL);
  WEFT_ONLY(check(weft_externref_data(weft_store_context(other), &r1) == NULL));
  weft_store_delete(other);

  printf("Shutting down...\n");
  weft_linker_delete(linker);
  weft_module_delete(module);
  check(finalized == 0);
  weft_store_delete(store);
  check(finalized == 3);
  wasm_engine_delete(engine);
  printf("Done.\n");
  return 0;
}
