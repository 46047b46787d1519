// wasi:http from the C API: a component importing `wasi:http/types`
// (wasi_http.wat) links with weft_component_linker_add_wasip2 +
// weft_component_linker_add_wasi_http (and their _async forms), and its
// `run` drives the host's `fields` resource (append, has, a forbidden
// header refused); without the wasi:http call, linking fails naming the
// import.
#include "weft_common.h"
#include <wasi.h>

// The root export `run` of the instance.
static weft_component_func_t run_func(const weft_component_instance_t *inst, weft_context_t *cx) {
  weft_component_export_index_t *run = weft_component_instance_get_export_index(inst, cx, NULL, "run", 3);
  check(run != NULL);
  weft_component_func_t f;
  check(weft_component_instance_get_func(inst, cx, run, &f));
  weft_component_export_index_delete(run);
  return f;
}

// Instantiates and calls `run` synchronously in a new store; `set_wasi`
// and `set_http` choose the store's contexts.
static uint32_t run_sync(wasm_engine_t *engine, const weft_component_linker_t *linker,
                         const weft_component_t *component, bool set_wasi, bool set_http) {
  weft_store_t *store = weft_store_new(engine, NULL, NULL);
  weft_context_t *cx = weft_store_context(store);
  if (set_wasi) check_ok(weft_context_set_wasi(cx, wasi_config_new()), "set_wasi");
  if (set_http) weft_context_set_wasi_http(cx);
  weft_component_instance_t inst;
  check_ok(weft_component_linker_instantiate(linker, cx, component, &inst), "instantiate");
  weft_component_func_t run = run_func(&inst, cx);
  weft_component_val_t res;
  res.kind = WEFT_COMPONENT_BOOL;
  res.of.boolean = false;
  check_ok(weft_component_func_call(&run, cx, NULL, 0, &res, 1), "call run");
  check(res.kind == WEFT_COMPONENT_U32);
  weft_store_delete(store);
  return res.of.u32;
}

// The same, instantiated and called from a poll loop.
static uint32_t run_async(wasm_engine_t *engine, const weft_component_linker_t *linker,
                          const weft_component_t *component) {
  weft_store_t *store = weft_store_new(engine, NULL, NULL);
  weft_context_t *cx = weft_store_context(store);
  check_ok(weft_context_set_wasi(cx, wasi_config_new()), "set_wasi");
  weft_context_set_wasi_http(cx);
  weft_component_instance_t inst;
  weft_error_t *err = NULL;
  weft_call_future_t *future = weft_component_linker_instantiate_async(linker, cx, component, &inst, &err);
  check(future != NULL);
  while (!weft_call_future_poll(future)) {
  }
  weft_call_future_delete(future);
  check_ok(err, "instantiate_async");
  weft_component_func_t run = run_func(&inst, cx);
  weft_component_val_t res;
  res.kind = WEFT_COMPONENT_BOOL;
  res.of.boolean = false;
  future = weft_component_func_call_async(&run, cx, NULL, 0, &res, 1, &err);
  check(future != NULL);
  while (!weft_call_future_poll(future)) {
  }
  weft_call_future_delete(future);
  check_ok(err, "call_async run");
  check(res.kind == WEFT_COMPONENT_U32);
  weft_store_delete(store);
  return res.of.u32;
}

int main(void) {
  wasm_engine_t *engine = wasm_engine_new();
  wasm_byte_vec_t binary;
  read_file("wasi_http.wasm", &binary);
  weft_component_t *component;
  check_ok(weft_component_new(engine, (const uint8_t *)binary.data, binary.size, &component), "component_new");
  wasm_byte_vec_delete(&binary);

  // WASI 0.2 alone does not provide wasi:http: linking names the import.
  weft_component_linker_t *p2_only = weft_component_linker_new(engine);
  check_ok(weft_component_linker_add_wasip2(p2_only), "add_wasip2");
  weft_store_t *store = weft_store_new(engine, NULL, NULL);
  weft_component_instance_t inst;
  check(error_contains(weft_component_linker_instantiate(p2_only, weft_store_context(store), component, &inst),
                       "wasi:http/types@0.2.0"));
  weft_store_delete(store);
  weft_component_linker_delete(p2_only);
  printf("without wasi:http: link error names wasi:http/types@0.2.0\n");

  // Null arguments.
#ifndef WEFT_CORRECT_USE_ONLY
  check(error_contains(weft_component_linker_add_wasi_http(NULL), "linker"));
  check(error_contains(weft_component_linker_add_wasi_http_async(NULL), "linker"));
  weft_context_set_wasi_http(NULL);
#endif

  weft_component_linker_t *linker = weft_component_linker_new(engine);
  check_ok(weft_component_linker_add_wasip2(linker), "add_wasip2");
  check_ok(weft_component_linker_add_wasi_http(linker), "add_wasi_http");
  printf("sync: run = %u\n", run_sync(engine, linker, component, true, true));
  // Wasmtime 48 panics on a store without these contexts; Weft gives the
  // component a context with the defaults.
  WEFT_ONLY(printf("sync, no wasi:http context set: run = %u\n", run_sync(engine, linker, component, false, false)));
  weft_component_linker_delete(linker);

  weft_component_linker_t *alinker = weft_component_linker_new(engine);
  check_ok(weft_component_linker_add_wasip2_async(alinker), "add_wasip2_async");
  check_ok(weft_component_linker_add_wasi_http_async(alinker), "add_wasi_http_async");
  printf("async: run = %u\n", run_async(engine, alinker, component));
  weft_component_linker_delete(alinker);

  weft_component_delete(component);
  wasm_engine_delete(engine);
  return 0;
}
