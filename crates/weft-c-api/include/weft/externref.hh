/**
 * \file weft/externref.hh
 *
 * \brief C++ API: `ExternRef`, a host value in a GC reference (as Wasmtime
 * 48's `wasmtime/externref.hh`).
 */

#include <weft/detail/core.hh>

#ifndef WEFT_EXTERNREF_HH
#define WEFT_EXTERNREF_HH

#include <weft/detail/ref.hh>

namespace weft {

/// An `externref` to a host value (a `std::any` owned by the store's GC
/// heap, destroyed when no reference reaches it). Copies are new
/// references.
class ExternRef : public detail::RefBase<weft_externref_t, weft_externref_clone, weft_externref_unroot> {
  static void finalize(void *data) { delete static_cast<std::any *>(data); }
  static weft_externref_t make(Store::Context cx, std::any value) {
    weft_externref_t out;
    auto *data = new std::any(std::move(value));
    // On failure the finalizer has already freed `data`.
    if (!weft_externref_new(cx.capi(), data, finalize, &out))
      weft_externref_set_null(&out);
    return out;
  }

public:
  /// Takes ownership of the C reference `raw`.
  explicit ExternRef(weft_externref_t raw) : RefBase(raw) {}
  /// A new reference to `value` in the store of `cx` (null if the store
  /// refuses it).
  ExternRef(Store::Context cx, std::any value) : RefBase(make(cx, std::move(value))) {}
  /// The host value (for a null reference or one of another store, an
  /// empty `std::any` of this thread, shared by all such calls).
  std::any &data(Store::Context cx) const {
    if (void *d = weft_externref_data(cx.capi(), &raw))
      return *static_cast<std::any *>(d);
    thread_local std::any none;
    none.reset();
    return none;
  }
  /// The reference's raw value (for unchecked calls).
  uint32_t to_raw(Store::Context cx) const { return weft_externref_to_raw(cx.capi(), &raw); }
  /// The reference of a raw value (nullopt for 0 or an unknown value).
  static std::optional<ExternRef> from_raw(Store::Context cx, uint32_t raw) {
    weft_externref_t out;
    weft_externref_from_raw(cx.capi(), raw, &out);
    if (weft_externref_is_null(&out))
      return std::nullopt;
    return ExternRef(out);
  }
};

} // namespace weft

#endif // WEFT_EXTERNREF_HH
