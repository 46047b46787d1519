/**
 * \file weft/val.hh
 *
 * \brief C++ API: `V128` and `Val`, a core value (as Wasmtime 48's
 * `wasmtime/val.hh`).
 */

#include <weft/detail/core.hh>

#ifndef WEFT_VAL_HH
#define WEFT_VAL_HH

#include <weft/types.hh>

namespace weft {

/// A 128-bit SIMD value.
struct V128 {
  /// Its bytes, little-endian.
  weft_v128 v;
};

/// A core value (layout-compatible with `weft_val_t`). A value holding a
/// GC reference owns its root: copies clone it, the destructor unroots it,
/// a moved-from value is the `i32` 0.
class Val {
  friend class Func;
  weft_val_t val;

  static weft_val_t zero() {
    weft_val_t v;
    v.kind = WEFT_I32;
    v.of.i64 = 0;
    return v;
  }

public:
  /// Takes ownership of the C value `v`.
  explicit Val(weft_val_t v) : val(v) {}
  /// An `i32`.
  Val(int32_t i) : val(zero()) { val.of.i32 = i; }
  /// An `i64`.
  Val(int64_t i) : val(zero()) {
    val.kind = WEFT_I64;
    val.of.i64 = i;
  }
  /// An `f32`.
  Val(float f) : val(zero()) {
    val.kind = WEFT_F32;
    val.of.f32 = f;
  }
  /// An `f64`.
  Val(double f) : val(zero()) {
    val.kind = WEFT_F64;
    val.of.f64 = f;
  }
  /// A `v128`.
  Val(V128 v) : val(zero()) {
    val.kind = WEFT_V128;
    memcpy(val.of.v128, v.v, sizeof v.v);
  }
  /// A `funcref` (nullopt for null).
  Val(std::optional<Func> f);
  /// A `funcref`.
  Val(Func f);
  /// An `externref` (nullopt for null).
  Val(std::optional<ExternRef> r) : val(zero()) {
    val.kind = WEFT_EXTERNREF;
    if (r)
      val.of.externref = r->take_raw();
    else
      weft_externref_set_null(&val.of.externref);
  }
  /// An `externref`.
  Val(ExternRef r) : Val(std::optional<ExternRef>(std::move(r))) {}
  /// An `anyref` (nullopt for null).
  Val(std::optional<AnyRef> r) : val(zero()) {
    val.kind = WEFT_ANYREF;
    if (r)
      val.of.anyref = r->take_raw();
    else
      weft_anyref_set_null(&val.of.anyref);
  }
  /// An `anyref`.
  Val(AnyRef r) : Val(std::optional<AnyRef>(std::move(r))) {}
  /// An `exnref` (nullopt for null).
  Val(std::optional<ExnRef> e) : val(zero()) {
    val.kind = WEFT_EXNREF;
    if (e)
      val.of.exnref = e->take_raw();
    else
      weft_exnref_set_null(&val.of.exnref);
  }
  /// An `exnref`.
  Val(ExnRef e) : Val(std::optional<ExnRef>(std::move(e))) {}
  /// A copy (a new root for a reference).
  Val(const Val &other) { weft_val_clone(&other.val, &val); }
  /// A copy (a new root for a reference).
  Val &operator=(const Val &other) {
    if (this != &other) {
      weft_val_unroot(&val);
      weft_val_clone(&other.val, &val);
    }
    return *this;
  }
  /// Takes `other`'s value, leaving it the `i32` 0.
  Val(Val &&other) noexcept : val(other.val) { other.val = zero(); }
  /// Takes `other`'s value, leaving it the `i32` 0.
  Val &operator=(Val &&other) noexcept {
    if (this != &other) {
      weft_val_unroot(&val);
      val = other.val;
      other.val = zero();
    }
    return *this;
  }
  ~Val() { weft_val_unroot(&val); }

