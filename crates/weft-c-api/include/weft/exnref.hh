/**
 * \file weft/exnref.hh
 *
 * \brief C++ API: `ExnRef`, an exception (as Wasmtime 48's
 * `wasmtime/exnref.hh`).
 */

#include <weft/detail/core.hh>

#ifndef WEFT_EXNREF_HH
#define WEFT_EXNREF_HH

#include <weft/detail/ref.hh>
#include <weft/types.hh>

namespace weft {

/// An exception (`exnref`): thrown by wasm, or made by the host to throw
/// with `Store::Context::throw_exception`. Copies are new references.
class ExnRef : public detail::RefBase<weft_exnref_t, weft_exnref_clone, weft_exnref_unroot> {
public:
  /// Takes ownership of the C reference `raw`.
  explicit ExnRef(weft_exnref_t raw) : RefBase(raw) {}
  /// A new exception thrown with `tag`, whose payload is `fields` (of the
  /// tag's parameter types).
  static Result<ExnRef> create(Store::Context cx, const Tag &tag, const std::vector<Val> &fields);
  /// The tag it is thrown with.
  Result<Tag> tag(Store::Context cx) const;
  /// The number of fields of its payload.
  size_t field_count(Store::Context cx) const { return weft_exnref_field_count(cx.capi(), &raw); }
  /// Field `index` of its payload.
  Result<Val> field(Store::Context cx, size_t index) const;
  /// The exception's type. For null or a reference of another store it is an
  /// empty `ExnType` (whose functions answer as for no type).
  ExnType ty(Store::Context cx) const { return ExnType(weft_exnref_type(cx.capi(), &raw)); }
};

inline Trap Store::Context::throw_exception(ExnRef exn) {
  return Trap(weft_context_set_exception(ptr, exn.borrow_raw()));
}

inline std::optional<ExnRef> Store::Context::take_exception() {
  weft_exnref_t out;
  if (!weft_context_take_exception(ptr, &out))
    return std::nullopt;
  return ExnRef(out);
}

} // namespace weft

#endif // WEFT_EXNREF_HH
