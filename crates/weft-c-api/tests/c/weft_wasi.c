// wasi.h: a WASI preview1 module reading its arguments and environment and
// writing them to stdout (inherited, to a file, to a host callback), and its
// exit status.
#include "weft_common.h"
#include <wasi.h>

static size_t custom_bytes = 0;
static char custom_buf[256];
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

// Runs the module with `wasi` and returns its exit status.
static int run(wasm_engine_t *engine, const weft_module_t *module, wasi_config_t *wasi) {
  weft_store_t *store = weft_store_new(engine, NULL, NULL);
  weft_context_t *cx = weft_store_context(store);
  check_ok(weft_context_set_wasi(cx, wasi), "set_wasi");
  weft_linker_t *linker = weft_linker_new(engine);
  check_ok(weft_linker_define_wasi(linker), "define_wasi");
  weft_instance_t instance;
  wasm_trap_t *trap = NULL;
  check_ok(weft_linker_instantiate(linker, cx, module, &instance, &trap), "instantiate");
  check(trap == NULL);
  weft_extern_t start;
  check(weft_instance_export_get(cx, &instance, "_start", 6, &start));
  check(start.kind == WEFT_EXTERN_FUNC);
  fflush(stdout);
  weft_error_t *err = weft_func_call(cx, &start.of.func, NULL, 0, NULL, 0, &trap);
  check(trap == NULL && err != NULL);
  int status = -1;
  check(weft_error_exit_status(err, &status));
  weft_error_delete(err);
  weft_linker_delete(linker);
  weft_store_delete(store);
  return status;
}

int main(void) {
  wasm_engine_t *engine = wasm_engine_new();
  wasm_byte_vec_t binary;
  read_file("wasi_args.wasm", &binary);
  weft_module_t *module;
  check_ok(weft_module_new(engine, (const uint8_t *)binary.data, binary.size, &module), "module_new");
  wasm_byte_vec_delete(&binary);

  const char *argv[] = {"prog", "hello", "wörld"};
  const char *names[] = {"KEY", "OTHER"};
  const char *values[] = {"value", "x=y"};

  // Inherited stdout.
  wasi_config_t *wasi = wasi_config_new();
  check(wasi_config_set_argv(wasi, 3, argv));
  check(wasi_config_set_env(wasi, 2, names, values));
  wasi_config_inherit_stdout(wasi);
  wasi_config_inherit_stderr(wasi);
  int status = run(engine, module, wasi);
  printf("exit status %d\n", status);

  // To a file.
  wasi = wasi_config_new();
  check(wasi_config_set_argv(wasi, 1, argv));
  check(wasi_config_set_stdout_file(wasi, "wasi_stdout.txt"));
  check(!wasi_config_set_stdin_file(wasi, "/nonexistent/file"));
  check(!wasi_config_preopen_dir(wasi, "/nonexistent/dir", "/", false));
  check(wasi_config_preopen_dir(wasi, ".", "/", false));
  wasm_byte_vec_t input;
  wasm_byte_vec_new(&input, 2, "in");
  wasi_config_set_stdin_bytes(wasi, &input);
  wasi_config_inherit_network(wasi);
  wasi_config_allow_ip_name_lookup(wasi, true);
  status = run(engine, module, wasi);
  wasm_byte_vec_t written;
  read_file("wasi_stdout.txt", &written);
  printf("file (status %d): %.*s", status, (int)written.size, written.data);
  wasm_byte_vec_delete(&written);

  // To a host callback; environment inherited.
  wasi = wasi_config_new();
  check(wasi_config_set_argv(wasi, 2, argv));
  wasi_config_set_stdout_custom(wasi, custom_write, &custom_bytes, custom_finalize);
  wasi_config_set_stderr_custom(wasi, custom_write, &custom_bytes, NULL);
  wasi_config_inherit_stdin(wasi);
  status = run(engine, module, wasi);
  // Weft finalizes the custom stream with the store; Wasmtime 48 later.
  printf("custom (status %d", status);
  WEFT_ONLY(printf(", finalized %d", custom_finalized));
  printf("): %.*s", (int)custom_bytes, custom_buf);

  // A configuration deleted unused.
  wasi = wasi_config_new();
  wasi_config_inherit_argv(wasi);
  wasi_config_inherit_env(wasi);
  wasi_config_delete(wasi);

  weft_module_delete(module);
  wasm_engine_delete(engine);
  return 0;
}
