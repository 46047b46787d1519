// A module serialized, deserialized in another store and instantiated; and
// a shared module obtained in another store.
#include "common.h"

static wasm_trap_t *hello_callback(const wasm_val_vec_t *args, wasm_val_vec_t *results) {
  printf("Calling back...\n> Hello World!\n");
  return NULL;
}

static void run(wasm_store_t *store, wasm_module_t *module) {
  wasm_functype_t *hello_type = wasm_functype_new_0_0();
  wasm_func_t *hello_func = wasm_func_new(store, hello_type, hello_callback);
  wasm_functype_delete(hello_type);
  wasm_extern_t *imports[] = {wasm_func_as_extern(hello_func)};
  wasm_extern_vec_t import_vec = WASM_ARRAY_VEC(imports);
  wasm_instance_t *instance = wasm_instance_new(store, module, &import_vec, NULL);
  check(instance != NULL);
  wasm_extern_vec_t exports;
  wasm_instance_exports(instance, &exports);
  wasm_val_vec_t args = WASM_EMPTY_VEC, results = WASM_EMPTY_VEC;
  check(wasm_func_call(export_func(&exports, 0), &args, &results) == NULL);
  wasm_extern_vec_delete(&exports);
  wasm_instance_delete(instance);
  wasm_func_delete(hello_func);
}

int main(void) {
  printf("Initializing...\n");
  wasm_engine_t *engine = wasm_engine_new();
  wasm_store_t *store = wasm_store_new(engine);
  wasm_module_t *module = load_module(store, "serialize.wasm");

  printf("Serializing module...\n");
  wasm_byte_vec_t serialized;
  wasm_module_serialize(module, &serialized);
  check(serialized.size > 0);
  wasm_module_delete(module);

  printf("Deserializing module...\n");
  wasm_store_t *store2 = wasm_store_new(engine);
  wasm_module_t *deserialized = wasm_module_deserialize(store2, &serialized);
  check(deserialized != NULL);
  wasm_byte_vec_delete(&serialized);
  wasm_exporttype_vec_t exports;
  wasm_module_exports(deserialized, &exports);
  check(exports.size == 1);
  wasm_exporttype_vec_delete(&exports);

  printf("Instantiating deserialized module...\n");
  run(store2, deserialized);

  printf("Sharing module...\n");
  wasm_shared_module_t *shared = wasm_module_share(deserialized);
  wasm_module_delete(deserialized);
  wasm_module_t *obtained = wasm_module_obtain(store, shared);
  check(obtained != NULL);
  wasm_shared_module_delete(shared);
  printf("Instantiating obtained module...\n");
  run(store, obtained);
  wasm_module_delete(obtained);

  // Garbage is refused, not mapped.
  wasm_byte_vec_t junk;
  wasm_byte_vec_new(&junk, 4, "junk");
  check(wasm_module_deserialize(store, &junk) == NULL);
  check(!wasm_module_validate(store, &junk));
  check(wasm_module_new(store, &junk) == NULL);
  wasm_byte_vec_delete(&junk);

  printf("Shutting down...\n");
  wasm_store_delete(store2);
  wasm_store_delete(store);
  wasm_engine_delete(engine);
  printf("Done.\n");
  return 0;
}
