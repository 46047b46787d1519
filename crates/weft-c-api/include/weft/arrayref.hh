/**
 * \file weft/arrayref.hh
 *
 * \brief C++ API: `ArrayRefPre` and `ArrayRef` (as Wasmtime 48's
 * `wasmtime/arrayref.hh`).
 */

#include <weft/detail/core.hh>

#ifndef WEFT_ARRAYREF_HH
#define WEFT_ARRAYREF_HH

#include <weft/detail/ref.hh>
#include <weft/types.hh>

namespace weft {

/// An allocator of arrays of one type in one store (move-only).
class ArrayRefPre {
  struct Deleter {
    void operator()(weft_array_ref_pre_t *p) const { weft_array_ref_pre_delete(p); }
  };
  std::unique_ptr<weft_array_ref_pre_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit ArrayRefPre(weft_array_ref_pre_t *raw) : ptr(raw) {}
  /// An allocator of arrays of type `ty` in the store of `cx`.
  static ArrayRefPre create(Store::Context cx, const ArrayType &ty) {
    return ArrayRefPre(weft_array_ref_pre_new(cx.capi(), ty.capi()));
  }
  /// The C object.
  const weft_array_ref_pre_t *capi() const { return ptr.get(); }
};

/// A reference to a GC array (a root owned by this object). Copies are new
/// roots.
class ArrayRef : public detail::RefBase<weft_arrayref_t, weft_arrayref_clone, weft_arrayref_unroot> {
public:
  /// Takes ownership of the C reference `raw`.
  explicit ArrayRef(weft_arrayref_t raw) : RefBase(raw) {}
  /// A new array of `pre`'s type with `len` elements, each `elem`.
  static Result<ArrayRef> create(Store::Context cx, const ArrayRefPre &pre, const Val &elem, uint32_t len);
  /// The number of elements.
  Result<uint32_t> len(Store::Context cx) const {
    uint32_t n = 0;
    if (weft_error_t *e = weft_arrayref_len(cx.capi(), &raw, &n))
      return Error(e);
    return n;
  }
  /// Element `index` (an error out of bounds).
  Result<Val> get(Store::Context cx, uint32_t index) const;
  /// Sets element `index` to `value` (an error out of bounds, for
  /// immutable elements or a value of another type).
  Result<std::monostate> set(Store::Context cx, uint32_t index, const Val &value) const;
  /// As an `anyref` (a new root).
  AnyRef to_anyref() const {
    weft_anyref_t out;
    weft_arrayref_to_anyref(&raw, &out);
    return AnyRef(out);
  }
  /// As an `eqref` (a new root).
  EqRef to_eqref() const {
    weft_eqref_t out;
    weft_arrayref_to_eqref(&raw, &out);
    return EqRef(out);
  }
  /// The array's type. For null or a reference of another store it is an
  /// empty `ArrayType` (whose functions answer as for no type).
  ArrayType ty(Store::Context cx) const { return ArrayType(weft_arrayref_type(cx.capi(), &raw)); }
};

inline std::optional<ArrayRef> AnyRef::as_array(Store::Context cx) const {
  weft_arrayref_t out;
  if (!weft_anyref_as_array(cx.capi(), &raw, &out))
    return std::nullopt;
  return ArrayRef(out);
}

inline std::optional<ArrayRef> EqRef::as_array(Store::Context cx) const {
  weft_arrayref_t out;
  if (!weft_eqref_as_array(cx.capi(), &raw, &out))
    return std::nullopt;
  return ArrayRef(out);
}

} // namespace weft

#endif // WEFT_ARRAYREF_HH
