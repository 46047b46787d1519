/**
 * \file weft/instance.hh
 *
 * \brief C++ API: `Instance` (as Wasmtime 48's `wasmtime/instance.hh`).
 */

#ifndef WEFT_INSTANCE_HH
#define WEFT_INSTANCE_HH

#include <weft/extern.hh>
#include <weft/module.hh>

namespace weft {

/// An instance of a module in a store.
class Instance {
  weft_instance_t i;

public:
  /// The C instance.
  explicit Instance(weft_instance_t raw) : i(raw) {}
  /// Instantiates `module` with `imports`, in the module's import order.
  static TrapResult<Instance> create(Store::Context cx, const Module &module, const std::vector<Extern> &imports) {
    std::vector<weft_extern_t> raw;
    for (const Extern &e : imports)
      raw.push_back(detail::to_extern(e));
    weft_instance_t out;
    wasm_trap_t *trap = nullptr;
    if (weft_error_t *e = weft_instance_new(cx.capi(), module.capi(), raw.data(), raw.size(), &out, &trap))
      return TrapError(Error(e));
    if (trap)
      return TrapError(Trap(trap));
    return Instance(out);
  }
  /// The export `name`, if any.
  std::optional<Extern> get(Store::Context cx, std::string_view name) const {
    weft_extern_t e;
    if (!weft_instance_export_get(cx.capi(), &i, name.data(), name.size(), &e))
      return std::nullopt;
    return detail::extern_of(e);
  }
  /// The export at `index` and its name, if any (the name is valid as
  /// long as the store).
  std::optional<std::pair<std::string_view, Extern>> get(Store::Context cx, size_t index) const {
    weft_extern_t e;
    char *name = nullptr;
    size_t len = 0;
    if (!weft_instance_export_nth(cx.capi(), &i, index, &name, &len, &e))
      return std::nullopt;
    auto item = detail::extern_of(e);
    if (!item)
      return std::nullopt;
    return std::make_pair(std::string_view(name, len), std::move(*item));
  }
  /// The C instance.
  const weft_instance_t &capi() const { return i; }
};

} // namespace weft

#endif // WEFT_INSTANCE_HH
