/**
 * \file weft/global.hh
 *
 * \brief C++ API: `Global` (as Wasmtime 48's `wasmtime/global.hh`).
 */

#include <weft/detail/core.hh>

#ifndef WEFT_GLOBAL_HH
#define WEFT_GLOBAL_HH

#include <weft/types.hh>

namespace weft {

/// A global of a store.
class Global {
  weft_global_t g;

public:
  /// The C global.
  explicit Global(weft_global_t raw) : g(raw) {}
  /// A new global of type `ty` holding `init`.
  static Result<Global> create(Store::Context cx, const GlobalType &ty, const Val &init) {
    weft_global_t out;
    if (weft_error_t *e = weft_global_new(cx.capi(), ty.capi(), init.capi(), &out))
      return Error(e);
    return Global(out);
  }
  /// Its type.
  GlobalType type(Store::Context cx) const { return GlobalType(weft_global_type(cx.capi(), &g)); }
  /// Its value.
  Val get(Store::Context cx) const {
    weft_val_t v;
    weft_global_get(cx.capi(), &g, &v);
    return Val(v);
  }
  /// Sets its value.
  Result<std::monostate> set(Store::Context cx, const Val &v) const {
    if (weft_error_t *e = weft_global_set(cx.capi(), &g, v.capi()))
      return Error(e);
    return std::monostate();
  }
  /// The C global.
  const weft_global_t &capi() const { return g; }
};

} // namespace weft

#endif // WEFT_GLOBAL_HH
