/**
 * \file weft/tag.hh
 *
 * \brief C++ API: `Tag`, an exception tag (as Wasmtime 48's
 * `wasmtime/tag.hh`).
 */

#include <weft/detail/core.hh>

#ifndef WEFT_TAG_HH
#define WEFT_TAG_HH

#include <weft/types.hh>

namespace weft {

/// An exception tag of a store.
class Tag {
  weft_tag_t tag;

public:
  /// The C tag.
  explicit Tag(weft_tag_t raw) : tag(raw) {}
  /// A new tag of type `ty`.
  static Result<Tag> create(Store::Context cx, const TagType &ty) {
    weft_tag_t t;
    if (weft_error_t *e = weft_tag_new(cx.capi(), ty.capi(), &t))
      return Error(e);
    return Tag(t);
  }
  /// The tag's type.
  TagType type(Store::Context cx) const { return TagType(weft_tag_type(cx.capi(), &tag)); }
  /// Whether `other` is the same tag.
  bool eq(Store::Context cx, const Tag &other) const { return weft_tag_eq(cx.capi(), &tag, &other.tag); }
  /// The C tag.
  const weft_tag_t &capi() const { return tag; }
};

inline Result<ExnRef> ExnRef::create(Store::Context cx, const Tag &tag, const std::vector<Val> &fields) {
  weft_exnref_t out;
  if (weft_error_t *e = weft_exnref_new(cx.capi(), &tag.capi(), detail::raw_vals(fields), fields.size(), &out))
    return Error(e);
  return ExnRef(out);
}
inline Result<Tag> ExnRef::tag(Store::Context cx) const {
  weft_tag_t t;
  if (weft_error_t *e = weft_exnref_tag(cx.capi(), &raw, &t))
    return Error(e);
  return Tag(t);
}

} // namespace weft

#endif // WEFT_TAG_HH