  /// The kind.
  ValKind kind() const { return static_cast<ValKind>(val.kind); }
  /// The `i32` (only for that kind).
  int32_t i32() const { return val.of.i32; }
  /// The `i64` (only for that kind).
  int64_t i64() const { return val.of.i64; }
  /// The `f32` (only for that kind).
  float f32() const { return val.of.f32; }
  /// The `f64` (only for that kind).
  double f64() const { return val.of.f64; }
  /// The `v128` (only for that kind).
  V128 v128() const {
    V128 r;
    memcpy(r.v, val.of.v128, sizeof r.v);
    return r;
  }
  /// The `funcref` (nullopt for null or another kind).
  std::optional<Func> funcref() const;
  /// The `externref`, a new reference (nullopt for null or another kind).
  std::optional<ExternRef> externref() const {
    if (val.kind != WEFT_EXTERNREF || weft_externref_is_null(&val.of.externref))
      return std::nullopt;
    weft_externref_t copy;
    weft_externref_clone(&val.of.externref, &copy);
    return ExternRef(copy);
  }
  /// The `anyref`, a new root (nullopt for null or another kind).
  std::optional<AnyRef> anyref() const {
    if (val.kind != WEFT_ANYREF || weft_anyref_is_null(&val.of.anyref))
      return std::nullopt;
    weft_anyref_t copy;
    weft_anyref_clone(&val.of.anyref, &copy);
    return AnyRef(copy);
  }
  /// The `exnref`, a new reference (nullopt for null or another kind).
  std::optional<ExnRef> exnref() const {
    if (val.kind != WEFT_EXNREF || weft_exnref_is_null(&val.of.exnref))
      return std::nullopt;
    weft_exnref_t copy;
    weft_exnref_clone(&val.of.exnref, &copy);
    return ExnRef(copy);
  }
  /// The C type of the value.
  using Raw = weft_val_t;
  /// The C value, still owned by this object.
  const Raw *capi() const { return &val; }
  /// The C value, still owned by this object.
  Raw *capi() { return &val; }
  /// Gives up the C value (the caller unroots it), leaving the `i32` 0.
  weft_val_t take_raw() {
    weft_val_t out = val;
    val = zero();
    return out;
  }
};

static_assert(sizeof(Val) == sizeof(weft_val_t), "Val is a weft_val_t");

namespace detail {
inline const weft_val_t *raw_vals(const std::vector<Val> &v) { return reinterpret_cast<const weft_val_t *>(v.data()); }
} // namespace detail

inline Result<StructRef> StructRef::create(Store::Context cx, const StructRefPre &pre, const std::vector<Val> &fields) {
  weft_structref_t out;
  if (weft_error_t *e = weft_structref_new(cx.capi(), pre.capi(), detail::raw_vals(fields), fields.size(), &out))
    return Error(e);
  return StructRef(out);
}
inline Result<Val> StructRef::field(Store::Context cx, size_t index) const {
  weft_val_t v;
  if (weft_error_t *e = weft_structref_field(cx.capi(), &raw, index, &v))
    return Error(e);
  return Val(v);
}
inline Result<std::monostate> StructRef::set_field(Store::Context cx, size_t index, const Val &value) const {
  if (weft_error_t *e = weft_structref_set_field(cx.capi(), &raw, index, value.capi()))
    return Error(e);
  return std::monostate();
}

inline Result<ArrayRef> ArrayRef::create(Store::Context cx, const ArrayRefPre &pre, const Val &elem, uint32_t len) {
  weft_arrayref_t out;
  if (weft_error_t *e = weft_arrayref_new(cx.capi(), pre.capi(), elem.capi(), len, &out))
    return Error(e);
  return ArrayRef(out);
}
inline Result<Val> ArrayRef::get(Store::Context cx, uint32_t index) const {
  weft_val_t v;
  if (weft_error_t *e = weft_arrayref_get(cx.capi(), &raw, index, &v))
    return Error(e);
  return Val(v);
}
inline Result<std::monostate> ArrayRef::set(Store::Context cx, uint32_t index, const Val &value) const {
  if (weft_error_t *e = weft_arrayref_set(cx.capi(), &raw, index, value.capi()))
    return Error(e);
  return std::monostate();
}

inline Result<Val> ExnRef::field(Store::Context cx, size_t index) const {
  weft_val_t v;
  if (weft_error_t *e = weft_exnref_field(cx.capi(), &raw, index, &v))
    return Error(e);
  return Val(v);
}

} // namespace weft

#endif // WEFT_VAL_HH
