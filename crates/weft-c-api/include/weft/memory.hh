/**
 * \file weft/memory.hh
 *
 * \brief C++ API: `Memory` (as Wasmtime 48's `wasmtime/memory.hh`).
 */

#include <weft/detail/core.hh>

#ifndef WEFT_MEMORY_HH
#define WEFT_MEMORY_HH

#include <weft/types.hh>

namespace weft {

/// A memory of a store.
class Memory {
  weft_memory_t m;

public:
  /// The C memory.
  explicit Memory(weft_memory_t raw) : m(raw) {}
  /// A new memory of type `ty`.
  static Result<Memory> create(Store::Context cx, const MemoryType &ty) {
    weft_memory_t out;
    if (weft_error_t *e = weft_memory_new(cx.capi(), ty.capi(), &out))
      return Error(e);
    return Memory(out);
  }
  /// Its type.
  MemoryType type(Store::Context cx) const { return MemoryType(weft_memory_type(cx.capi(), &m)); }
  /// Its bytes (valid until it grows).
  Span<uint8_t> data(Store::Context cx) const {
    return Span<uint8_t>(weft_memory_data(cx.capi(), &m), weft_memory_data_size(cx.capi(), &m));
  }
  /// Its size in pages.
  uint64_t size(Store::Context cx) const { return weft_memory_size(cx.capi(), &m); }
  /// Grows it by `delta` pages; the old size.
  Result<uint64_t> grow(Store::Context cx, uint64_t delta) const {
    uint64_t prev = 0;
    if (weft_error_t *e = weft_memory_grow(cx.capi(), &m, delta, &prev))
      return Error(e);
    return prev;
  }
  /// Its page size in bytes.
  uint64_t page_size(Store::Context cx) const { return weft_memory_page_size(cx.capi(), &m); }
  /// The base-2 logarithm of its page size.
  uint8_t page_size_log2(Store::Context cx) const { return weft_memory_page_size_log2(cx.capi(), &m); }
  /// The C memory.
  const weft_memory_t &capi() const { return m; }
};

} // namespace weft

#endif // WEFT_MEMORY_HH
