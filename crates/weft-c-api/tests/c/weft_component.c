// weft/component/*.h: a component with imports of every kind (host
// functions, a host resource type, an async host function), values of every
// kind through a call and a host function, resources, type reflection,
// export indices, serialization, async calls and instantiation driven from a
// poll loop, and misuse.
#include "weft_common.h"
#include <assert.h>

static_assert(sizeof(weft_component_instance_t) == 16, "weft_component_instance_t layout");
static_assert(sizeof(weft_component_func_t) == 24, "weft_component_func_t layout");
static_assert(sizeof(weft_component_val_t) == 32, "weft_component_val_t layout");

#define THING_TYPE 7

static void print_name(const wasm_name_t *n) { printf("%.*s", (int)n->size, n->data); }

static void print_val(const weft_component_val_t *v) {
  switch (v->kind) {
  case WEFT_COMPONENT_BOOL: printf("%s", v->of.boolean ? "true" : "false"); break;
  case WEFT_COMPONENT_S8: printf("%d", v->of.s8); break;
  case WEFT_COMPONENT_U8: printf("%u", v->of.u8); break;
  case WEFT_COMPONENT_S16: printf("%d", v->of.s16); break;
  case WEFT_COMPONENT_U16: printf("%u", v->of.u16); break;
  case WEFT_COMPONENT_S32: printf("%d", v->of.s32); break;
  case WEFT_COMPONENT_U32: printf("%u", v->of.u32); break;
  case WEFT_COMPONENT_S64: printf("%lld", (long long)v->of.s64); break;
  case WEFT_COMPONENT_U64: printf("%llu", (unsigned long long)v->of.u64); break;
  case WEFT_COMPONENT_F32: printf("%g", v->of.f32); break;
  case WEFT_COMPONENT_F64: printf("%g", v->of.f64); break;
  case WEFT_COMPONENT_CHAR: printf("U+%04X", v->of.character); break;
  case WEFT_COMPONENT_STRING: printf("\""); print_name(&v->of.string); printf("\""); break;
  case WEFT_COMPONENT_ENUM: print_name(&v->of.enumeration); break;
  case WEFT_COMPONENT_LIST:
  case WEFT_COMPONENT_TUPLE: {
    size_t size = v->kind == WEFT_COMPONENT_LIST ? v->of.list.size : v->of.tuple.size;
    const weft_component_val_t *data = v->kind == WEFT_COMPONENT_LIST ? v->of.list.data : v->of.tuple.data;
    printf(v->kind == WEFT_COMPONENT_LIST ? "[" : "(");
    for (size_t i = 0; i < size; i++) {
      if (i) printf(", ");
      print_val(&data[i]);
    }
    printf(v->kind == WEFT_COMPONENT_LIST ? "]" : ")");
    break;
  }
  case WEFT_COMPONENT_RECORD:
    printf("{");
    for (size_t i = 0; i < v->of.record.size; i++) {
      if (i) printf(", ");
      print_name(&v->of.record.data[i].name);
      printf(": ");
      print_val(&v->of.record.data[i].val);
    }
    printf("}");
    break;
  case WEFT_COMPONENT_VARIANT:
    print_name(&v->of.variant.discriminant);
    if (v->of.variant.val) { printf("("); print_val(v->of.variant.val); printf(")"); }
    break;
  case WEFT_COMPONENT_OPTION:
    if (v->of.option) { printf("some("); print_val(v->of.option); printf(")"); }
    else printf("none");
    break;
  case WEFT_COMPONENT_RESULT:
    printf(v->of.result.is_ok ? "ok" : "err");
    if (v->of.result.val) { printf("("); print_val(v->of.result.val); printf(")"); }
    break;
  case WEFT_COMPONENT_FLAGS:
    printf("{");
    for (size_t i = 0; i < v->of.flags.size; i++) {
      if (i) printf("|");
      print_name(&v->of.flags.data[i]);
    }
    printf("}");
    break;
  case WEFT_COMPONENT_MAP:
    printf("map{");
    for (size_t i = 0; i < v->of.map.size; i++) {
      if (i) printf(", ");
      print_val(&v->of.map.data[i].key);
      printf(" => ");
      print_val(&v->of.map.data[i].value);
    }
    printf("}");
    break;
  case WEFT_COMPONENT_RESOURCE: printf("resource"); break;
  default: printf("?"); break;
  }
}

static void set_name(wasm_name_t *n, const char *s) { wasm_byte_vec_new(n, strlen(s), s); }

static weft_component_val_t string_val(const char *s) {
  weft_component_val_t v;
  v.kind = WEFT_COMPONENT_STRING;
  set_name(&v.of.string, s);
  return v;
}

static weft_component_val_t u32_val(uint32_t x) {
  weft_component_val_t v;
  v.kind = WEFT_COMPONENT_U32;
  v.of.u32 = x;
  return v;
}

