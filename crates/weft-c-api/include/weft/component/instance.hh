/**
 * \file weft/component/instance.hh
 *
 * \brief C++ API: `Instance`, an instance of a component (as Wasmtime
 * 48's `wasmtime/component/instance.hh`).
 */

#ifndef WEFT_COMPONENT_INSTANCE_HH
#define WEFT_COMPONENT_INSTANCE_HH

#include <weft/component/component.hh>
#include <weft/component/func.hh>

namespace weft {
namespace component {

/// An instance of a component.
class Instance {
  weft_component_instance_t i;

public:
  /// The C instance.
  explicit Instance(weft_component_instance_t raw) : i(raw) {}
  /// The export `name` (inside the exported instance `instance`, if given).
  std::optional<ExportIndex> get_export_index(Store::Context cx, const ExportIndex *instance,
                                              std::string_view name) const {
    auto *idx = weft_component_instance_get_export_index(&i, cx.capi(), instance ? instance->capi() : nullptr,
                                                        name.data(), name.size());
    if (!idx)
      return std::nullopt;
    return ExportIndex(idx);
  }
  /// The function at `index`, if it is one.
  std::optional<Func> get_func(Store::Context cx, const ExportIndex &index) const {
    weft_component_func_t f;
    if (!weft_component_instance_get_func(&i, cx.capi(), index.capi(), &f))
      return std::nullopt;
    return Func(f);
  }
  /// The C instance.
  const weft_component_instance_t *capi() const { return &i; }
};

} // namespace component
} // namespace weft

#endif // WEFT_COMPONENT_INSTANCE_HH
