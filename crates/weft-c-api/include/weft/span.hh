/**
 * \file weft/span.hh
 *
 * \brief C++ API: `Span`, a view of contiguous elements (as Wasmtime 48's
 * `wasmtime/span.hh`): `std::span` where the standard library has it
 * (C++20), else a class of its own with the part of `std::span` the API
 * uses.
 */

#ifndef WEFT_SPAN_HH
#define WEFT_SPAN_HH

#ifdef __has_include
#if __has_include(<span>)
#include <span>
#endif
#endif

#include <cstddef>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft {

#ifdef __cpp_lib_span

/// `std::span`, as in Wasmtime 48 under C++20.
template <typename T, std::size_t Extent = std::dynamic_extent> using Span = std::span<T, Extent>;

/// The extent of a `Span` whose size is known only at run time.
inline constexpr size_t dynamic_extent = std::dynamic_extent;

/// Whether `T` is a `Span`.
template <typename T> struct IsSpan : std::false_type {};

/// Whether `T` is a `Span`: it is.
template <typename T, std::size_t Extent> struct IsSpan<std::span<T, Extent>> : std::true_type {};

#else

/// The extent of a `Span` whose size is known only at run time (the only
/// extent supported).
inline constexpr size_t dynamic_extent = std::numeric_limits<std::size_t>::max();

template <typename T, std::size_t Extent = dynamic_extent> class Span;

/// Whether `T` is a `Span`.
template <typename T> struct IsSpan : std::false_type {};

/// Whether `T` is a `Span`: it is.
template <typename T, std::size_t Extent> struct IsSpan<Span<T, Extent>> : std::true_type {};

/// A view of `size` contiguous `T`s, owned elsewhere.
template <typename T, std::size_t Extent> class Span {
  static_assert(Extent == dynamic_extent, "weft::Span supports only dynamic_extent");
  T *ptr_ = nullptr;
  size_t size_ = 0;

public:
  /// The iterator type.
  using iterator = T *;

  /// An empty span.
  Span() = default;
  /// `size` elements at `ptr`.
  Span(T *ptr, size_t size) : ptr_(ptr), size_(size) {}
  /// The elements of a vector.
  template <typename U> Span(std::vector<U> &v) : ptr_(v.data()), size_(v.size()) {}
  /// The elements of a vector.
  template <typename U> Span(const std::vector<U> &v) : ptr_(v.data()), size_(v.size()) {}
  /// The elements of a contiguous container other than a vector (with
  /// `data()` and `size()`, e.g. `std::array`).
  template <typename C,
            std::enable_if_t<!IsSpan<std::remove_cv_t<C>>::value &&
                                 std::is_pointer_v<decltype(std::declval<C &>().data())> &&
                                 std::is_convertible_v<std::remove_pointer_t<decltype(std::declval<C &>().data())> (*)[], T (*)[]> &&
                                 std::is_convertible_v<decltype(std::declval<C &>().size()), std::size_t>,
                             int> = 0>
  Span(C &range) : ptr_(range.data()), size_(range.size()) {}
  /// The first element.
  T *data() const { return ptr_; }
  /// The number of elements.
  size_t size() const { return size_; }
  /// The size of the elements, in bytes.
  std::size_t size_bytes() const { return sizeof(T) * size_; }
  /// The element `i`.
  T &operator[](size_t i) const { return ptr_[i]; }
  /// Iteration.
  iterator begin() const { return ptr_; }
  /// Iteration.
  iterator end() const { return ptr_ + size_; }
};

#endif // __cpp_lib_span

} // namespace weft

#endif // WEFT_SPAN_HH