// The record of every kind (the `everything` type of component.wat).
static weft_component_val_t make_record(void) {
  weft_component_valrecord_entry_t *f = calloc(20, sizeof *f);
  const char *names[20] = {"b", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32",
                           "f64", "c", "s", "l", "t", "v", "e", "o", "r", "fl"};
  for (int i = 0; i < 20; i++) set_name(&f[i].name, names[i]);
  f[0].val.kind = WEFT_COMPONENT_BOOL; f[0].val.of.boolean = true;
  f[1].val.kind = WEFT_COMPONENT_S8; f[1].val.of.s8 = -8;
  f[2].val.kind = WEFT_COMPONENT_U8; f[2].val.of.u8 = 200;
  f[3].val.kind = WEFT_COMPONENT_S16; f[3].val.of.s16 = -1600;
  f[4].val.kind = WEFT_COMPONENT_U16; f[4].val.of.u16 = 60000;
  f[5].val.kind = WEFT_COMPONENT_S32; f[5].val.of.s32 = -320000;
  f[6] .val = u32_val(41);
  f[7].val.kind = WEFT_COMPONENT_S64; f[7].val.of.s64 = -6400000000LL;
  f[8].val.kind = WEFT_COMPONENT_U64; f[8].val.of.u64 = 18000000000000000000ULL;
  f[9].val.kind = WEFT_COMPONENT_F32; f[9].val.of.f32 = 1.5f;
  f[10].val.kind = WEFT_COMPONENT_F64; f[10].val.of.f64 = -2.25;
  f[11].val.kind = WEFT_COMPONENT_CHAR; f[11].val.of.character = 0x1F600;
  f[12].val = string_val("weft");
  weft_component_val_t items[3] = {u32_val(1), u32_val(2), u32_val(3)};
  f[13].val.kind = WEFT_COMPONENT_LIST;
  weft_component_vallist_new(&f[13].val.of.list, 3, items);
  weft_component_val_t tup[2];
  tup[0].kind = WEFT_COMPONENT_U8; tup[0].of.u8 = 9;
  tup[1] = string_val("nine");
  f[14].val.kind = WEFT_COMPONENT_TUPLE;
  weft_component_valtuple_new(&f[14].val.of.tuple, 2, tup);
  weft_component_val_t payload = string_val("case");
  f[15].val.kind = WEFT_COMPONENT_VARIANT;
  set_name(&f[15].val.of.variant.discriminant, "str");
  f[15].val.of.variant.val = weft_component_val_new(&payload);
  f[16].val.kind = WEFT_COMPONENT_ENUM;
  set_name(&f[16].val.of.enumeration, "green");
  weft_component_val_t some = u32_val(77);
  f[17].val.kind = WEFT_COMPONENT_OPTION;
  f[17].val.of.option = weft_component_val_new(&some);
  weft_component_val_t errv = string_val("bad");
  f[18].val.kind = WEFT_COMPONENT_RESULT;
  f[18].val.of.result.is_ok = false;
  f[18].val.of.result.val = weft_component_val_new(&errv);
  wasm_name_t flags[2];
  set_name(&flags[0], "a");
  set_name(&flags[1], "c");
  f[19].val.kind = WEFT_COMPONENT_FLAGS;
  weft_component_valflags_new(&f[19].val.of.flags, 2, flags);
  weft_component_val_t rec;
  rec.kind = WEFT_COMPONENT_RECORD;
  weft_component_valrecord_new(&rec.of.record, 20, f);
  free(f);
  return rec;
}

static int echo_calls = 0;

// host-echo: gives back its record with `u32` plus one and `s` with a "!".
static weft_error_t *host_echo(void *data, weft_context_t *cx, const weft_component_func_type_t *ty,
                               weft_component_val_t *args, size_t nargs, weft_component_val_t *results,
                               size_t nresults) {
  check(data == &echo_calls && cx != NULL);
  check(nargs == 1 && nresults == 1);
  check(weft_component_func_type_param_count(ty) == 1);
  check(args[0].kind == WEFT_COMPONENT_RECORD && results[0].kind == WEFT_COMPONENT_BOOL);
  echo_calls++;
  weft_component_val_clone(&args[0], &results[0]);
  weft_component_valrecord_entry_t *f = results[0].of.record.data;
  check(results[0].of.record.size == 20);
  f[6].val.of.u32 += 1;
  char buf[64];
  snprintf(buf, sizeof buf, "%.*s!", (int)f[12].val.of.string.size, f[12].val.of.string.data);
  weft_component_val_delete(&f[12].val);
  f[12].val = string_val(buf);
  return NULL;
}

// A host function that fails: the guest traps with its message.
static weft_error_t *host_fail(void *data, weft_context_t *cx, const weft_component_func_type_t *ty,
                               weft_component_val_t *args, size_t nargs, weft_component_val_t *results,
                               size_t nresults) {
  return weft_error_new("the host refuses");
}

static int dtor_calls = 0;
static uint32_t last_dtor_rep = 0;

static weft_error_t *thing_dtor(void *data, weft_context_t *cx, uint32_t rep) {
  check(data == &dtor_calls && cx != NULL);
  dtor_calls++;
  last_dtor_rep = rep;
  return NULL;
}

// host-add, async: done at the third poll of its continuation.
struct add_state {
  int polls;
  uint32_t sum;
  weft_component_val_t *results;
};

