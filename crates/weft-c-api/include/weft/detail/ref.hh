/**
 * \file weft/detail/ref.hh
 *
 * \brief The base of the C++ reference classes (`ExternRef`, `AnyRef`,
 * `EqRef`, `StructRef`, `ArrayRef`, `ExnRef`): a root of a GC object owned
 * by the object, cloned when copied, unrooted when destroyed, left null when
 * moved from.
 */

#ifndef WEFT_DETAIL_REF_HH
#define WEFT_DETAIL_REF_HH

#include <weft/error.hh>

namespace weft {
namespace detail {

/// A rooted reference of C type `Raw` (`weft_anyref_t` and its kin).
template <typename Raw, void (*Clone)(const Raw *, Raw *), void (*Unroot)(Raw *)> class RefBase {
protected:
  /// The C reference (null: `store_id` 0).
  Raw raw;

public:
  /// Takes ownership of the C reference `r` (its root).
  explicit RefBase(Raw r) : raw(r) {}
  /// A new root of `other`'s object.
  RefBase(const RefBase &other) { Clone(&other.raw, &raw); }
  /// Takes `other`'s root, leaving it null.
  RefBase(RefBase &&other) noexcept : raw(other.raw) { other.raw.store_id = 0; }
  /// Refers to `other`'s object.
  RefBase &operator=(const RefBase &other) {
    if (this != &other) {
      Unroot(&raw);
      Clone(&other.raw, &raw);
    }
    return *this;
  }
  /// Takes `other`'s root, leaving it null.
  RefBase &operator=(RefBase &&other) noexcept {
    if (this != &other) {
      Unroot(&raw);
      raw = other.raw;
      other.raw.store_id = 0;
    }
    return *this;
  }
  ~RefBase() { Unroot(&raw); }
  /// Gives up the C reference (the caller unroots it), leaving this null.
  Raw take_raw() {
    Raw out = raw;
    raw.store_id = 0;
    return out;
  }
  /// The C reference, still owned by this object.
  const Raw *borrow_raw() const { return &raw; }
  /// The C reference, still owned by this object.
  const Raw &capi() const { return raw; }
};

} // namespace detail
} // namespace weft

#endif // WEFT_DETAIL_REF_HH
