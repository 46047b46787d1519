// Fuel and epochs through weft.h: running out, refuelling, deadlines and
// the epoch deadline callback; store limits.
#include "weft_common.h"

static const char *WAT =
    "(module\n"
    "  (memory (export \"memory\") 1)\n"
    "  (func (export \"spin\") (param i32)\n"
    "    (loop $l (br_if $l (local.tee 0 (i32.sub (local.get 0) (i32.const 1)))))))\n";

static int callbacks = 0;

static weft_error_t *deadline_cb(weft_context_t *cx, void *data, uint64_t *delta, weft_update_deadline_kind_t *kind) {
  callbacks++;
  check(data == (void *)&callbacks);
  if (callbacks >= 3) return weft_error_new("enough epochs");
  // A deadline of now: the next check (the loop's back edge) fires again.
  *delta = 0;
  *kind = WEFT_UPDATE_DEADLINE_CONTINUE;
  // The store is usable from the callback.
  uint64_t fuel;
  check(error_contains(weft_context_get_fuel(cx, &fuel), "fuel"));
  return NULL;
}

int main(void) {
  printf("Fuel...\n");
  wasm_config_t *config = wasm_config_new();
  weft_config_consume_fuel_set(config, true);
  wasm_engine_t *engine = wasm_engine_new_with_config(config);
  check(engine != NULL);
  weft_store_t *store = weft_store_new(engine, NULL, NULL);
  weft_context_t *cx = weft_store_context(store);
  weft_module_t *module = compile_wat(engine, WAT);
  weft_instance_t instance;
  wasm_trap_t *trap = NULL;
  uint64_t fuel = 1;
  check_ok(weft_context_get_fuel(cx, &fuel), "get_fuel");
  check(fuel == 0);
  // No fuel: instantiation itself runs nothing, so it succeeds.
  check_ok(weft_instance_new(cx, module, NULL, 0, &instance, &trap), "instantiate");
  weft_func_t spin = get_func(cx, &instance, "spin");
  weft_val_t arg = {.kind = WEFT_I32, .of.i32 = 100};
  check(weft_func_call(cx, &spin, &arg, 1, NULL, 0, &trap) == NULL);
  weft_trap_code_t code;
  check(trap != NULL && weft_trap_code(trap, &code) && code == WEFT_TRAP_CODE_OUT_OF_FUEL);
  wasm_trap_delete(trap);
  check_ok(weft_context_set_fuel(cx, 10000), "set_fuel");
  trap = NULL; // Wasmtime writes it only when there is a trap
  check_ok(weft_func_call(cx, &spin, &arg, 1, NULL, 0, &trap), "spin with fuel");
  check(trap == NULL);
  check_ok(weft_context_get_fuel(cx, &fuel), "get_fuel");
  check(fuel < 10000 && fuel > 9000);
  printf("> fuel consumed: some\n");
  arg.of.i32 = 1000000;
  check(weft_func_call(cx, &spin, &arg, 1, NULL, 0, &trap) == NULL);
  check(trap_contains(trap, "fuel"));
  weft_store_delete(store);
  weft_module_delete(module);
  wasm_engine_delete(engine);

  // Without fuel configured, fuel functions are errors.
  engine = wasm_engine_new();
  store = weft_store_new(engine, NULL, NULL);
  check(error_contains(weft_context_set_fuel(weft_store_context(store), 1), "fuel"));
  check(error_contains(weft_context_get_fuel(weft_store_context(store), &fuel), "fuel"));
  weft_store_delete(store);
  wasm_engine_delete(engine);

  printf("Epochs...\n");
  config = wasm_config_new();
  weft_config_epoch_interruption_set(config, true);
  engine = wasm_engine_new_with_config(config);
  store = weft_store_new(engine, NULL, NULL);
  cx = weft_store_context(store);
  module = compile_wat(engine, WAT);
  check_ok(weft_instance_new(cx, module, NULL, 0, &instance, &trap), "instantiate");
  spin = get_func(cx, &instance, "spin");
  arg.of.i32 = 10;
  // The deadline is the current epoch: wasm traps at once.
  check(weft_func_call(cx, &spin, &arg, 1, NULL, 0, &trap) == NULL);
  check(trap != NULL && weft_trap_code(trap, &code) && code == WEFT_TRAP_CODE_INTERRUPT);
  wasm_trap_delete(trap);
  weft_context_set_epoch_deadline(cx, 1);
  check_ok(weft_func_call(cx, &spin, &arg, 1, NULL, 0, &trap), "spin before the deadline");
  weft_engine_increment_epoch(engine);
  check(weft_func_call(cx, &spin, &arg, 1, NULL, 0, &trap) == NULL && trap != NULL);
  wasm_trap_delete(trap);

  // A callback extends the deadline twice, then stops the wasm.
  weft_store_epoch_deadline_callback(store, deadline_cb, &callbacks, NULL);
  weft_context_set_epoch_deadline(cx, 0);
  check(error_contains(weft_func_call(cx, &spin, &arg, 1, NULL, 0, &trap), "enough epochs"));
  printf("> callbacks: %d\n", callbacks);

  printf("Limits...\n");
  weft_store_limiter(store, 2 * 65536, -1, -1, -1, -1);
  weft_extern_t mem;
  check(weft_instance_export_get(cx, &instance, "memory", 6, &mem));
  uint64_t prev;
  check_ok(weft_memory_grow(cx, &mem.of.memory, 1, &prev), "grow within the limit");
  check(error_contains(weft_memory_grow(cx, &mem.of.memory, 1, &prev), ""));
  weft_store_limiter(store, -1, -1, 1, -1, -1);
  weft_instance_t another;
  check(error_contains(weft_instance_new(cx, module, NULL, 0, &another, &trap), ""));

  weft_store_delete(store);
  weft_module_delete(module);
  wasm_engine_delete(engine);
  printf("Done.\n");
  return 0;
}
