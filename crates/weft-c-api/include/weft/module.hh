/**
 * \file weft/module.hh
 *
 * \brief C++ API: `Module` (as Wasmtime 48's `wasmtime/module.hh`).
 */

#ifndef WEFT_MODULE_HH
#define WEFT_MODULE_HH

#include <weft/engine.hh>
#include <weft/types.hh>

namespace weft {

/// A compiled module (copies share it).
class Module {
  struct Deleter {
    void operator()(weft_module_t *m) const { weft_module_delete(m); }
  };
  std::unique_ptr<weft_module_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit Module(weft_module_t *raw) : ptr(raw) {}
  /// Another reference to the module.
  Module(const Module &other) : ptr(weft_module_clone(other.ptr.get())) {}
  /// Another reference to the module.
  Module &operator=(const Module &other) {
    ptr.reset(weft_module_clone(other.ptr.get()));
    return *this;
  }
  /// Moves the reference.
  Module(Module &&) = default;
  /// Moves the reference.
  Module &operator=(Module &&) = default;
  /// Compiles a binary module.
  static Result<Module> compile(Engine &engine, Span<const uint8_t> wasm) {
    weft_module_t *m = nullptr;
    if (weft_error_t *e = weft_module_new(engine.capi(), wasm.data(), wasm.size(), &m))
      return Error(e);
    return Module(m);
  }
  /// Compiles a module in the text format.
  static Result<Module> compile(Engine &engine, std::string_view wat) {
    auto wasm = wat2wasm(wat);
    if (!wasm)
      return wasm.err();
    std::vector<uint8_t> bytes = wasm.ok();
    return compile(engine, Span<const uint8_t>(bytes));
  }
  /// Validates a binary module.
  static Result<std::monostate> validate(Engine &engine, Span<const uint8_t> wasm) {
    if (weft_error_t *e = weft_module_validate(engine.capi(), wasm.data(), wasm.size()))
      return Error(e);
    return std::monostate();
  }
  /// The module's precompiled form.
  Result<std::vector<uint8_t>> serialize() const {
    wasm_byte_vec_t out;
    if (weft_error_t *e = weft_module_serialize(ptr.get(), &out))
      return Error(e);
    std::vector<uint8_t> v(out.data, out.data + out.size);
    wasm_byte_vec_delete(&out);
    return v;
  }
  /// A module from `serialize`'s output (trusted input only).
  static Result<Module> deserialize(Engine &engine, Span<const uint8_t> bytes) {
    weft_module_t *m = nullptr;
    if (weft_error_t *e = weft_module_deserialize(engine.capi(), bytes.data(), bytes.size(), &m))
      return Error(e);
    return Module(m);
  }
  /// A module from a file written from `serialize`'s output (trusted
  /// input only).
  static Result<Module> deserialize_file(Engine &engine, const std::string &path) {
    weft_module_t *m = nullptr;
    if (weft_error_t *e = weft_module_deserialize_file(engine.capi(), path.c_str(), &m))
      return Error(e);
    return Module(m);
  }
  /// The module's imports, in order.
  ImportType::List imports() const {
    wasm_importtype_vec_t out;
    weft_module_imports(ptr.get(), &out);
    return ImportType::List(out);
  }
  /// The module's exports, in order.
  ExportType::List exports() const {
    wasm_exporttype_vec_t out;
    weft_module_exports(ptr.get(), &out);
    return ExportType::List(out);
  }
  /// The C object.
  weft_module_t *capi() const { return ptr.get(); }
};

} // namespace weft

#endif // WEFT_MODULE_HH