static bool add_continue(void *env) {
  struct add_state *st = env;
  st->polls++;
  if (st->polls < 3) return false;
  st->results[0] = u32_val(st->sum);
  return true;
}

static int add_finalized = 0;
static void add_finalize(void *env) {
  add_finalized++;
  free(env);
}

static bool add_done_now(void *env) { return true; }

// host-add, sync, in the linker of the sync calls: a host whose linker has
// async functions must instantiate asynchronously in Wasmtime.
static weft_error_t *host_add_sync(void *data, weft_context_t *cx, const weft_component_func_type_t *ty,
                                   weft_component_val_t *args, size_t nargs, weft_component_val_t *results,
                                   size_t nresults) {
  check(nargs == 2 && nresults == 1);
  results[0] = u32_val(args[0].of.u32 + args[1].of.u32);
  return NULL;
}

static void host_add(void *env, weft_context_t *cx, const weft_component_func_type_t *ty,
                     weft_component_val_t *args, size_t nargs, weft_component_val_t *results, size_t nresults,
                     weft_error_t **error_ret, weft_async_continuation_t *continuation_ret) {
  check(env == NULL && cx != NULL && ty != NULL);
  check(nargs == 2 && nresults == 1);
  if (args[0].of.u32 == 999) {
    *error_ret = weft_error_new("host-add refuses 999");
    // Wasmtime needs a continuation even with an error; Weft takes either.
    continuation_ret->callback = add_done_now;
    return;
  }
  struct add_state *st = calloc(1, sizeof *st);
  st->sum = args[0].of.u32 + args[1].of.u32;
  st->results = results;
  continuation_ret->callback = add_continue;
  continuation_ret->env = st;
  continuation_ret->finalizer = add_finalize;
}

static weft_component_func_t comp_func(const weft_component_instance_t *inst, weft_context_t *cx,
                                      const weft_component_export_index_t *parent, const char *name) {
  weft_component_export_index_t *idx =
      weft_component_instance_get_export_index(inst, cx, parent, name, strlen(name));
  check(idx != NULL);
  weft_component_func_t f;
  check(weft_component_instance_get_func(inst, cx, idx, &f));
  weft_component_export_index_delete(idx);
  return f;
}

