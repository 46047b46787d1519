/**
 * \file weft/anyref.hh
 *
 * \brief C++ API: `AnyRef`, a reference of the `any` hierarchy (as Wasmtime
 * 48's `wasmtime/anyref.hh`).
 */

#include <weft/detail/core.hh>

#ifndef WEFT_ANYREF_HH
#define WEFT_ANYREF_HH

#include <weft/detail/ref.hh>
#include <weft/types.hh>

namespace weft {

class EqRef;
class StructRef;
class ArrayRef;

/// An `anyref`: a GC struct, array or `i31ref` (a root owned by this
/// object). Copies are new roots.
class AnyRef : public detail::RefBase<weft_anyref_t, weft_anyref_clone, weft_anyref_unroot> {
public:
  /// Takes ownership of the C reference `raw`.
  explicit AnyRef(weft_anyref_t raw) : RefBase(raw) {}
  /// The `i31ref` of `value` (its top bit dropped).
  static AnyRef i31(Store::Context cx, uint32_t value) {
    weft_anyref_t out;
    weft_anyref_from_i31(cx.capi(), value, &out);
    return AnyRef(out);
  }
  /// Whether it is an `i31ref`.
  bool is_i31(Store::Context cx) const { return weft_anyref_is_i31(cx.capi(), &raw); }
  /// The value of the `i31ref`, zero-extended (nullopt if it is not one).
  std::optional<uint32_t> u31(Store::Context cx) const {
    uint32_t v;
    if (weft_anyref_i31_get_u(cx.capi(), &raw, &v))
      return v;
    return std::nullopt;
  }
  /// The value of the `i31ref`, sign-extended (nullopt if it is not one).
  std::optional<int32_t> i31(Store::Context cx) const {
    int32_t v;
    if (weft_anyref_i31_get_s(cx.capi(), &raw, &v))
      return v;
    return std::nullopt;
  }
  /// Whether it is an `eqref` (a struct, an array or an `i31ref`).
  bool is_eqref(Store::Context cx) const { return weft_anyref_is_eqref(cx.capi(), &raw); }
  /// Whether it is a struct.
  bool is_struct(Store::Context cx) const { return weft_anyref_is_struct(cx.capi(), &raw); }
  /// Whether it is an array.
  bool is_array(Store::Context cx) const { return weft_anyref_is_array(cx.capi(), &raw); }
  /// As an `eqref` (nullopt if it is not one).
  std::optional<EqRef> as_eqref(Store::Context cx) const;
  /// As a struct (nullopt if it is not one).
  std::optional<StructRef> as_struct(Store::Context cx) const;
  /// As an array (nullopt if it is not one).
  std::optional<ArrayRef> as_array(Store::Context cx) const;
  /// The heap type of the object: `i31` or its concrete struct or array
  /// type. For null or a reference of another store it is `none` (Wasmtime
  /// 48 asserts there).
  HeapType ty(Store::Context cx) const {
    weft_heaptype_t t;
    if (!weft_anyref_type(cx.capi(), &raw, &t))
      return HeapType::none();
    return HeapType(t);
  }
  /// The reference's raw value (for unchecked calls).
  uint32_t to_raw(Store::Context cx) const { return weft_anyref_to_raw(cx.capi(), &raw); }
  /// The reference of a raw value (nullopt for 0 or an unknown value).
  static std::optional<AnyRef> from_raw(Store::Context cx, uint32_t raw) {
    weft_anyref_t out;
    weft_anyref_from_raw(cx.capi(), raw, &out);
    if (weft_anyref_is_null(&out))
      return std::nullopt;
    return AnyRef(out);
  }
};

} // namespace weft

#endif // WEFT_ANYREF_HH
