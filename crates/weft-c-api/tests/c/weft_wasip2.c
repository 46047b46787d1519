// WASI 0.2 from the C API: a command component (wasip2.wat) linked with
// weft_component_linker_add_wasip2 (and _async) prints its arguments and
// environment, given by a wasi_config_t, to an inherited stdout, a host
// callback and a file, called synchronously and from a poll loop.
#include "weft_common.h"
#include <wasi.h>

static size_t custom_bytes = 0;
static char custom_buf[512];
static int custom_finalized = 0;

static ptrdiff_t custom_write(void *data, const unsigned char *buf, size_t len) {
  check(data == &custom_bytes);
  check(custom_bytes + len < sizeof custom_buf);
  memcpy(custom_buf + custom_bytes, buf, len);
  custom_bytes += len;
  return (ptrdiff_t)len;
}

static void custom_finalize(void *data) {
  check(data == &custom_bytes);
  custom_finalized++;
}

// A configuration with `argc` arguments and `envc` variables.
static wasi_config_t *config(size_t argc, const char **argv, size_t envc, const char **names, const char **values) {
  wasi_config_t *wasi = wasi_config_new();
  check(wasi_config_set_argv(wasi, argc, argv));
  check(wasi_config_set_env(wasi, envc, names, values));
  return wasi;
}

// The component's `wasi:cli/run` `run` in the instance.
static weft_component_func_t run_func(const weft_component_instance_t *inst, weft_context_t *cx) {
  weft_component_export_index_t *iface =
      weft_component_instance_get_export_index(inst, cx, NULL, "wasi:cli/run@0.2.0", 18);
  check(iface != NULL);
  weft_component_export_index_t *run = weft_component_instance_get_export_index(inst, cx, iface, "run", 3);
  check(run != NULL);
  weft_component_func_t f;
  check(weft_component_instance_get_func(inst, cx, run, &f));
  weft_component_export_index_delete(run);
  weft_component_export_index_delete(iface);
  return f;
}

// Whether `res` is `result::ok`; frees it.
static bool is_ok(weft_component_val_t *res) {
  check(res->kind == WEFT_COMPONENT_RESULT);
  bool ok = res->of.result.is_ok;
  weft_component_val_delete(res);
  return ok;
}

// Runs the component synchronously in a new store (with `wasi`, unless
// NULL); returns whether `run` returned `ok`.
static bool run_sync(wasm_engine_t *engine, const weft_component_linker_t *linker,
                     const weft_component_t *component, wasi_config_t *wasi) {
  weft_store_t *store = weft_store_new(engine, NULL, NULL);
  weft_context_t *cx = weft_store_context(store);
  if (wasi != NULL) check_ok(weft_context_set_wasi(cx, wasi), "set_wasi");
  weft_component_instance_t inst;
  check_ok(weft_component_linker_instantiate(linker, cx, component, &inst), "instantiate");
  weft_component_func_t run = run_func(&inst, cx);
  weft_component_val_t res;
  res.kind = WEFT_COMPONENT_BOOL;
  res.of.boolean = false;
  fflush(stdout);
  check_ok(weft_component_func_call(&run, cx, NULL, 0, &res, 1), "call run");
  weft_store_delete(store);
  return is_ok(&res);
}

// Runs it asynchronously, instantiation and call polled to completion;
// returns whether `run` returned `ok`, and the number of polls in `*polls`.
static bool run_async(wasm_engine_t *engine, const weft_component_linker_t *linker,
                      const weft_component_t *component, wasi_config_t *wasi) {
  weft_store_t *store = weft_store_new(engine, NULL, NULL);
  weft_context_t *cx = weft_store_context(store);
  check_ok(weft_context_set_wasi(cx, wasi), "set_wasi");
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
  weft_store_delete(store);
  return is_ok(&res);
}

int main(void) {
  wasm_engine_t *engine = wasm_engine_new();
  wasm_byte_vec_t binary;
  read_file("wasip2.wasm", &binary);
  weft_component_t *component;
  check_ok(weft_component_new(engine, (const uint8_t *)binary.data, binary.size, &component), "component_new");
  wasm_byte_vec_delete(&binary);

  // Without WASI the imports are missing.
  weft_component_linker_t *bare = weft_component_linker_new(engine);
  weft_store_t *store = weft_store_new(engine, NULL, NULL);
  weft_component_instance_t inst;
  check(error_contains(weft_component_linker_instantiate(bare, weft_store_context(store), component, &inst),
                       "wasi:"));
  weft_store_delete(store);
  weft_component_linker_delete(bare);

  weft_component_linker_t *linker = weft_component_linker_new(engine);
  check_ok(weft_component_linker_add_wasip2(linker), "add_wasip2");
  WEFT_ONLY(check(error_contains(weft_component_linker_add_wasip2(NULL), "linker")));

  const char *argv[] = {"prog", "two words", "wörld"};
  const char *names[] = {"GREETING", "EMPTY", "FAIL"};
  const char *values[] = {"hello", "", "yes"};

  // Inherited stdout.
  wasi_config_t *wasi = config(3, argv, 2, names, values);
  wasi_config_inherit_stdout(wasi);
  printf("sync, inherited stdout:\n");
  bool ok = run_sync(engine, linker, component, wasi);
  printf("ok: %d\n", ok);

  // A host callback; `FAIL` makes `run` return `err`.
  wasi = config(1, argv, 3, names, values);
  wasi_config_set_stdout_custom(wasi, custom_write, &custom_bytes, custom_finalize);
  ok = run_sync(engine, linker, component, wasi);
  printf("sync, custom stdout (%zu bytes, finalized %d):\n%.*s", custom_bytes, custom_finalized, (int)custom_bytes,
         custom_buf);
  printf("ok: %d\n", ok);

  // A store without a WASI context: the guest sees nothing, its output is
  // thrown away.
  // Wasmtime 48 panics on a store without a WASI context; Weft gives the
  // component one with the defaults.
  WEFT_ONLY(printf("sync, no context: ok %d\n", run_sync(engine, linker, component, NULL)));

  // Async, to a file.
  weft_component_linker_t *alinker = weft_component_linker_new(engine);
  check_ok(weft_component_linker_add_wasip2_async(alinker), "add_wasip2_async");
  wasi = config(2, argv, 1, names, values);
  check(wasi_config_set_stdout_file(wasi, "wasip2_stdout.txt"));
  ok = run_async(engine, alinker, component, wasi);
  read_file("wasip2_stdout.txt", &binary);
  printf("async, stdout to a file:\n%.*s", (int)binary.size, binary.data);
  printf("ok: %d\n", ok);
  wasm_byte_vec_delete(&binary);

  // Async, inherited stdout, `err`.
  wasi = config(1, argv, 3, names, values);
  wasi_config_inherit_stdout(wasi);
  printf("async, inherited stdout:\n");
  fflush(stdout);
  ok = run_async(engine, alinker, component, wasi);
  printf("ok: %d\n", ok);

  weft_component_linker_delete(alinker);
  weft_component_linker_delete(linker);
  weft_component_delete(component);
  wasm_engine_delete(engine);
  return 0;
}
