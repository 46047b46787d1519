/**
 * \file weft/table.hh
 *
 * \brief C++ API: `Table` (as Wasmtime 48's `wasmtime/table.hh`).
 */

#include <weft/detail/core.hh>

#ifndef WEFT_TABLE_HH
#define WEFT_TABLE_HH

#include <weft/types.hh>

namespace weft {

/// A table of a store.
class Table {
  weft_table_t t;

public:
  /// The C table.
  explicit Table(weft_table_t raw) : t(raw) {}
  /// A new table of type `ty`, its elements `init`.
  static Result<Table> create(Store::Context cx, const TableType &ty, const Val &init) {
    weft_table_t out;
    if (weft_error_t *e = weft_table_new(cx.capi(), ty.capi(), init.capi(), &out))
      return Error(e);
    return Table(out);
  }
  /// Its type.
  TableType type(Store::Context cx) const { return TableType(weft_table_type(cx.capi(), &t)); }
  /// Its size.
  uint64_t size(Store::Context cx) const { return weft_table_size(cx.capi(), &t); }
  /// Element `index` (nullopt out of bounds).
  std::optional<Val> get(Store::Context cx, uint64_t index) const {
    weft_val_t v;
    if (!weft_table_get(cx.capi(), &t, index, &v))
      return std::nullopt;
    return Val(v);
  }
  /// Sets element `index` to `value`.
  Result<std::monostate> set(Store::Context cx, uint64_t index, const Val &value) const {
    if (weft_error_t *e = weft_table_set(cx.capi(), &t, index, value.capi()))
      return Error(e);
    return std::monostate();
  }
  /// Grows it by `delta` elements `init`; the old size.
  Result<uint64_t> grow(Store::Context cx, uint64_t delta, const Val &init) const {
    uint64_t prev = 0;
    if (weft_error_t *e = weft_table_grow(cx.capi(), &t, delta, init.capi(), &prev))
      return Error(e);
    return prev;
  }
  /// The C table.
  const weft_table_t &capi() const { return t; }
};

} // namespace weft

#endif // WEFT_TABLE_HH
