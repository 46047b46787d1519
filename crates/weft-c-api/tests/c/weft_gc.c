// GC references and types from C (weft/anyref.h, eqref.h, structref.h,
// arrayref.h, exnref.h, weft/types/*.h): struct and array types built from
// C match the types of a GC module (gc.wat); structs and arrays made in C
// go through wasm, which reads and changes them, and C reads the fields
// back; objects made by wasm are read from C; i31refs and eqrefs cross
// both ways; an exception escaping wasm is taken and read.
#include "weft_common.h"

static weft_context_t *cx;
static weft_instance_t instance;

// Calls the export `name` with `nargs` arguments; one result (or none).
static weft_val_t call(const char *name, const weft_val_t *args, size_t nargs, size_t nresults) {
  weft_func_t f = get_func(cx, &instance, name);
  weft_val_t result;
  result.kind = WEFT_I32;
  result.of.i32 = 0;
  wasm_trap_t *trap = NULL;
  check_ok(weft_func_call(cx, &f, args, nargs, &result, nresults, &trap), name);
  check(trap == NULL);
  return result;
}

static weft_val_t ref_val(weft_anyref_t ref) {
  weft_val_t v;
  v.kind = WEFT_ANYREF;
  v.of.anyref = ref;
  return v;
}

// A value holding a new root of `eq` as an anyref (unroot it when done).
static weft_val_t eq_val(const weft_eqref_t *eq) {
  weft_anyref_t any;
  weft_eqref_to_anyref(eq, &any);
  return ref_val(any);
}

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

static weft_field_type_t field(bool mutable_, wasm_valkind_t kind) {
  weft_field_type_t f;
  f.mutable_ = mutable_;
  f.storage.kind = WEFT_STORAGE_TYPE_KIND_VALTYPE;
  f.storage.valtype = wasm_valtype_new(kind);
  return f;
}

