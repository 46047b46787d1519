// Exceptions made and thrown by the host from C (weft/exnref.h):
// weft_exnref_new and weft_context_set_exception in a host callback throw
// into wasm, which catches by tag (reading the fields) and with catch_all;
// uncaught, the exception reaches C, which takes and reads it; inside a
// host callback, an exception escaping its own call into wasm is seen
// (weft_context_has_exception), taken and thrown on; wrong fields and
// foreign exceptions are refused.
#include "weft_common.h"

static weft_context_t *cx;
static weft_instance_t instance;
static weft_tag_t tag;  // (param i32 i64), imported by the module as host.tag

static const char *WAT =
    "(module\n"
    "  (import \"host\" \"tag\" (tag $t (param i32 i64)))\n"
    "  (import \"host\" \"throw\" (func $throw (param i32)))\n"
    "  (import \"host\" \"forward\" (func $forward (param i32)))\n"
    "  (tag $w (export \"w\") (param i32))\n"
    "  (func (export \"throw_wasm\") (param i32) (throw $w (local.get 0)))\n"
    "  (func (export \"by_tag\") (param i32) (result i32 i64)\n"
    "    (block $h (result i32 i64)\n"
    "      (try_table (catch $t $h) (call $throw (local.get 0)))\n"
    "      (unreachable)))\n"
    "  (func (export \"all\") (param i32) (result i32)\n"
    "    (block $h (try_table (catch_all $h) (call $throw (local.get 0))) (return (i32.const 0)))\n"
    "    (i32.const 1))\n"
    "  (func (export \"via_forward\") (param i32) (result i32)\n"
    "    (block $h (result i32) (try_table (catch $w $h) (call $forward (local.get 0))) (i32.const -1)))\n"
    "  (func (export \"uncaught\") (param i32) (call $throw (local.get 0))))\n";

static weft_val_t i32_val(int32_t x) {
  weft_val_t v;
  v.kind = WEFT_I32;
  v.of.i32 = x;
  return v;
}

static weft_val_t i64_val(int64_t x) {
  weft_val_t v;
  v.kind = WEFT_I64;
  v.of.i64 = x;
  return v;
}

// host.throw: throws `tag` with (x, x * 10).
static int throws = 0;
static wasm_trap_t *host_throw(void *env, weft_caller_t *caller, const weft_val_t *args, size_t nargs,
                               weft_val_t *results, size_t nresults) {
  (void)env;
  (void)results;
  check(nargs == 1 && nresults == 0);
  weft_context_t *hcx = weft_caller_context(caller);
  check(!weft_context_has_exception(hcx));
  weft_val_t fields[2] = {i32_val(args[0].of.i32), i64_val((int64_t)args[0].of.i32 * 10)};
  weft_exnref_t exn;
  check_ok(weft_exnref_new(hcx, &tag, fields, 2, &exn), "exnref_new");
  wasm_trap_t *trap = weft_context_set_exception(hcx, &exn);
  check(trap != NULL && weft_context_has_exception(hcx));
  weft_exnref_unroot(&exn);
  throws++;
  return trap;
}

// host.forward: calls the export throw_wasm, whose exception escapes into
// this callback; reads it and throws it on.
static wasm_trap_t *host_forward(void *env, weft_caller_t *caller, const weft_val_t *args, size_t nargs,
                                 weft_val_t *results, size_t nresults) {
  (void)env;
  (void)results;
  check(nargs == 1 && nresults == 0);
  weft_context_t *hcx = weft_caller_context(caller);
  weft_func_t f = get_func(hcx, &instance, "throw_wasm");
  wasm_trap_t *trap = NULL;
  check_ok(weft_func_call(hcx, &f, args, 1, NULL, 0, &trap), "call throw_wasm");
  check(trap != NULL);
  wasm_trap_delete(trap);
  printf("forward: pending inside the host function: %d\n", weft_context_has_exception(hcx));
  weft_exnref_t exn;
  check(weft_context_take_exception(hcx, &exn));
  check(!weft_context_has_exception(hcx));
  weft_val_t field;
  check_ok(weft_exnref_field(hcx, &exn, 0, &field), "exnref_field");
  printf("forward: took the exception, field 0 = %d\n", field.of.i32);
  trap = weft_context_set_exception(hcx, &exn);
  weft_exnref_unroot(&exn);
  return trap;
}

static weft_func_t host_func(weft_context_t *c, weft_func_callback_t cb) {
  wasm_functype_t *ft = wasm_functype_new_1_0(wasm_valtype_new(WASM_I32));
  weft_func_t f;
  weft_func_new(c, ft, cb, NULL, NULL, &f);
  wasm_functype_delete(ft);
  return f;
}

