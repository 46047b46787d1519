// Precompiled components from the C API: weft_component_serialize writes
// the compiled form (not the binary), weft_component_deserialize and
// _deserialize_file load it without compiling and the result runs; bytes
// that are not a precompiled component for this engine are refused with
// an error saying why.
#include "weft_common.h"

static const char *COMPONENT =
    "(component\n"
    "  (core module $m\n"
    "    (func (export \"add\") (param i32 i32) (result i32)\n"
    "      (i32.add (local.get 0) (local.get 1))))\n"
    "  (core instance $i (instantiate $m))\n"
    "  (func (export \"add\") (param \"a\" u32) (param \"b\" u32) (result u32)\n"
    "    (canon lift (core func $i \"add\"))))\n";

static const char *MODULE = "(module (func (export \"f\")))";

// Instantiates `component` and returns add(a, b).
static uint32_t call_add(wasm_engine_t *engine, const weft_component_t *component, uint32_t a, uint32_t b) {
  weft_component_linker_t *linker = weft_component_linker_new(engine);
  weft_store_t *store = weft_store_new(engine, NULL, NULL);
  weft_context_t *cx = weft_store_context(store);
  weft_component_instance_t inst;
  check_ok(weft_component_linker_instantiate(linker, cx, component, &inst), "instantiate");
  weft_component_export_index_t *idx = weft_component_instance_get_export_index(&inst, cx, NULL, "add", 3);
  check(idx != NULL);
  weft_component_func_t f;
  check(weft_component_instance_get_func(&inst, cx, idx, &f));
  weft_component_export_index_delete(idx);
  weft_component_val_t args[2];
  args[0].kind = WEFT_COMPONENT_U32;
  args[0].of.u32 = a;
  args[1].kind = WEFT_COMPONENT_U32;
  args[1].of.u32 = b;
  weft_component_val_t res;
  res.kind = WEFT_COMPONENT_BOOL;
  res.of.boolean = false;
  check_ok(weft_component_func_call(&f, cx, args, 2, &res, 1), "call add");
  check(res.kind == WEFT_COMPONENT_U32);
  weft_store_delete(store);
  weft_component_linker_delete(linker);
  return res.of.u32;
}

int main(void) {
  wasm_engine_t *engine = wasm_engine_new();
  wasm_byte_vec_t wasm;
  check_ok(weft_wat2wasm(COMPONENT, strlen(COMPONENT), &wasm), "wat2wasm");
  weft_component_t *component;
  check_ok(weft_component_new(engine, (const uint8_t *)wasm.data, wasm.size, &component), "component_new");

  // The precompiled form: Weft's header, not the component's binary.
  wasm_byte_vec_t bytes;
  check_ok(weft_component_serialize(component, &bytes), "serialize");
  WEFT_ONLY(check(bytes.size > 11 && memcmp(bytes.data, "\0weft-ccomp", 11) == 0));
  check(bytes.size != wasm.size || memcmp(bytes.data, wasm.data, wasm.size) != 0);
  printf("serialized: starts with the precompiled-component magic\n");

  // Loaded and called.
  weft_component_t *again;
  check_ok(weft_component_deserialize(engine, (const uint8_t *)bytes.data, bytes.size, &again), "deserialize");
  printf("deserialized: add(2, 3) = %u\n", call_add(engine, again, 2, 3));
  weft_component_delete(again);

  // From a file.
  FILE *file = fopen("component.cwasm", "wb");
  check(file != NULL);
  check(fwrite(bytes.data, 1, bytes.size, file) == bytes.size);
  fclose(file);
  check_ok(weft_component_deserialize_file(engine, "component.cwasm", &again), "deserialize_file");
  printf("from a file: add(40, 2) = %u\n", call_add(engine, again, 40, 2));
  weft_component_delete(again);

  // Bad bytes, each refused with its reason (Wasmtime's deserialization
  // trusts its input: there, these are undefined behaviour).
  weft_component_t *bad = NULL;
#ifndef WEFT_CORRECT_USE_ONLY
  check(error_contains(weft_component_deserialize(engine, (const uint8_t *)"nope", 4, &bad),
                       "not a component precompiled by Weft"));
  check(error_contains(weft_component_deserialize(engine, (const uint8_t *)bytes.data, 6, &bad), "truncated"));
  check(error_contains(weft_component_deserialize(engine, (const uint8_t *)bytes.data, bytes.size - 3, &bad), ""));
  check(error_contains(weft_component_deserialize(engine, (const uint8_t *)wasm.data, wasm.size, &bad),
                       "not a component precompiled by Weft"));
  check(error_contains(weft_component_deserialize_file(engine, "no-such-file.cwasm", &bad), "no-such-file.cwasm"));
  check(error_contains(weft_component_deserialize(NULL, (const uint8_t *)bytes.data, bytes.size, &bad), "engine"));
  check(bad == NULL);
  printf("bad bytes: refused\n");
#endif

  // A precompiled core module is not a component.
  weft_module_t *module = compile_wat(engine, MODULE);
  wasm_byte_vec_t module_bytes;
  check_ok(weft_module_serialize(module, &module_bytes), "module_serialize");
  check(error_contains(
      weft_component_deserialize(engine, (const uint8_t *)module_bytes.data, module_bytes.size, &bad),
      "precompiled core module"));
  wasm_byte_vec_delete(&module_bytes);
  weft_module_delete(module);
  printf("precompiled module: refused\n");

  // An engine without a proposal the code was compiled with cannot load
  // it (nothing is compiled again), and the error names the proposal.
  wasm_config_t *config = wasm_config_new();
  weft_config_wasm_tail_call_set(config, false);
  wasm_engine_t *other = wasm_engine_new_with_config(config);
  check(error_contains(weft_component_deserialize(other, (const uint8_t *)bytes.data, bytes.size, &bad), "TAIL_CALL"));
  // It compiles its own, which loads there and, compiled with fewer
  // proposals, on the first engine too (as in Wasmtime).
  weft_component_t *theirs;
  check_ok(weft_component_new(other, (const uint8_t *)wasm.data, wasm.size, &theirs), "component_new (other)");
  wasm_byte_vec_t their_bytes;
  check_ok(weft_component_serialize(theirs, &their_bytes), "serialize (other)");
  check_ok(weft_component_deserialize(engine, (const uint8_t *)their_bytes.data, their_bytes.size, &again),
           "deserialize (fewer proposals)");
  printf("fewer proposals: add(7, 8) = %u\n", call_add(engine, again, 7, 8));
  weft_component_delete(again);
  check_ok(weft_component_deserialize(other, (const uint8_t *)their_bytes.data, their_bytes.size, &again),
           "deserialize (other)");
  printf("other engine: add(7, 8) = %u\n", call_add(other, again, 7, 8));
  weft_component_delete(again);
  weft_component_delete(theirs);
  wasm_byte_vec_delete(&their_bytes);
  wasm_engine_delete(other);
  printf("other configuration: refused\n");

  wasm_byte_vec_delete(&bytes);
  wasm_byte_vec_delete(&wasm);
  weft_component_delete(component);
  wasm_engine_delete(engine);
  return 0;
}