static void types(wasm_engine_t *engine) {
  // A packed field and a reference field, read back.
  weft_field_type_t fields[2];
  fields[0].mutable_ = true;
  fields[0].storage.kind = WEFT_STORAGE_TYPE_KIND_I8;
  fields[0].storage.valtype = NULL;
  weft_valtype_t anyref_ty;
  anyref_ty.kind = WEFT_VALTYPE_KIND_REF;
  anyref_ty.reftype.nullable = true;
  anyref_ty.reftype.heaptype.kind = WEFT_HEAPTYPE_KIND_ANY;
  fields[1].mutable_ = false;
  fields[1].storage.kind = WEFT_STORAGE_TYPE_KIND_VALTYPE;
  fields[1].storage.valtype = weft_valtype_to_wasm(engine, &anyref_ty);
  check(fields[1].storage.valtype != NULL);
  weft_struct_type_t *ty = weft_struct_type_new(engine, fields, 2);
  check(ty != NULL);
  weft_struct_type_t *copy = weft_struct_type_copy(ty);
  printf("struct type: %zu fields\n", weft_struct_type_num_fields(copy));
  weft_field_type_t f;
  check(weft_struct_type_field(copy, 0, &f));
  printf("field 0: mutable %d, storage kind %d\n", f.mutable_, f.storage.kind);
  weft_field_type_delete(&f);
  check(weft_struct_type_field(copy, 1, &f));
  weft_valtype_t vt;
  weft_valtype_new(f.storage.valtype, &vt);
  printf("field 1: mutable %d, ref nullable %d, heap kind %d\n", f.mutable_, vt.reftype.nullable,
         vt.reftype.heaptype.kind);
  weft_valtype_t vt2;
  weft_valtype_clone(&vt, &vt2);
  weft_valtype_delete(&vt2);
  weft_valtype_delete(&vt);
  weft_field_type_t f2;
  weft_field_type_clone(&f, &f2);
  check(weft_wasm_valtype_equal(f.storage.valtype, f2.storage.valtype));
  weft_field_type_delete(&f2);
  weft_field_type_delete(&f);
  check(!weft_struct_type_field(copy, 2, &f));
  weft_struct_type_delete(copy);
  weft_struct_type_delete(ty);
  // wasm.h has no kind for anyref: Weft's reference kind, never funcref.
#ifndef WEFT_CORRECT_USE_ONLY
  wasm_valkind_t any_kind = wasm_valtype_kind(fields[1].storage.valtype);
  printf("anyref wasm kind: %d (WEFT_WASM_ANYREF %d), is ref %d\n", any_kind, any_kind == WEFT_WASM_ANYREF,
         wasm_valkind_is_ref(any_kind));
#endif
  wasm_valtype_delete(fields[1].storage.valtype);
#ifndef WEFT_CORRECT_USE_ONLY
  weft_valtype_t exn_vt;
  exn_vt.kind = WEFT_VALTYPE_KIND_REF;
  exn_vt.reftype.nullable = true;
  exn_vt.reftype.heaptype.kind = WEFT_HEAPTYPE_KIND_EXN;
  wasm_valtype_t *exn_wasm = weft_valtype_to_wasm(engine, &exn_vt);
  check(exn_wasm != NULL);
  printf("exnref wasm kind is WEFT_WASM_EXNREF: %d, is ref %d\n", wasm_valtype_kind(exn_wasm) == WEFT_WASM_EXNREF,
         wasm_valkind_is_ref(wasm_valtype_kind(exn_wasm)));
  wasm_valtype_delete(exn_wasm);
  wasm_valtype_t *from_kind = wasm_valtype_new(WEFT_WASM_ANYREF);
  weft_valtype_t back;
  weft_valtype_new(from_kind, &back);
  printf("wasm_valtype_new(WEFT_WASM_ANYREF): nullable %d, heap kind any %d\n", back.reftype.nullable,
         back.reftype.heaptype.kind == WEFT_HEAPTYPE_KIND_ANY);
  weft_valtype_delete(&back);
  wasm_valtype_delete(from_kind);
#endif

  // Invalid fields give NULL.
#ifndef WEFT_CORRECT_USE_ONLY
  weft_field_type_t bad = field(true, WASM_I32);
  bad.storage.kind = 9;
  check(weft_struct_type_new(engine, &bad, 1) == NULL);
  check(weft_array_type_new(engine, &bad) == NULL);
  weft_field_type_delete(&bad);
#endif

  // v128 and equality of value types.
  wasm_valtype_t *v128 = weft_wasm_valtype_v128();
  wasm_valtype_t *i32 = wasm_valtype_new(WASM_I32);
  printf("v128 == v128: %d, v128 == i32: %d\n", weft_wasm_valtype_equal(v128, v128),
         weft_wasm_valtype_equal(v128, i32));
  wasm_valtype_delete(v128);
  wasm_valtype_delete(i32);

  // Exception types.
  wasm_valtype_vec_t params;
  wasm_valtype_t *p[1] = {wasm_valtype_new(WASM_I64)};
  wasm_valtype_vec_new(&params, 1, p);
  weft_exn_type_t *exn_ty = NULL;
  check_ok(weft_exn_type_new(engine, &params, &exn_ty), "exn_type_new");
  wasm_valtype_vec_delete(&params);
  weft_exn_type_t *exn_copy = weft_exn_type_copy(exn_ty);
  wasm_tagtype_t *tt = weft_exn_type_tag_type(exn_copy);
  const wasm_valtype_vec_t *tparams = wasm_functype_params(wasm_tagtype_functype(tt));
  printf("exn type: %zu param(s), kind %d\n", tparams->size, wasm_valtype_kind(tparams->data[0]));
  wasm_tagtype_delete(tt);
  weft_exn_type_delete(exn_copy);
  weft_exn_type_delete(exn_ty);
}

