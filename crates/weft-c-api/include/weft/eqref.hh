/**
 * \file weft/eqref.hh
 *
 * \brief C++ API: `EqRef`, a reference of the `eq` hierarchy (as Wasmtime
 * 48's `wasmtime/eqref.hh`).
 */

#include <weft/detail/core.hh>

#ifndef WEFT_EQREF_HH
#define WEFT_EQREF_HH

#include <weft/detail/ref.hh>
#include <weft/types.hh>

namespace weft {

/// An `eqref`: a GC struct, array or `i31ref` (a root owned by this
/// object). Copies are new roots.
class EqRef : public detail::RefBase<weft_eqref_t, weft_eqref_clone, weft_eqref_unroot> {
public:
  /// Takes ownership of the C reference `raw`.
  explicit EqRef(weft_eqref_t raw) : RefBase(raw) {}
  /// The `i31ref` of `value` (its top bit dropped).
  static EqRef i31(Store::Context cx, uint32_t value) {
    weft_eqref_t out;
    weft_eqref_from_i31(cx.capi(), value, &out);
    return EqRef(out);
  }
  /// The `i31ref` of `value` (its top bit dropped; Wasmtime 48's name).
  static EqRef from_i31(Store::Context cx, uint32_t value) { return i31(cx, value); }
  /// Whether it is an `i31ref`.
  bool is_i31(Store::Context cx) const { return weft_eqref_is_i31(cx.capi(), &raw); }
  /// The value of the `i31ref`, zero-extended (nullopt if it is not one).
  std::optional<uint32_t> u31(Store::Context cx) const {
    uint32_t v;
    if (weft_eqref_i31_get_u(cx.capi(), &raw, &v))
      return v;
    return std::nullopt;
  }
  /// The value of the `i31ref`, sign-extended (nullopt if it is not one).
  std::optional<int32_t> i31(Store::Context cx) const {
    int32_t v;
    if (weft_eqref_i31_get_s(cx.capi(), &raw, &v))
      return v;
    return std::nullopt;
  }
  /// The value of the `i31ref`, zero-extended (nullopt if it is not one;
  /// Wasmtime 48's name).
  std::optional<uint32_t> i31_get_u(Store::Context cx) const { return u31(cx); }
  /// The value of the `i31ref`, sign-extended (nullopt if it is not one;
  /// Wasmtime 48's name).
  std::optional<int32_t> i31_get_s(Store::Context cx) const { return i31(cx); }
  /// Whether it is a struct.
  bool is_struct(Store::Context cx) const { return weft_eqref_is_struct(cx.capi(), &raw); }
  /// Whether it is an array.
  bool is_array(Store::Context cx) const { return weft_eqref_is_array(cx.capi(), &raw); }
  /// As a struct (nullopt if it is not one).
  std::optional<StructRef> as_struct(Store::Context cx) const;
  /// As an array (nullopt if it is not one).
  std::optional<ArrayRef> as_array(Store::Context cx) const;
  /// As an `anyref` (a new root).
  AnyRef to_anyref() const {
    weft_anyref_t out;
    weft_eqref_to_anyref(&raw, &out);
    return AnyRef(out);
  }
  /// The heap type of the object. For null or a reference of another
  /// store it is `none` (Wasmtime 48 asserts there).
  HeapType ty(Store::Context cx) const {
    weft_heaptype_t t;
    if (!weft_eqref_type(cx.capi(), &raw, &t))
      return HeapType::none();
    return HeapType(t);
  }
};

inline std::optional<EqRef> AnyRef::as_eqref(Store::Context cx) const {
  weft_eqref_t out;
  if (!weft_anyref_as_eqref(cx.capi(), &raw, &out))
    return std::nullopt;
  return EqRef(out);
}

} // namespace weft

#endif // WEFT_EQREF_HH
