// The types of a module's exports, from the module and from the instance.
#include "common.h"

static void print_valtype(const wasm_valtype_t *t) {
  switch (wasm_valtype_kind(t)) {
  case WASM_I32: printf("i32"); break;
  case WASM_I64: printf("i64"); break;
  case WASM_F32: printf("f32"); break;
  case WASM_F64: printf("f64"); break;
  case WASM_EXTERNREF: printf("externref"); break;
  case WASM_FUNCREF: printf("funcref"); break;
  default: printf("?");
  }
}

static void print_valtypes(const wasm_valtype_vec_t *ts) {
  for (size_t i = 0; i < ts->size; ++i) {
    if (i > 0) printf(" ");
    print_valtype(ts->data[i]);
  }
}

static void print_externtype(const wasm_externtype_t *type) {
  switch (wasm_externtype_kind(type)) {
  case WASM_EXTERN_FUNC: {
    const wasm_functype_t *f = wasm_externtype_as_functype_const(type);
    printf("func ");
    print_valtypes(wasm_functype_params(f));
    printf(" -> ");
    print_valtypes(wasm_functype_results(f));
    break;
  }
  case WASM_EXTERN_GLOBAL: {
    const wasm_globaltype_t *g = wasm_externtype_as_globaltype_const(type);
    printf("global %s ", wasm_globaltype_mutability(g) == WASM_VAR ? "var" : "const");
    print_valtype(wasm_globaltype_content(g));
    break;
  }
  case WASM_EXTERN_TABLE: {
    const wasm_tabletype_t *t = wasm_externtype_as_tabletype_const(type);
    const wasm_limits_t *l = wasm_tabletype_limits(t);
    printf("table %u %u ", l->min, l->max);
    print_valtype(wasm_tabletype_element(t));
    break;
  }
  case WASM_EXTERN_MEMORY: {
    const wasm_limits_t *l = wasm_memorytype_limits(wasm_externtype_as_memorytype_const(type));
    printf("memory %u %s", l->min, l->max == wasm_limits_max_default ? "unbounded" : "bounded");
    break;
  }
  default: printf("?");
  }
}

int main(void) {
  printf("Initializing...\n");
  wasm_engine_t *engine = wasm_engine_new();
  wasm_store_t *store = wasm_store_new(engine);
  wasm_module_t *module = load_module(store, "reflect.wasm");
  wasm_extern_vec_t imports = WASM_EMPTY_VEC;
  wasm_instance_t *instance = wasm_instance_new(store, module, &imports, NULL);
  check(instance != NULL);

  printf("Extracting export...\n");
  wasm_exporttype_vec_t export_types;
  wasm_module_exports(module, &export_types);
  wasm_extern_vec_t exports;
  wasm_instance_exports(instance, &exports);
  check(exports.size == export_types.size);

  for (size_t i = 0; i < exports.size; ++i) {
    const wasm_name_t *name = wasm_exporttype_name(export_types.data[i]);
    printf("> export %zu \"%.*s\"\n", i, (int)name->size, name->data);
    printf(">> initial: ");
    print_externtype(wasm_exporttype_type(export_types.data[i]));
    printf("\n");
    wasm_externtype_t *current = wasm_extern_type(exports.data[i]);
    printf(">> current: ");
    print_externtype(current);
    printf("\n");
    check(wasm_externtype_kind(current) == wasm_extern_kind(exports.data[i]));
    wasm_externtype_delete(current);
    if (wasm_extern_kind(exports.data[i]) == WASM_EXTERN_FUNC) {
      const wasm_func_t *f = wasm_extern_as_func_const(exports.data[i]);
      printf(">> in-arity: %zu, out-arity: %zu\n", wasm_func_param_arity(f), wasm_func_result_arity(f));
    }
  }

  wasm_importtype_vec_t import_types;
  wasm_module_imports(module, &import_types);
  check(import_types.size == 0);
  wasm_importtype_vec_delete(&import_types);

  wasm_exporttype_vec_t copy;
  wasm_exporttype_vec_copy(&copy, &export_types);
  check(copy.size == export_types.size);
  wasm_exporttype_vec_delete(&copy);

  wasm_extern_vec_delete(&exports);
  wasm_exporttype_vec_delete(&export_types);
  wasm_instance_delete(instance);
  wasm_module_delete(module);
  printf("Shutting down...\n");
  wasm_store_delete(store);
  wasm_engine_delete(engine);
  printf("Done.\n");
  return 0;
}