static void structs(wasm_engine_t *engine) {
  // (struct (field (mut i32)) (field i64)): gc.wat's $point.
  weft_field_type_t fields[2] = {field(true, WASM_I32), field(false, WASM_I64)};
  weft_struct_type_t *ty = weft_struct_type_new(engine, fields, 2);
  check(ty != NULL);
  weft_field_type_delete(&fields[0]);
  weft_field_type_delete(&fields[1]);
  weft_struct_ref_pre_t *pre = weft_struct_ref_pre_new(cx, ty);
  check(pre != NULL);

  weft_val_t init[2] = {i32_val(10), i64_val(100)};
  weft_structref_t s;
  check_ok(weft_structref_new(cx, pre, init, 2, &s), "structref_new");
  check(!weft_structref_is_null(&s));

  // Through wasm: bump adds 1 to x and returns x + y.
  weft_anyref_t any;
  weft_structref_to_anyref(&s, &any);
  weft_val_t arg = ref_val(any);
  weft_val_t r = call("bump", &arg, 1, 1);
  printf("bump(point 10, 100) = %lld\n", (long long)r.of.i64);
  r = call("bump", &arg, 1, 1);
  printf("bump again = %lld\n", (long long)r.of.i64);
  weft_anyref_unroot(&any);
  WEFT_ONLY(check(weft_anyref_is_null(&any))); // Weft nulls an unrooted reference

  // The field, changed by wasm, read from C; then set from C.
  weft_val_t x;
  check_ok(weft_structref_field(cx, &s, 0, &x), "field 0");
  printf("x after two bumps: %d\n", x.of.i32);
  weft_val_t seven = i32_val(7);
  check_ok(weft_structref_set_field(cx, &s, 0, &seven), "set_field 0");
  check_ok(weft_structref_field(cx, &s, 0, &x), "field 0");
  weft_val_t y;
  check_ok(weft_structref_field(cx, &s, 1, &y), "field 1");
  printf("fields from C: x = %d, y = %lld\n", x.of.i32, (long long)y.of.i64);

  // Errors: immutable field, wrong type, out of bounds, wrong count.
  check(error_contains(weft_structref_set_field(cx, &s, 1, &y), ""));
  check(error_contains(weft_structref_set_field(cx, &s, 0, &y), ""));
  check(error_contains(weft_structref_field(cx, &s, 2, &x), ""));
  weft_structref_t bad;
  check(error_contains(weft_structref_new(cx, pre, init, 1, &bad), ""));
  printf("struct errors: reported\n");

  // Its type is the one C made; and it is a struct, an eqref, not an array.
  weft_struct_type_t *sty = weft_structref_type(cx, &s);
  check(sty != NULL && weft_struct_type_num_fields(sty) == 2);
  weft_struct_type_delete(sty);
  weft_structref_to_anyref(&s, &any);
  weft_heaptype_t ht;
  check(weft_anyref_type(cx, &any, &ht));
  printf("anyref type kind: %d, struct fields: %zu\n", ht.kind, weft_struct_type_num_fields(ht.of.concrete_struct));
  weft_heaptype_t ht2;
  weft_heaptype_clone(&ht, &ht2);
  weft_heaptype_delete(&ht2);
  weft_heaptype_delete(&ht);
  printf("is struct %d, is eqref %d, is array %d, is i31 %d\n", weft_anyref_is_struct(cx, &any),
         weft_anyref_is_eqref(cx, &any), weft_anyref_is_array(cx, &any), weft_anyref_is_i31(cx, &any));
  weft_arrayref_t not_array;
  check(!weft_anyref_as_array(cx, &any, &not_array) && weft_arrayref_is_null(&not_array));
  weft_structref_t s2;
  check(weft_anyref_as_struct(cx, &any, &s2));
  weft_eqref_t eq1, eq2;
  weft_structref_to_eqref(&s, &eq1);
  check(weft_anyref_as_eqref(cx, &any, &eq2));
  weft_val_t pair[2];
  pair[0] = eq_val(&eq1);
  pair[1] = eq_val(&eq2);
  printf("same struct, ref.eq: %d\n", call("same", pair, 2, 1).of.i32);
  weft_val_unroot(&pair[0]);
  weft_val_unroot(&pair[1]);
  weft_eqref_unroot(&eq1);
  weft_eqref_unroot(&eq2);
  weft_structref_unroot(&s2);
  weft_anyref_unroot(&any);

  // A struct made by wasm, read from C.
  weft_val_t margs[2] = {i32_val(-3), i64_val(9)};
  weft_val_t made = call("make", margs, 2, 1);
  check(made.kind == WEFT_ANYREF);
  weft_structref_t ms;
  check(weft_anyref_as_struct(cx, &made.of.anyref, &ms));
  weft_val_t mx, my;
  check_ok(weft_structref_field(cx, &ms, 0, &mx), "made field 0");
  check_ok(weft_structref_field(cx, &ms, 1, &my), "made field 1");
  printf("made by wasm: x = %d, y = %lld\n", mx.of.i32, (long long)my.of.i64);
  // Different objects are not ref.eq.
  weft_eqref_t e1, e2;
  weft_structref_to_eqref(&ms, &e1);
  weft_structref_to_eqref(&s, &e2);
  pair[0] = eq_val(&e1);
  pair[1] = eq_val(&e2);
  printf("different structs, ref.eq: %d\n", call("same", pair, 2, 1).of.i32);
  weft_val_unroot(&pair[0]);
  weft_val_unroot(&pair[1]);
  weft_eqref_unroot(&e1);
  weft_eqref_unroot(&e2);
  weft_structref_unroot(&ms);
  weft_val_unroot(&made);

  // After unrooting everything and collecting, new objects still work.
  weft_structref_unroot(&s);
  check_ok(weft_context_gc(cx), "gc");
  check_ok(weft_structref_new(cx, pre, init, 2, &s), "structref_new after gc");
  weft_structref_to_anyref(&s, &any);
  arg = ref_val(any);
  printf("after gc: bump = %lld\n", (long long)call("bump", &arg, 1, 1).of.i64);
  weft_anyref_unroot(&any);
  weft_structref_unroot(&s);

  weft_struct_ref_pre_delete(pre);
  weft_struct_type_delete(ty);
}