static void caught(void) {
  weft_func_t f = get_func(cx, &instance, "by_tag");
  weft_val_t arg = i32_val(7);
  weft_val_t results[2];
  wasm_trap_t *trap = NULL;
  check_ok(weft_func_call(cx, &f, &arg, 1, results, 2, &trap), "call by_tag");
  check(trap == NULL);
  printf("caught by tag: (%d, %lld)\n", results[0].of.i32, (long long)results[1].of.i64);

  f = get_func(cx, &instance, "all");
  check_ok(weft_func_call(cx, &f, &arg, 1, results, 1, &trap), "call all");
  check(trap == NULL);
  printf("caught by catch_all: %d\n", results[0].of.i32);

  f = get_func(cx, &instance, "via_forward");
  arg = i32_val(42);
  check_ok(weft_func_call(cx, &f, &arg, 1, results, 1, &trap), "call via_forward");
  check(trap == NULL);
  printf("caught after a host function threw it on: %d\n", results[0].of.i32);
  printf("pending after the catches: %d, host throws: %d\n", weft_context_has_exception(cx), throws);
}

static void uncaught(void) {
  weft_func_t f = get_func(cx, &instance, "uncaught");
  weft_val_t arg = i32_val(9);
  wasm_trap_t *trap = NULL;
  check_ok(weft_func_call(cx, &f, &arg, 1, NULL, 0, &trap), "call uncaught");
  check(trap != NULL);
  wasm_trap_delete(trap);
  printf("uncaught: pending %d\n", weft_context_has_exception(cx));
  weft_exnref_t exn;
  check(weft_context_take_exception(cx, &exn));
  weft_tag_t t;
  check_ok(weft_exnref_tag(cx, &exn, &t), "exnref_tag");
  weft_val_t f0, f1;
  check_ok(weft_exnref_field(cx, &exn, 0, &f0), "exnref_field 0");
  check_ok(weft_exnref_field(cx, &exn, 1, &f1), "exnref_field 1");
  printf("uncaught: tag is host.tag %d, fields (%d, %lld)\n", weft_tag_eq(cx, &t, &tag), f0.of.i32,
         (long long)f1.of.i64);
  weft_exnref_unroot(&exn);
  check(!weft_context_has_exception(cx));
}

static void misuse(wasm_engine_t *engine) {
  weft_exnref_t exn;
  weft_val_t one[1] = {i32_val(1)};
  check(error_contains(weft_exnref_new(cx, &tag, one, 1, &exn), "has 2 fields, but 1 values"));
  weft_val_t wrong[2] = {i32_val(1), i32_val(2)};
  check(error_contains(weft_exnref_new(cx, &tag, wrong, 2, &exn), "expected i64, found i32"));
#ifndef WEFT_CORRECT_USE_ONLY
  check(error_contains(weft_exnref_new(cx, NULL, wrong, 2, &exn), "tag"));
  check(error_contains(weft_exnref_new(cx, &tag, NULL, 2, &exn), "fields"));
  check(trap_contains(weft_context_set_exception(cx, NULL), "exn"));
  check(!weft_context_has_exception(cx));

  // An exception of another store is not thrown.
  weft_store_t *other = weft_store_new(engine, NULL, NULL);
  weft_context_t *ocx = weft_store_context(other);
  wasm_functype_t *ft = wasm_functype_new_0_0();
  wasm_tagtype_t *tt = wasm_tagtype_new(ft);
  weft_tag_t otag;
  check_ok(weft_tag_new(ocx, tt, &otag), "tag_new");
  wasm_tagtype_delete(tt);
  check(error_contains(weft_exnref_new(cx, &otag, NULL, 0, &exn), "wrong store"));
  weft_exnref_t foreign;
  check_ok(weft_exnref_new(ocx, &otag, NULL, 0, &foreign), "exnref_new other");
  check(trap_contains(weft_context_set_exception(cx, &foreign), "wrong store"));
  check(!weft_context_has_exception(cx));
  weft_exnref_unroot(&foreign);
  weft_store_delete(other);
#endif
  printf("misuse: refused\n");
}

int main(void) {
  wasm_engine_t *engine = wasm_engine_new();
  weft_module_t *module = compile_wat(engine, WAT);
  weft_store_t *store = weft_store_new(engine, NULL, NULL);
  cx = weft_store_context(store);

  wasm_functype_t *ft = wasm_functype_new_2_0(wasm_valtype_new(WASM_I32), wasm_valtype_new(WASM_I64));
  wasm_tagtype_t *tt = wasm_tagtype_new(ft);
  check_ok(weft_tag_new(cx, tt, &tag), "tag_new");
  wasm_tagtype_delete(tt);

  weft_extern_t imports[3];
  imports[0].kind = WEFT_EXTERN_TAG;
  imports[0].of.tag = tag;
  imports[1].kind = WEFT_EXTERN_FUNC;
  imports[1].of.func = host_func(cx, host_throw);
  imports[2].kind = WEFT_EXTERN_FUNC;
  imports[2].of.func = host_func(cx, host_forward);
  wasm_trap_t *trap = NULL;
  check_ok(weft_instance_new(cx, module, imports, 3, &instance, &trap), "instance_new");
  check(trap == NULL);

  caught();
  uncaught();
  misuse(engine);

  weft_store_delete(store);
  weft_module_delete(module);
  wasm_engine_delete(engine);
  return 0;
}
