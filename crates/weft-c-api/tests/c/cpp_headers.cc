// The headers in a C++ program: wasm.h and weft.h compile as C++17 and
// their functions link with C linkage.
#include <cstdio>
#include <cstring>
#include <weft.h>

int main() {
  const char *wat = "(module (func (export \"answer\") (result i32) i32.const 42))";
  wasm_engine_t *engine = wasm_engine_new();
  weft_store_t *store = weft_store_new(engine, nullptr, nullptr);
  weft_context_t *cx = weft_store_context(store);
  wasm_byte_vec_t wasm;
  if (weft_wat2wasm(wat, std::strlen(wat), &wasm) != nullptr) return 1;
  weft_module_t *module = nullptr;
  if (weft_module_new(engine, reinterpret_cast<const uint8_t *>(wasm.data), wasm.size, &module) != nullptr) return 2;
  wasm_byte_vec_delete(&wasm);
  weft_instance_t instance;
  wasm_trap_t *trap = nullptr;
  if (weft_instance_new(cx, module, nullptr, 0, &instance, &trap) != nullptr || trap != nullptr) return 3;
  weft_extern_t answer;
  if (!weft_instance_export_get(cx, &instance, "answer", 6, &answer)) return 4;
  weft_val_t result;
  if (weft_func_call(cx, &answer.of.func, nullptr, 0, &result, 1, &trap) != nullptr || trap != nullptr) return 5;
  std::printf("C++: %d\n", result.of.i32);
  weft_module_delete(module);
  weft_store_delete(store);
  wasm_engine_delete(engine);
  return result.of.i32 == 42 ? 0 : 6;
}