static void arrays(wasm_engine_t *engine) {
  // (array (mut i32)): gc.wat's $ints.
  weft_field_type_t elem = field(true, WASM_I32);
  weft_array_type_t *ty = weft_array_type_new(engine, &elem);
  check(ty != NULL);
  weft_field_type_delete(&elem);
  weft_array_type_t *copy = weft_array_type_copy(ty);
  weft_field_type_t e;
  weft_array_type_element(copy, &e);
  printf("array element: mutable %d, kind %d\n", e.mutable_, wasm_valtype_kind(e.storage.valtype));
  weft_field_type_delete(&e);
  weft_array_type_delete(copy);
  weft_array_ref_pre_t *pre = weft_array_ref_pre_new(cx, ty);
  check(pre != NULL);

  weft_val_t three = i32_val(3);
  weft_arrayref_t a;
  check_ok(weft_arrayref_new(cx, pre, &three, 4, &a), "arrayref_new");
  weft_val_t five = i32_val(5);
  check_ok(weft_arrayref_set(cx, &a, 2, &five), "arrayref_set");
  uint32_t len = 0;
  check_ok(weft_arrayref_len(cx, &a, &len), "arrayref_len");

  weft_anyref_t any;
  weft_arrayref_to_anyref(&a, &any);
  weft_val_t arg = ref_val(any);
  printf("array of %u: sum = %d\n", len, call("sum", &arg, 1, 1).of.i32);
  call("double", &arg, 1, 0);
  printf("after double:");
  for (uint32_t i = 0; i < len; i++) {
    weft_val_t v;
    check_ok(weft_arrayref_get(cx, &a, i, &v), "arrayref_get");
    printf(" %d", v.of.i32);
  }
  printf("\n");
  weft_val_t v;
  check(error_contains(weft_arrayref_get(cx, &a, len, &v), ""));
  weft_val_t wrong = i64_val(1);
  check(error_contains(weft_arrayref_set(cx, &a, 0, &wrong), ""));
  printf("array errors: reported\n");

  weft_array_type_t *aty = weft_arrayref_type(cx, &a);
  check(aty != NULL);
  weft_array_type_delete(aty);
  weft_heaptype_t ht;
  check(weft_anyref_type(cx, &any, &ht));
  printf("array heap type kind: %d; is array %d\n", ht.kind, weft_anyref_is_array(cx, &any));
  weft_heaptype_delete(&ht);
  weft_eqref_t eq;
  weft_arrayref_to_eqref(&a, &eq);
  weft_arrayref_t back;
  check(weft_eqref_as_array(cx, &eq, &back) && weft_eqref_is_array(cx, &eq) && !weft_eqref_is_struct(cx, &eq));
  weft_arrayref_unroot(&back);
  weft_eqref_unroot(&eq);

  // Raw values round trip.
  uint32_t raw = weft_anyref_to_raw(cx, &any);
  check(raw != 0);
  weft_anyref_t from_raw;
  weft_anyref_from_raw(cx, raw, &from_raw);
  check(weft_anyref_is_array(cx, &from_raw));
  weft_anyref_unroot(&from_raw);
  // A raw value that is no reference gives null.
  WEFT_ONLY(weft_anyref_from_raw(cx, 12345, &from_raw); check(weft_anyref_is_null(&from_raw)));

  weft_anyref_unroot(&any);
  weft_arrayref_unroot(&a);
  weft_array_ref_pre_delete(pre);
  weft_array_type_delete(ty);
}

