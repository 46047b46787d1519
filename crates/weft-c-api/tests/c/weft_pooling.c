// The pooling allocator from C: limits set with
// weft_pooling_allocation_config_*, enforced with errors naming them, and a
// memory slot reused (reset) after the store holding it is deleted.
#include "weft_common.h"

static const char *WAT = "(module (memory (export \"mem\") 1) (table 2 funcref))";

static weft_error_t *instantiate(weft_context_t *cx, const weft_module_t *module, weft_instance_t *inst) {
  wasm_trap_t *trap = NULL;
  weft_error_t *err = weft_instance_new(cx, module, NULL, 0, inst, &trap);
  check(trap == NULL);
  return err;
}

static uint8_t *memory_of(weft_context_t *cx, const weft_instance_t *inst) {
  weft_extern_t item;
  check(weft_instance_export_get(cx, inst, "mem", 3, &item));
  check(item.kind == WEFT_EXTERN_MEMORY);
  return weft_memory_data(cx, &item.of.memory);
}

int main(void) {
  weft_pooling_allocation_config_t *pc = weft_pooling_allocation_config_new();
  weft_pooling_allocation_config_total_memories_set(pc, 1);
  weft_pooling_allocation_config_total_core_instances_set(pc, 4);
  weft_pooling_allocation_config_table_elements_set(pc, 10);
  weft_pooling_allocation_config_max_memory_size_set(pc, 1 << 20);
  // Accepted (no effect in Weft).
  weft_pooling_allocation_config_max_unused_warm_slots_set(pc, 0);
  weft_pooling_allocation_config_decommit_batch_size_set(pc, 1);
  weft_pooling_allocation_config_linear_memory_keep_resident_set(pc, 0);
  weft_pooling_allocation_config_total_stacks_set(pc, 10);
  wasm_config_t *config = wasm_config_new();
  weft_pooling_allocation_strategy_set(config, pc);
  weft_pooling_allocation_config_delete(pc);
  wasm_engine_t *engine = wasm_engine_new_with_config(config);
  weft_module_t *module = compile_wat(engine, WAT);

  weft_store_t *a = weft_store_new(engine, NULL, NULL);
  weft_instance_t ia;
  check_ok(instantiate(weft_store_context(a), module, &ia), "instantiate a");
  uint8_t *base = memory_of(weft_store_context(a), &ia);
  base[100] = 42;

  // One memory slot only: a second live instance is refused.
  weft_store_t *b = weft_store_new(engine, NULL, NULL);
  weft_instance_t ib;
  check(error_contains(instantiate(weft_store_context(b), module, &ib), "total_memories"));
  weft_store_delete(b);

  // Once `a` is gone its slot serves `c`, reset.
  weft_store_delete(a);
  weft_store_t *c = weft_store_new(engine, NULL, NULL);
  weft_instance_t ic;
  check_ok(instantiate(weft_store_context(c), module, &ic), "instantiate c");
  uint8_t *base_c = memory_of(weft_store_context(c), &ic);
  printf("slot reused: %d, byte 100 after reset: %d\n", base_c == base, base_c[100]);
  weft_store_delete(c);

  // A table past `table_elements` is refused when the module is made.
  wasm_byte_vec_t wasm;
  const char *big_wat = "(module (table 11 funcref))";
  check_ok(weft_wat2wasm(big_wat, strlen(big_wat), &wasm), "wat2wasm");
  weft_module_t *big = NULL;
  check(error_contains(weft_module_new(engine, (const uint8_t *)wasm.data, wasm.size, &big), "table_elements"));
  check(big == NULL);
  wasm_byte_vec_delete(&wasm);
  printf("limits enforced\n");

  // The name of the strategy setter, and NULLs, are accepted.
  config = wasm_config_new();
  pc = weft_pooling_allocation_config_new();
  WEFT_ONLY(weft_config_pooling_allocation_strategy_set(config, pc));
  WEFT_ONLY(weft_pooling_allocation_strategy_set(config, NULL));
  WEFT_ONLY(weft_pooling_allocation_config_total_tables_set(NULL, 1));
  weft_pooling_allocation_config_delete(pc);
  wasm_config_delete(config);

  weft_module_delete(module);
  wasm_engine_delete(engine);
  return 0;
}