static void reflect(const wasm_engine_t *engine, const weft_component_t *component) {
  weft_component_type_t *ty = weft_component_type(component);
  printf("imports: %zu, exports: %zu\n", weft_component_type_import_count(ty, engine),
         weft_component_type_export_count(ty, engine));
  const char *name;
  size_t len;
  weft_component_item_t item;
  for (size_t i = 0; weft_component_type_export_nth(ty, engine, i, &name, &len, &item); i++) {
    printf("export %.*s: kind %d\n", (int)len, name, item.kind);
    weft_component_item_delete(&item);
  }
  check(weft_component_type_export_get(ty, engine, "echo", 4, &item));
  check(item.kind == WEFT_COMPONENT_ITEM_COMPONENT_FUNC);
  const weft_component_func_type_t *fty = item.of.component_func;
  check(!weft_component_func_type_async(fty));
  weft_component_valtype_t pty;
  check(weft_component_func_type_param_nth(fty, 0, &name, &len, &pty));
  check(pty.kind == WEFT_COMPONENT_VALTYPE_RECORD);
  printf("echo(%.*s: record of %zu fields)", (int)len, name, weft_component_record_type_field_count(pty.of.record));
  weft_component_valtype_t rty;
  check(weft_component_func_type_result(fty, &rty));
  check(weft_component_valtype_equal(&pty, &rty));
  weft_component_valtype_t copy;
  weft_component_valtype_clone(&pty, &copy);
  check(weft_component_valtype_equal(&pty, &copy));
  weft_component_valtype_delete(&copy);
  weft_component_valtype_delete(&rty);
  printf(" fields:");
  for (size_t i = 0; i < weft_component_record_type_field_count(pty.of.record); i++) {
    weft_component_valtype_t fty2;
    check(weft_component_record_type_field_nth(pty.of.record, i, &name, &len, &fty2));
    printf(" %.*s=%d", (int)len, name, fty2.kind);
    if (fty2.kind == WEFT_COMPONENT_VALTYPE_ENUM) {
      printf("[");
      for (size_t j = 0; weft_component_enum_type_names_nth(fty2.of.enum_, j, &name, &len); j++)
        printf("%s%.*s", j ? "," : "", (int)len, name);
      printf("]");
    } else if (fty2.kind == WEFT_COMPONENT_VALTYPE_VARIANT) {
      printf("[%zu cases]", weft_component_variant_type_case_count(fty2.of.variant));
    } else if (fty2.kind == WEFT_COMPONENT_VALTYPE_FLAGS) {
      printf("[%zu flags]", weft_component_flags_type_names_count(fty2.of.flags));
    } else if (fty2.kind == WEFT_COMPONENT_VALTYPE_RESULT) {
      weft_component_valtype_t ok, err;
      check(weft_component_result_type_ok(fty2.of.result, &ok));
      check(weft_component_result_type_err(fty2.of.result, &err));
      printf("[%d,%d]", ok.kind, err.kind);
      weft_component_valtype_delete(&ok);
      weft_component_valtype_delete(&err);
    } else if (fty2.kind == WEFT_COMPONENT_VALTYPE_LIST) {
      weft_component_valtype_t el;
      weft_component_list_type_element(fty2.of.list, &el);
      printf("[%d]", el.kind);
      weft_component_valtype_delete(&el);
    }
    weft_component_valtype_delete(&fty2);
  }
  printf("\n");
  weft_component_valtype_delete(&pty);
  weft_component_item_delete(&item);
  check(weft_component_type_import_get(ty, engine, "host", 4, &item));
  check(item.kind == WEFT_COMPONENT_ITEM_COMPONENT_INSTANCE);
  printf("import host: %zu exports:", weft_component_instance_type_export_count(item.of.component_instance, engine));
  weft_component_item_t sub;
  for (size_t i = 0; weft_component_instance_type_export_nth(item.of.component_instance, engine, i, &name, &len, &sub); i++) {
    printf(" %.*s=%d", (int)len, name, sub.kind);
    weft_component_item_delete(&sub);
  }
  printf("\n");
  check(weft_component_instance_type_export_get(item.of.component_instance, engine, "thing", 5, &sub));
  check(sub.kind == WEFT_COMPONENT_ITEM_RESOURCE);
  weft_component_item_t sub2;
  weft_component_item_clone(&sub, &sub2);
  check(weft_component_resource_type_equal(sub.of.resource, sub2.of.resource));
  weft_component_item_delete(&sub);
  weft_component_item_delete(&sub2);
  weft_component_item_delete(&item);
  check(!weft_component_type_import_get(ty, engine, "nope", 4, &item));
  // The exported core module's type.
  check(weft_component_type_import_get(ty, engine, "plugin", 6, &item));
  check(item.kind == WEFT_COMPONENT_ITEM_MODULE);
  const weft_module_type_t *mty = item.of.module;
  printf("module plugin: %zu imports, %zu exports:", weft_module_type_import_count(mty, engine),
         weft_module_type_export_count(mty, engine));
  wasm_importtype_t *it = weft_module_type_import_nth(mty, engine, 0);
  check(it != NULL && weft_module_type_import_nth(mty, engine, 1) == NULL);
  printf(" import %.*s::%.*s=%d;", (int)wasm_importtype_module(it)->size, wasm_importtype_module(it)->data,
         (int)wasm_importtype_name(it)->size, wasm_importtype_name(it)->data,
         wasm_externtype_kind(wasm_importtype_type(it)));
  wasm_importtype_delete(it);
  for (size_t i = 0; i < weft_module_type_export_count(mty, engine); i++) {
    wasm_exporttype_t *et = weft_module_type_export_nth(mty, engine, i);
    const wasm_name_t *en = wasm_exporttype_name(et);
    printf(" %.*s=%d", (int)en->size, en->data, wasm_externtype_kind(wasm_exporttype_type(et)));
    wasm_exporttype_delete(et);
  }
  check(weft_module_type_export_nth(mty, engine, 2) == NULL);
  printf("\n");
  weft_module_type_t *mty2 = weft_module_type_clone(mty);
  weft_module_type_delete(mty2);
  weft_component_item_delete(&item);
  weft_component_type_delete(ty);
}

static const char *PLUGIN = "(module (import \"env\" \"log\" (func (param i32)))"
                             " (memory (export \"mem\") 1) (func (export \"f\") (result i32) i32.const 1))";

static void add_plugin(wasm_engine_t *engine, weft_component_linker_instance_t *root) {
  wasm_byte_vec_t wasm;
  check_ok(weft_wat2wasm(PLUGIN, strlen(PLUGIN), &wasm), "wat2wasm");
  weft_module_t *module;
  check_ok(weft_module_new(engine, (const uint8_t *)wasm.data, wasm.size, &module), "module_new");
  wasm_byte_vec_delete(&wasm);
  check_ok(weft_component_linker_instance_add_module(root, "plugin", 6, module), "add_module");
  weft_module_delete(module);
}

// The linker of the test's imports; `async_add` chooses the async host-add.
static weft_component_linker_t *make_linker(wasm_engine_t *engine, bool async_add) {
  weft_component_linker_t *linker = weft_component_linker_new(engine);
  weft_component_linker_instance_t *root = weft_component_linker_root(linker);
  add_plugin(engine, root);
  weft_component_linker_instance_t *host;
  check_ok(weft_component_linker_instance_add_instance(root, "host", 4, &host), "add_instance");
  check_ok(weft_component_linker_instance_add_func(host, "host-echo", 9, host_echo, &echo_calls, NULL), "add_func");
  weft_component_resource_type_t *thing = weft_component_resource_type_new_host(THING_TYPE);
  check_ok(weft_component_linker_instance_add_resource(host, "thing", 5, thing, thing_dtor, &dtor_calls, NULL),
           "add_resource");
  weft_component_resource_type_delete(thing);
  if (async_add) {
    check_ok(weft_component_linker_instance_add_func_async(host, "host-add", 8, host_add, NULL, NULL),
             "add_func_async");
  } else {
    check_ok(weft_component_linker_instance_add_func(host, "host-add", 8, host_add_sync, NULL, NULL), "add_func");
  }
  // Defining a name twice is an error unless shadowing is allowed.
  check(error_contains(weft_component_linker_instance_add_func(host, "host-echo", 9, host_echo, NULL, NULL),
                       "already defined"));
  weft_component_linker_instance_delete(host);
  // A nested instance, then the root again.
  weft_component_linker_instance_t *nested;
  check_ok(weft_component_linker_instance_add_instance(root, "unused", 6, &nested), "add_instance");
  check_ok(weft_component_linker_instance_add_func(nested, "f", 1, host_echo, NULL, NULL), "nested add_func");
  weft_component_linker_instance_delete(nested);
  weft_component_linker_instance_delete(root);
  return linker;
}