static void i31s(void) {
  weft_anyref_t a;
  weft_anyref_from_i31(cx, (uint32_t)-5, &a);
  uint32_t u = 0;
  int32_t s = 0;
  check(weft_anyref_is_i31(cx, &a) && weft_anyref_i31_get_u(cx, &a, &u) && weft_anyref_i31_get_s(cx, &a, &s));
  printf("i31 of -5: u = %u, s = %d\n", u, s);
  weft_val_t arg = ref_val(a);
  printf("i31.get_s in wasm: %d\n", call("from_i31", &arg, 1, 1).of.i32);
  weft_heaptype_t ht;
  check(weft_anyref_type(cx, &a, &ht));
  printf("i31 heap type kind: %d; is eqref %d, is struct %d\n", ht.kind, weft_anyref_is_eqref(cx, &a),
         weft_anyref_is_struct(cx, &a));
  weft_heaptype_delete(&ht);

  // Made by wasm.
  weft_val_t seven = i32_val(0x7fffffff);
  weft_val_t r = call("to_i31", &seven, 1, 1);
  check(weft_anyref_i31_get_s(cx, &r.of.anyref, &s));
  printf("ref.i31 0x7fffffff from wasm, get_s: %d\n", s);
  weft_val_unroot(&r);

  // eqrefs of i31s: equal values are ref.eq.
  weft_eqref_t e1, e2;
  weft_eqref_from_i31(cx, 9, &e1);
  weft_eqref_from_i31(cx, 9, &e2);
  check(weft_eqref_is_i31(cx, &e1) && weft_eqref_i31_get_u(cx, &e1, &u) && weft_eqref_i31_get_s(cx, &e2, &s));
  weft_heaptype_t eht;
  check(weft_eqref_type(cx, &e1, &eht));
  weft_heaptype_delete(&eht);
  weft_val_t pair[2] = {eq_val(&e1), eq_val(&e2)};
  printf("i31 9 and 9: %u %d, ref.eq %d\n", u, s, call("same", pair, 2, 1).of.i32);
  weft_val_unroot(&pair[0]);
  weft_val_unroot(&pair[1]);
  weft_anyref_t back;
  weft_eqref_to_anyref(&e1, &back);
  weft_val_t id = call("identity", &(weft_val_t){.kind = WEFT_ANYREF, .of.anyref = back}, 1, 1);
  check(weft_anyref_i31_get_u(cx, &id.of.anyref, &u));
  printf("identity(i31 9) = %u\n", u);
  weft_val_t cloned;
  weft_val_clone(&id, &cloned);
  weft_val_unroot(&id);
  check(weft_anyref_i31_get_u(cx, &cloned.of.anyref, &u));
  weft_val_unroot(&cloned);
  weft_anyref_unroot(&back);
  weft_eqref_unroot(&e1);
  weft_eqref_unroot(&e2);

  // Null references: no type, not i31, and null through wasm.
  weft_anyref_t null;
  weft_anyref_set_null(&null);
  check(!weft_anyref_is_i31(cx, &null) && !weft_anyref_type(cx, &null, &ht));
  weft_val_t nv = ref_val(null);
  weft_val_t nr = call("identity", &nv, 1, 1);
  printf("identity(null) is null: %d\n", weft_anyref_is_null(&nr.of.anyref));
  weft_anyref_unroot(&a);
  weft_anyref_unroot(&a);  // Unrooting twice through the same variable is harmless.
}

