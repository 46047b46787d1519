/**
 * \file weft/structref.hh
 *
 * \brief C++ API: `StructRefPre` and `StructRef` (as Wasmtime 48's
 * `wasmtime/structref.hh`).
 */

#include <weft/detail/core.hh>

#ifndef WEFT_STRUCTREF_HH
#define WEFT_STRUCTREF_HH

#include <weft/detail/ref.hh>
#include <weft/types.hh>

namespace weft {

/// An allocator of structs of one type in one store (move-only).
class StructRefPre {
  struct Deleter {
    void operator()(weft_struct_ref_pre_t *p) const { weft_struct_ref_pre_delete(p); }
  };
  std::unique_ptr<weft_struct_ref_pre_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit StructRefPre(weft_struct_ref_pre_t *raw) : ptr(raw) {}
  /// An allocator of structs of type `ty` in the store of `cx`.
  static StructRefPre create(Store::Context cx, const StructType &ty) {
    return StructRefPre(weft_struct_ref_pre_new(cx.capi(), ty.capi()));
  }
  /// The C object.
  const weft_struct_ref_pre_t *capi() const { return ptr.get(); }
};

/// A reference to a GC struct (a root owned by this object). Copies are
/// new roots.
class StructRef : public detail::RefBase<weft_structref_t, weft_structref_clone, weft_structref_unroot> {
public:
  /// Takes ownership of the C reference `raw`.
  explicit StructRef(weft_structref_t raw) : RefBase(raw) {}
  /// A new struct of `pre`'s type with `fields` (one per field, in order).
  static Result<StructRef> create(Store::Context cx, const StructRefPre &pre, const std::vector<Val> &fields);
  /// Field `index` (an error out of bounds).
  Result<Val> field(Store::Context cx, size_t index) const;
  /// Sets field `index` to `value` (an error out of bounds, for an
  /// immutable field or a value of another type).
  Result<std::monostate> set_field(Store::Context cx, size_t index, const Val &value) const;
  /// As an `anyref` (a new root).
  AnyRef to_anyref() const {
    weft_anyref_t out;
    weft_structref_to_anyref(&raw, &out);
    return AnyRef(out);
  }
  /// As an `eqref` (a new root).
  EqRef to_eqref() const {
    weft_eqref_t out;
    weft_structref_to_eqref(&raw, &out);
    return EqRef(out);
  }
  /// The struct's type. For null or a reference of another store it is an
  /// empty `StructType` (whose functions answer as for no type).
  StructType ty(Store::Context cx) const { return StructType(weft_structref_type(cx.capi(), &raw)); }
};

inline std::optional<StructRef> AnyRef::as_struct(Store::Context cx) const {
  weft_structref_t out;
  if (!weft_anyref_as_struct(cx.capi(), &raw, &out))
    return std::nullopt;
  return StructRef(out);
}

inline std::optional<StructRef> EqRef::as_struct(Store::Context cx) const {
  weft_structref_t out;
  if (!weft_eqref_as_struct(cx.capi(), &raw, &out))
    return std::nullopt;
  return StructRef(out);
}

} // namespace weft

#endif // WEFT_STRUCTREF_HH
