/**
 * \file weft/component/func.hh
 *
 * \brief C++ API: `Func`, a function of a component instance (as
 * Wasmtime 48's `wasmtime/component/func.hh`).
 */

#ifndef WEFT_COMPONENT_FUNC_HH
#define WEFT_COMPONENT_FUNC_HH

#include <weft/store.hh>
#include <weft/component/types.hh>
#include <weft/component/val.hh>

namespace weft {
namespace component {

/// A function of a component instance.
class Func {
  weft_component_func_t f;

public:
  /// The C function.
  explicit Func(weft_component_func_t raw) : f(raw) {}
  /// Calls the function; `results` must have the result count.
  Result<std::monostate> call(Store::Context cx, Span<const Val> args, Span<Val> results) const {
    if (weft_error_t *e = weft_component_func_call(&f, cx.capi(), reinterpret_cast<const weft_component_val_t *>(args.data()),
                                                   args.size(), reinterpret_cast<weft_component_val_t *>(results.data()),
                                                   results.size()))
      return Error(e);
    return std::monostate();
  }
  /// Does nothing (calls run `post-return` themselves).
  Result<std::monostate> post_return(Store::Context cx) const {
    if (weft_error_t *e = weft_component_func_post_return(&f, cx.capi()))
      return Error(e);
    return std::monostate();
  }
  /// The function's type.
  FuncType type(Store::Context cx) const { return FuncType(weft_component_func_type(&f, cx.capi())); }
  /// The C function.
  const weft_component_func_t *capi() const { return &f; }
};

} // namespace component
} // namespace weft

#endif // WEFT_COMPONENT_FUNC_HH