static void exceptions(void) {
  check(!weft_context_has_exception(cx));
  weft_func_t f = get_func(cx, &instance, "throw");
  wasm_trap_t *trap = NULL;
  weft_error_t *err = weft_func_call(cx, &f, NULL, 0, NULL, 0, &trap);
  check(err != NULL || trap != NULL);
  if (err) weft_error_delete(err);
  if (trap) wasm_trap_delete(trap);
  printf("pending exception: %d\n", weft_context_has_exception(cx));
  weft_exnref_t exn;
  check(weft_context_take_exception(cx, &exn));
  check(!weft_context_has_exception(cx));
  weft_tag_t tag;
  check_ok(weft_exnref_tag(cx, &exn, &tag), "exnref_tag");
  weft_extern_t oops;
  check(weft_instance_export_get(cx, &instance, "oops", 4, &oops) && oops.kind == WEFT_EXTERN_TAG);
  weft_val_t payload;
  check_ok(weft_exnref_field(cx, &exn, 0, &payload), "exnref_field");
  printf("exception: tag is oops %d, %zu field(s), field 0 = %d\n", weft_tag_eq(cx, &tag, &oops.of.tag),
         weft_exnref_field_count(cx, &exn), payload.of.i32);
  check(error_contains(weft_exnref_field(cx, &exn, 1, &payload), "out of bounds"));
  weft_exn_type_t *ty = weft_exnref_type(cx, &exn);
  check(ty != NULL);
  wasm_tagtype_t *tt = weft_exn_type_tag_type(ty);
  printf("exception type: %zu param(s)\n", wasm_functype_params(wasm_tagtype_functype(tt))->size);
  wasm_tagtype_delete(tt);
  weft_exn_type_delete(ty);
  uint32_t raw = weft_exnref_to_raw(cx, &exn);
  weft_exnref_t again;
  weft_exnref_from_raw(cx, raw, &again);
  weft_exnref_t copy;
  weft_exnref_clone(&again, &copy);
  printf("exnref raw round trip: field count %zu\n", weft_exnref_field_count(cx, &copy));
  weft_exnref_unroot(&copy);
  weft_exnref_unroot(&again);
  weft_exnref_unroot(&exn);
  check(!weft_context_take_exception(cx, &exn));
}

// A host function taking and returning an anyref: it checks its argument
// is a struct and returns a new root of it (given to Weft).
static int host_calls = 0;
static wasm_trap_t *host_pass(void *env, weft_caller_t *caller, const weft_val_t *args, size_t nargs,
                              weft_val_t *results, size_t nresults) {
  weft_context_t *hcx = weft_caller_context(caller);
  check(nargs == 1 && nresults == 1 && args[0].kind == WEFT_ANYREF);
  check(weft_anyref_is_struct(hcx, &args[0].of.anyref));
  results[0].kind = WEFT_ANYREF;
  weft_anyref_clone(&args[0].of.anyref, &results[0].of.anyref);
  host_calls++;
  return NULL;
}