static void values(weft_context_t *cx, const weft_component_instance_t *inst) {
  weft_component_func_t echo = comp_func(inst, cx, NULL, "echo");
  weft_component_func_type_t *fty = weft_component_func_type(&echo, cx);
  check(fty != NULL && weft_component_func_type_param_count(fty) == 1);
  weft_component_func_type_delete(fty);

  weft_component_val_t arg = make_record();
  weft_component_val_t res;
  res.kind = WEFT_COMPONENT_BOOL;
  res.of.boolean = false;
  check_ok(weft_component_func_call(&echo, cx, &arg, 1, &res, 1), "call echo");
  printf("host-echo calls: %d\n", echo_calls);
  print_val(&res);
  printf("\n");
  // The argument was borrowed, not consumed.
  check(arg.kind == WEFT_COMPONENT_RECORD && arg.of.record.size == 20);

  // Wrong counts and kinds are errors (Wasmtime's errors leave the
  // instance unusable: "cannot enter component instance").
#ifndef WEFT_CORRECT_USE_ONLY
  check(error_contains(weft_component_func_call(&echo, cx, NULL, 0, &res, 1), "expected"));
  check(error_contains(weft_component_func_call(&echo, cx, &arg, 1, NULL, 0), "expected 1 results"));
  weft_component_val_t wrong = u32_val(5);
  check(error_contains(weft_component_func_call(&echo, cx, &wrong, 1, &res, 1), "type mismatch"));
#endif
  check_ok(weft_component_func_post_return(&echo, cx), "post_return");

  // Deep copies, and the vectors' own functions.
  weft_component_val_t copy;
  weft_component_val_clone(&res, &copy);
  weft_component_val_delete(&res);
  print_val(&copy);
  printf("\n");
  weft_component_val_delete(&copy);
  weft_component_val_delete(&arg);
  WEFT_ONLY(check(arg.kind == WEFT_COMPONENT_BOOL)); // Weft leaves a deleted value a `false`

  weft_component_valmap_t map;
  weft_component_valmap_new_uninit(&map, 2);
  map.data[0].key = string_val("one");
  map.data[0].value = u32_val(1);
  map.data[1].key = string_val("two");
  map.data[1].value = u32_val(2);
  weft_component_val_t mv;
  mv.kind = WEFT_COMPONENT_MAP;
  weft_component_valmap_copy(&mv.of.map, &map);
  weft_component_valmap_delete(&map);
  weft_component_val_t *heap = weft_component_val_new(&mv);
  check(mv.kind == WEFT_COMPONENT_BOOL);
  print_val(heap);
  printf("\n");
  weft_component_val_free(heap);
  weft_component_vallist_t empty;
  weft_component_vallist_new_empty(&empty);
  check(empty.size == 0);
  weft_component_vallist_delete(&empty);
  weft_component_valflags_t fl;
  weft_component_valflags_new_uninit(&fl, 1);
  weft_component_valflags_t fl2;
  weft_component_valflags_copy(&fl2, &fl);
  check(fl2.size == 1);
  weft_component_valflags_delete(&fl);
  weft_component_valflags_delete(&fl2);
}

