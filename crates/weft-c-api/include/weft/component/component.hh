/**
 * \file weft/component/component.hh
 *
 * \brief C++ API: `ExportIndex` and `Component` (as Wasmtime 48's
 * `wasmtime/component/component.hh`).
 */

#ifndef WEFT_COMPONENT_COMPONENT_HH
#define WEFT_COMPONENT_COMPONENT_HH

#include <weft/component/types.hh>

namespace weft {
namespace component {

/// The index of an export of a component.
class ExportIndex {
  struct Deleter {
    void operator()(weft_component_export_index_t *i) const { weft_component_export_index_delete(i); }
  };
  std::unique_ptr<weft_component_export_index_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit ExportIndex(weft_component_export_index_t *raw) : ptr(raw) {}
  /// A copy.
  ExportIndex(const ExportIndex &other) : ptr(weft_component_export_index_clone(other.ptr.get())) {}
  /// A copy.
  ExportIndex &operator=(const ExportIndex &other) {
    ptr.reset(weft_component_export_index_clone(other.ptr.get()));
    return *this;
  }
  /// Moves.
  ExportIndex(ExportIndex &&) = default;
  /// Moves.
  ExportIndex &operator=(ExportIndex &&) = default;
  /// The C object.
  const weft_component_export_index_t *capi() const { return ptr.get(); }
};

/// A compiled component (copies share it).
class Component {
  struct Deleter {
    void operator()(weft_component_t *c) const { weft_component_delete(c); }
  };
  std::unique_ptr<weft_component_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit Component(weft_component_t *raw) : ptr(raw) {}
  /// Another reference.
  Component(const Component &other) : ptr(weft_component_clone(other.ptr.get())) {}
  /// Another reference.
  Component &operator=(const Component &other) {
    ptr.reset(weft_component_clone(other.ptr.get()));
    return *this;
  }
  /// Moves.
  Component(Component &&) = default;
  /// Moves.
  Component &operator=(Component &&) = default;
  /// Compiles a component binary.
  static Result<Component> compile(Engine &engine, Span<const uint8_t> wasm) {
    weft_component_t *c = nullptr;
    if (weft_error_t *e = weft_component_new(engine.capi(), wasm.data(), wasm.size(), &c))
      return Error(e);
    return Component(c);
  }
  /// Compiles a component in the text format.
  static Result<Component> compile(Engine &engine, std::string_view wat) {
    auto wasm = wat2wasm(wat);
    if (!wasm)
      return wasm.err();
    std::vector<uint8_t> bytes = wasm.ok();
    return compile(engine, Span<const uint8_t>(bytes));
  }
  /// The precompiled component (its compiled code and translation).
  Result<std::vector<uint8_t>> serialize() const {
    wasm_byte_vec_t out;
    if (weft_error_t *e = weft_component_serialize(ptr.get(), &out))
      return Error(e);
    std::vector<uint8_t> v(out.data, out.data + out.size);
    wasm_byte_vec_delete(&out);
    return v;
  }
  /// A component from `serialize`'s output, loaded without compiling (trusted input only).
  static Result<Component> deserialize(Engine &engine, Span<const uint8_t> bytes) {
    weft_component_t *c = nullptr;
    if (weft_error_t *e = weft_component_deserialize(engine.capi(), bytes.data(), bytes.size(), &c))
      return Error(e);
    return Component(c);
  }
  /// A component from a file written from `serialize`'s output, loaded
  /// without compiling (trusted input only).
  static Result<Component> deserialize_file(Engine &engine, const std::string &path) {
    weft_component_t *c = nullptr;
    if (weft_error_t *e = weft_component_deserialize_file(engine.capi(), path.c_str(), &c))
      return Error(e);
    return Component(c);
  }
  /// The component's type: its imports and exports.
  ComponentType type() const { return ComponentType(weft_component_type(ptr.get())); }
  /// The export `name` (inside the exported instance `instance`, if given).
  std::optional<ExportIndex> export_index(const ExportIndex *instance, std::string_view name) const {
    auto *i = weft_component_get_export_index(ptr.get(), instance ? instance->capi() : nullptr, name.data(),
                                              name.size());
    if (!i)
      return std::nullopt;
    return ExportIndex(i);
  }
  /// The C object.
  const weft_component_t *capi() const { return ptr.get(); }
};

} // namespace component
} // namespace weft

#endif // WEFT_COMPONENT_COMPONENT_HH