static void host_functions(wasm_engine_t *engine) {
  weft_valtype_t any;
  any.kind = WEFT_VALTYPE_KIND_REF;
  any.reftype.nullable = true;
  any.reftype.heaptype.kind = WEFT_HEAPTYPE_KIND_ANY;
  wasm_functype_t *ft =
      wasm_functype_new_1_1(weft_valtype_to_wasm(engine, &any), weft_valtype_to_wasm(engine, &any));
  weft_func_t f;
  weft_func_new(cx, ft, host_pass, NULL, NULL, &f);
  wasm_functype_delete(ft);

  weft_val_t margs[2] = {i32_val(4), i64_val(5)};
  weft_val_t made = call("make", margs, 2, 1);
  weft_val_t result;
  wasm_trap_t *trap = NULL;
  check_ok(weft_func_call(cx, &f, &made, 1, &result, 1, &trap), "call host_pass");
  check(trap == NULL && result.kind == WEFT_ANYREF);
  weft_eqref_t e1, e2;
  check(weft_anyref_as_eqref(cx, &made.of.anyref, &e1) && weft_anyref_as_eqref(cx, &result.of.anyref, &e2));
  weft_val_t pair[2] = {eq_val(&e1), eq_val(&e2)};
  printf("host function: %d call(s), returned the same struct: %d\n", host_calls, call("same", pair, 2, 1).of.i32);
  weft_val_unroot(&pair[0]);
  weft_val_unroot(&pair[1]);
  weft_eqref_unroot(&e1);
  weft_eqref_unroot(&e2);
  weft_val_unroot(&result);
  weft_val_unroot(&made);
}

#ifndef WEFT_CORRECT_USE_ONLY
static void misuse(wasm_engine_t *engine) {
  // References of another store, and null arguments, are refused.
  weft_store_t *other = weft_store_new(engine, NULL, NULL);
  weft_context_t *ocx = weft_store_context(other);
  weft_anyref_t a;
  weft_anyref_from_i31(ocx, 1, &a);
  check(!weft_anyref_is_i31(cx, &a));
  weft_val_t arg = ref_val(a);
  weft_func_t f = get_func(cx, &instance, "identity");
  weft_val_t r;
  wasm_trap_t *trap = NULL;
  check(error_contains(weft_func_call(cx, &f, &arg, 1, &r, 1, &trap), "wrong store"));
  weft_anyref_unroot(&a);
  weft_store_delete(other);
  check(error_contains(weft_structref_field(cx, NULL, 0, &r), "structref"));
  check(error_contains(weft_arrayref_len(cx, NULL, NULL), "out"));
  check(weft_struct_ref_pre_new(NULL, NULL) == NULL);
  printf("misuse: refused\n");
}
#endif

int main(void) {
  wasm_config_t *config = wasm_config_new();
  weft_config_wasm_gc_set(config, true);
  wasm_engine_t *engine = wasm_engine_new_with_config(config);
  wasm_byte_vec_t wasm;
  read_file("gc.wasm", &wasm);
  weft_module_t *module = NULL;
  check_ok(weft_module_new(engine, (const uint8_t *)wasm.data, wasm.size, &module), "module_new");
  wasm_byte_vec_delete(&wasm);
  weft_store_t *store = weft_store_new(engine, NULL, NULL);
  cx = weft_store_context(store);
  wasm_trap_t *trap = NULL;
  check_ok(weft_instance_new(cx, module, NULL, 0, &instance, &trap), "instance_new");
  check(trap == NULL);

  types(engine);
  structs(engine);
  arrays(engine);
  i31s();
  exceptions();
  host_functions(engine);
  WEFT_ONLY(misuse(engine));

  weft_store_delete(store);
  weft_module_delete(module);
  wasm_engine_delete(engine);
  return 0;
}