static void resources(weft_context_t *cx, const weft_component_instance_t *inst) {
  weft_component_func_t roundtrip = comp_func(inst, cx, NULL, "roundtrip");
  weft_component_func_t consume = comp_func(inst, cx, NULL, "consume");
  weft_component_resource_host_t *host = weft_component_resource_host_new(true, 42, THING_TYPE);
  check(weft_component_resource_host_rep(host) == 42 && weft_component_resource_host_type(host) == THING_TYPE);
  check(weft_component_resource_host_owned(host));
  weft_component_resource_host_t *host2 = weft_component_resource_host_clone(host);
  weft_component_resource_host_delete(host);
  weft_component_resource_any_t *any;
  check_ok(weft_component_resource_host_to_any(cx, host2, &any), "host_to_any");
  weft_component_resource_host_delete(host2);
  check(weft_component_resource_any_owned(any));
  weft_component_resource_type_t *rt = weft_component_resource_any_type(any);
  weft_component_resource_type_t *expected = weft_component_resource_type_new_host(THING_TYPE);
  weft_component_resource_type_t *other = weft_component_resource_type_new_host(THING_TYPE + 1);
  check(weft_component_resource_type_equal(rt, expected));
  check(!weft_component_resource_type_equal(rt, other));
  weft_component_resource_type_delete(rt);
  weft_component_resource_type_delete(expected);
  weft_component_resource_type_delete(other);

  // Into the guest and back.
  weft_component_val_t arg;
  arg.kind = WEFT_COMPONENT_RESOURCE;
  arg.of.resource = any;
  weft_component_val_t res;
  res.kind = WEFT_COMPONENT_BOOL;
  check_ok(weft_component_func_call(&roundtrip, cx, &arg, 1, &res, 1), "roundtrip");
  weft_component_val_delete(&arg);
  check(res.kind == WEFT_COMPONENT_RESOURCE && weft_component_resource_any_owned(res.of.resource));
  weft_component_resource_host_t *back;
  check_ok(weft_component_resource_any_to_host(cx, res.of.resource, &back), "any_to_host");
  printf("roundtrip: rep %u, type %u, owned %d\n", weft_component_resource_host_rep(back),
         weft_component_resource_host_type(back), weft_component_resource_host_owned(back));
  weft_component_val_delete(&res);

  // The guest drops it: the host's destructor runs.
  check_ok(weft_component_resource_host_to_any(cx, back, &any), "host_to_any");
  weft_component_resource_host_delete(back);
  arg.kind = WEFT_COMPONENT_RESOURCE;
  arg.of.resource = any;
  check_ok(weft_component_func_call(&consume, cx, &arg, 1, NULL, 0), "consume");
  weft_component_val_delete(&arg);
  printf("dtor calls: %d, last rep %u\n", dtor_calls, last_dtor_rep);

  // The host drops one it made: as in Wasmtime, no destructor runs (the
  // linker's destructor is for handles that come from a guest).
  host = weft_component_resource_host_new(true, 43, THING_TYPE);
  check_ok(weft_component_resource_host_to_any(cx, host, &any), "host_to_any");
  weft_component_resource_host_delete(host);
  weft_component_resource_any_t *any2 = weft_component_resource_any_clone(any);
  check_ok(weft_component_resource_any_drop(cx, any), "any_drop");
  printf("dtor calls: %d, last rep %u\n", dtor_calls, last_dtor_rep);
  // Dropping it twice is an error, not undefined behaviour.
  check(error_contains(weft_component_resource_any_drop(cx, any2), "unknown handle"));
  weft_component_resource_any_delete(any);
  weft_component_resource_any_delete(any2);
}

static int run_future(weft_call_future_t *future) {
  check(future != NULL);
  int polls = 1;
  while (!weft_call_future_poll(future)) polls++;
  // Completed stays completed (Wasmtime 48 panics on a poll after the end).
  WEFT_ONLY(check(weft_call_future_poll(future)));
  weft_call_future_delete(future);
  return polls;
}

static void async_calls(wasm_engine_t *engine, weft_component_linker_t *linker, const weft_component_t *component) {
  weft_store_t *store = weft_store_new(engine, NULL, NULL);
  weft_context_t *cx = weft_store_context(store);
  weft_component_instance_t inst;
  weft_error_t *err = NULL;
  int polls = run_future(weft_component_linker_instantiate_async(linker, cx, component, &inst, &err));
  check_ok(err, "instantiate_async");
  printf("instantiate_async: %d poll(s)\n", polls);

  weft_component_func_t slow = comp_func(&inst, cx, NULL, "slow-add");
  weft_component_val_t args[2] = {u32_val(4), u32_val(5)};
  weft_component_val_t res = u32_val(0);
  err = NULL;
  polls = run_future(weft_component_func_call_async(&slow, cx, args, 2, &res, 1, &err));
  check_ok(err, "call_async");
  printf("slow-add(4, 5) = %u after %d polls, finalized %d\n", res.of.u32, polls, add_finalized);

  // Through the exported instance `api`.
  weft_component_export_index_t *api = weft_component_instance_get_export_index(&inst, cx, NULL, "api", 3);
  check(api != NULL);
  weft_component_func_t inner = comp_func(&inst, cx, api, "slow-add");
  weft_component_export_index_delete(api);
  args[0] = u32_val(999);
  err = NULL;
  run_future(weft_component_func_call_async(&inner, cx, args, 2, &res, 1, &err));
  check(error_contains(err, "host-add refuses 999"));

  // A sync call of a function whose host import is async fails cleanly.
  args[0] = u32_val(1);
  check(error_contains(weft_component_func_call(&slow, cx, args, 2, &res, 1), "sync"));

  // A future deleted before it completes cancels its call.
  weft_store_t *store2 = weft_store_new(engine, NULL, NULL);
  weft_context_t *cx2 = weft_store_context(store2);
  weft_component_instance_t inst2;
  // Async, as the linker has async functions (Wasmtime refuses a sync
  // instantiation then; Weft refuses only a sync call that reaches one).
  err = NULL; // Wasmtime writes it only on failure
  run_future(weft_component_linker_instantiate_async(linker, cx2, component, &inst2, &err));
  check_ok(err, "instantiate_async");
  weft_component_func_t slow2 = comp_func(&inst2, cx2, NULL, "slow-add");
  err = NULL;
  weft_call_future_t *future = weft_component_func_call_async(&slow2, cx2, args, 2, &res, 1, &err);
  check(!weft_call_future_poll(future));
  weft_call_future_delete(future);
  check(err == NULL);
  printf("cancelled: finalized %d\n", add_finalized);
  weft_store_delete(store2);
  weft_store_delete(store);
}

int main(void) {
  wasm_engine_t *engine = wasm_engine_new();
  wasm_byte_vec_t binary;
  read_file("component.wasm", &binary);
  weft_component_t *component;
  check_ok(weft_component_new(engine, (const uint8_t *)binary.data, binary.size, &component), "component_new");
  wasm_byte_vec_delete(&binary);
  // A core module is not a component.
  weft_component_t *bad;
  check(error_contains(weft_component_new(engine, (const uint8_t *)"\0asm\1\0\0\0", 8, &bad), ""));

  reflect(engine, component);

  // Export indices of the component itself.
  weft_component_export_index_t *api = weft_component_get_export_index(component, NULL, "api", 3);
  check(api != NULL);
  weft_component_export_index_t *inner = weft_component_get_export_index(component, api, "slow-add", 8);
  check(inner != NULL);
  check(weft_component_get_export_index(component, api, "echo", 4) == NULL);
  check(weft_component_get_export_index(component, NULL, "nope", 4) == NULL);
  weft_component_export_index_delete(inner);
  weft_component_export_index_delete(api);

  // Serialized and read back.
  wasm_byte_vec_t bytes;
  check_ok(weft_component_serialize(component, &bytes), "serialize");
  weft_component_t *again;
  check_ok(weft_component_deserialize(engine, (const uint8_t *)bytes.data, bytes.size, &again), "deserialize");
  wasm_byte_vec_delete(&bytes);
  check(error_contains(weft_component_deserialize(engine, (const uint8_t *)"nope", 4, &bad), "not a component"));
  weft_component_t *clone = weft_component_clone(again);
  weft_component_delete(again);
  // An index is of one component (as in Wasmtime, a deserialized copy is
  // another): taken from the clone, and cloned itself.
  api = weft_component_get_export_index(clone, NULL, "api", 3);
  inner = weft_component_get_export_index(clone, api, "slow-add", 8);
  check(api != NULL && inner != NULL);
  weft_component_export_index_t *inner2 = weft_component_export_index_clone(inner);
  weft_component_export_index_delete(inner);
  weft_component_export_index_delete(api);

  weft_component_linker_t *linker = make_linker(engine, false);
  weft_store_t *store = weft_store_new(engine, NULL, NULL);
  weft_context_t *cx = weft_store_context(store);
  weft_component_instance_t inst;
  check_ok(weft_component_linker_instantiate(linker, cx, clone, &inst), "instantiate");
  // The component-level index works on the instance too.
  weft_component_func_t f;
  check(weft_component_instance_get_func(&inst, cx, inner2, &f));
  weft_component_export_index_delete(inner2);

  values(cx, &inst);
  resources(cx, &inst);

  // Objects of another store are refused.
  weft_store_t *other = weft_store_new(engine, NULL, NULL);
  weft_context_t *ocx = weft_store_context(other);
  weft_component_val_t res = u32_val(0);
  WEFT_ONLY(check(error_contains(weft_component_func_call(&f, ocx, NULL, 0, &res, 1), "wrong store")));
  WEFT_ONLY(check(weft_component_instance_get_export_index(&inst, ocx, NULL, "echo", 4) == NULL));
  weft_store_delete(other);

  // Unknown imports as traps: an empty linker then instantiates.
  weft_component_linker_t *empty = weft_component_linker_new(engine);
  check(error_contains(weft_component_linker_instantiate(empty, cx, component, &inst), "does not define"));
  // (Resource types are not functions: the host defines `thing` itself.)
  weft_component_linker_instance_t *eroot = weft_component_linker_root(empty);
  add_plugin(engine, eroot);
  weft_component_linker_instance_t *ehost;
  check_ok(weft_component_linker_instance_add_instance(eroot, "host", 4, &ehost), "add_instance");
  weft_component_resource_type_t *thing = weft_component_resource_type_new_host(THING_TYPE);
  check_ok(weft_component_linker_instance_add_resource(ehost, "thing", 5, thing, NULL, NULL, NULL), "add_resource");
  weft_component_resource_type_delete(thing);
  weft_component_linker_instance_delete(ehost);
  weft_component_linker_instance_delete(eroot);
  check_ok(weft_component_linker_define_unknown_imports_as_traps(empty, component), "unknown imports");
  weft_component_instance_t trapping;
  check_ok(weft_component_linker_instantiate(empty, cx, component, &trapping), "instantiate with traps");
  weft_component_func_t trap_echo = comp_func(&trapping, cx, NULL, "echo");
  weft_component_val_t rec = make_record();
  check(error_contains(weft_component_func_call(&trap_echo, cx, &rec, 1, &res, 1), "host-echo"));
  weft_component_val_delete(&rec);
  weft_component_linker_delete(empty);

  // WASI 0.2 and wasi:http link (weft_wasip2.c and weft_wasi_http.c run
  // them); adding wasi:http twice is refused.
  weft_component_linker_t *wasi_linker = weft_component_linker_new(engine);
  check_ok(weft_component_linker_add_wasip2(wasi_linker), "add_wasip2");
  check_ok(weft_component_linker_add_wasi_http(wasi_linker), "add_wasi_http");
  check(error_contains(weft_component_linker_add_wasi_http(wasi_linker), "already defined"));
  weft_component_linker_delete(wasi_linker);
  wasi_linker = weft_component_linker_new(engine);
  check_ok(weft_component_linker_add_wasip2_async(wasi_linker), "add_wasip2_async");
  check_ok(weft_component_linker_add_wasi_http_async(wasi_linker), "add_wasi_http_async");
  weft_component_linker_delete(wasi_linker);
  weft_component_linker_allow_shadowing(linker, true);

  weft_component_linker_t *async_linker = make_linker(engine, true);
  async_calls(engine, async_linker, clone);
  weft_component_linker_delete(async_linker);
  weft_error_t *err = NULL;

  // With shadowing allowed, a definition replaces another; a host
  // function's error reaches the caller with its message.
  {
    weft_component_linker_instance_t *root = weft_component_linker_root(linker);
    weft_component_linker_instance_t *host;
    check_ok(weft_component_linker_instance_add_instance(root, "host", 4, &host), "reopen host");
    check_ok(weft_component_linker_instance_add_func(host, "host-echo", 9, host_fail, NULL, NULL), "shadow");
    weft_component_linker_instance_delete(host);
    weft_component_linker_instance_delete(root);
    weft_component_instance_t failing;
    check_ok(weft_component_linker_instantiate(linker, cx, clone, &failing), "instantiate failing");
    weft_component_func_t fecho = comp_func(&failing, cx, NULL, "echo");
    weft_component_val_t rec = make_record();
    check(error_contains(weft_component_func_call(&fecho, cx, &rec, 1, &res, 1), "the host refuses"));
    weft_component_val_delete(&rec);
  }

  // Null pointers are errors (or null/false results), not crashes.
#ifndef WEFT_CORRECT_USE_ONLY
  weft_component_t *none = NULL;
  check(error_contains(weft_component_new(NULL, NULL, 0, &none), "null"));
  check(error_contains(weft_component_new(engine, NULL, 4, &none), "null"));
  check(error_contains(weft_component_serialize(NULL, &bytes), "null"));
  check(error_contains(weft_component_func_call(NULL, cx, NULL, 0, NULL, 0), "null"));
  check(error_contains(weft_component_func_call(&f, NULL, NULL, 0, NULL, 0), "null"));
  check(error_contains(weft_component_linker_instantiate(NULL, cx, clone, &inst), "null"));
  check(error_contains(weft_component_linker_instantiate(linker, cx, NULL, &inst), "null"));
  check(error_contains(weft_component_linker_instance_add_func(NULL, "x", 1, host_echo, NULL, NULL), "null"));
  check(error_contains(weft_component_resource_any_drop(cx, NULL), "null"));
  check(error_contains(weft_component_resource_host_to_any(NULL, NULL, NULL), "null"));
  check(weft_component_clone(NULL) == NULL && weft_component_type(NULL) == NULL);
  check(weft_component_get_export_index(NULL, NULL, "x", 1) == NULL);
  check(!weft_component_instance_get_func(NULL, cx, NULL, &f));
  check(weft_component_func_type(NULL, cx) == NULL);
  check(weft_component_linker_root(NULL) == NULL && weft_component_linker_new(NULL) == NULL);
  check(!weft_component_resource_any_owned(NULL) && weft_component_resource_host_rep(NULL) == 0);
  check(weft_call_future_poll(NULL));
  check(weft_component_func_call_async(NULL, cx, NULL, 0, NULL, 0, &err) == NULL);
  check(weft_component_type_import_count(NULL, engine) == 0);
  weft_component_val_delete(NULL);
  weft_component_val_free(NULL);
  weft_component_valtype_delete(NULL);
  weft_component_item_delete(NULL);
  // A string that is not UTF-8 is refused.
  weft_component_val_t bad_str;
  bad_str.kind = WEFT_COMPONENT_STRING;
  wasm_byte_vec_new(&bad_str.of.string, 2, "\xff\xfe");
  weft_component_func_t echo = comp_func(&inst, cx, NULL, "echo");
  check(error_contains(weft_component_func_call(&echo, cx, &bad_str, 1, &res, 1), "utf-8"));
  weft_component_val_delete(&bad_str);
  // An unknown value kind is refused.
  weft_component_val_t odd;
  odd.kind = 99;
  check(error_contains(weft_component_func_call(&echo, cx, &odd, 1, &res, 1), "kind"));
#endif

  weft_store_delete(store);
  weft_component_linker_delete(linker);
  weft_component_delete(clone);
  weft_component_delete(component);
  wasm_engine_delete(engine);
  printf("done\n");
  return 0;
}
