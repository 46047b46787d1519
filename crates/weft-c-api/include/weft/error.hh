/**
 * \file weft/error.hh
 *
 * \brief C++ API: `Span`, `Error`, `Result`, and the wasm backtraces
 * `Trace` and `FrameRef` (as Wasmtime 48's `wasmtime/error.hh`).
 */

#ifndef WEFT_ERROR_HH
#define WEFT_ERROR_HH

#include <any>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>
#include <weft.h>
#include <weft/span.hh>

namespace weft {

namespace detail {
inline std::string take_name(wasm_name_t &n) {
  std::string s(n.data ? n.data : "", n.size);
  wasm_byte_vec_delete(&n);
  return s;
}
} // namespace detail

/// One frame of a wasm backtrace, borrowed from its `Trace`.
class FrameRef {
  const wasm_frame_t *frame;

  static std::optional<std::string_view> name(const wasm_name_t *n) {
    if (n == nullptr)
      return std::nullopt;
    return std::string_view(n->data, n->size);
  }

public:
  /// The C frame (borrowed).
  explicit FrameRef(const wasm_frame_t *raw) : frame(raw) {}
  /// The index of the function in its module.
  uint32_t func_index() const { return wasm_frame_func_index(frame); }
  /// The offset of the instruction from the start of the function's code.
  size_t func_offset() const { return wasm_frame_func_offset(frame); }
  /// The offset of the instruction from the start of the module.
  size_t module_offset() const { return wasm_frame_module_offset(frame); }
  /// The function's name, from the name section, if it has one.
  std::optional<std::string_view> func_name() const { return name(weft_frame_func_name(frame)); }
  /// The module's name, from the name section, if it has one.
  std::optional<std::string_view> module_name() const { return name(weft_frame_module_name(frame)); }
  /// The C frame.
  const wasm_frame_t *capi() const { return frame; }
};

/// A wasm backtrace: the frames, innermost first (owning; move-only).
class Trace {
  wasm_frame_vec_t vec;

public:
  /// Takes ownership of the frames of `raw`.
  explicit Trace(wasm_frame_vec_t raw) : vec(raw) {}
  Trace(const Trace &) = delete;
  Trace &operator=(const Trace &) = delete;
  /// Takes `other`'s frames, leaving it empty.
  Trace(Trace &&other) noexcept : vec(other.vec) { wasm_frame_vec_new_empty(&other.vec); }
  /// Takes `other`'s frames, leaving it empty.
  Trace &operator=(Trace &&other) noexcept {
    if (this != &other) {
      wasm_frame_vec_delete(&vec);
      vec = other.vec;
      wasm_frame_vec_new_empty(&other.vec);
    }
    return *this;
  }
  ~Trace() { wasm_frame_vec_delete(&vec); }

  /// An iterator over the frames.
  class Iterator {
    wasm_frame_t *const *p;

  public:
    /// At `p`.
    explicit Iterator(wasm_frame_t *const *at) : p(at) {}
    /// The frame.
    FrameRef operator*() const { return FrameRef(*p); }
    /// The next frame.
    Iterator &operator++() {
      ++p;
      return *this;
    }
    /// Whether both are at the same frame.
    bool operator==(const Iterator &o) const { return p == o.p; }
    /// Whether they are at different frames.
    bool operator!=(const Iterator &o) const { return p != o.p; }
  };

  /// The number of frames.
  size_t size() const { return vec.size; }
  /// Frame `i` (innermost is 0).
  FrameRef operator[](size_t i) const { return FrameRef(vec.data[i]); }
  /// The iterator type (Wasmtime 48's name).
  using iterator = Iterator;
  /// The first (innermost) frame.
  Iterator begin() const { return Iterator(vec.data); }
  /// Past the last frame.
  Iterator end() const { return Iterator(vec.data + vec.size); }
};

/// An error (`weft_error_t`).
class Error {
  struct Deleter {
    void operator()(weft_error_t *e) const { weft_error_delete(e); }
  };
  std::unique_ptr<weft_error_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit Error(weft_error_t *raw) : ptr(raw) {}
  /// A new error with `msg`.
  explicit Error(const std::string &msg) : ptr(weft_error_new(msg.c_str())) {}
  /// The message, with its causes.
  std::string message() const {
    wasm_name_t n;
    weft_error_message(ptr.get(), &n);
    return detail::take_name(n);
  }
  /// The exit status, if this is a WASI exit.
  std::optional<int32_t> i32_exit() const {
    int status;
    if (weft_error_exit_status(ptr.get(), &status))
      return status;
    return std::nullopt;
  }
  /// The wasm backtrace of the error (empty if it has none).
  Trace trace() const {
    wasm_frame_vec_t out;
    weft_error_wasm_trace(ptr.get(), &out);
    return Trace(out);
  }
  /// The C object.
  weft_error_t *capi() const { return ptr.get(); }
  /// Gives up ownership of the C object.
  weft_error_t *capi_release() { return ptr.release(); }
};

/// Prints the error's message.
inline std::ostream &operator<<(std::ostream &os, const Error &e) { return os << e.message(); }

/// A value or an error.
template <typename T, typename E = Error> class [[nodiscard]] Result {
  std::variant<T, E> data;

public:
  /// A success.
  Result(T t) : data(std::move(t)) {}
  /// A failure.
  Result(E e) : data(std::move(e)) {}
  /// Whether it is a success.
  explicit operator bool() const { return data.index() == 0; }
  /// The error (only on failure).
  E &&err() { return std::get<E>(std::move(data)); }
  /// The error (only on failure).
  const E &&err() const { return std::get<E>(std::move(data)); }
  /// The error (only on failure).
  E &err_ref() { return std::get<E>(data); }
  /// The error (only on failure).
  const E &err_ref() const { return std::get<E>(data); }
  /// The value (only on success).
  T &&ok() { return std::get<T>(std::move(data)); }
  /// The value (only on success).
  const T &&ok() const { return std::get<T>(std::move(data)); }
  /// The value (only on success).
  T &ok_ref() { return std::get<T>(data); }
  /// The value (only on success).
  const T &ok_ref() const { return std::get<T>(data); }
  /// The value; prints the error and aborts on failure.
  T unwrap() {
    if (*this)
      return this->ok();
    fprintf(stderr, "error: %s\n", this->err().message().c_str());
    std::abort();
  }
};

/// The text format `wat` as a binary module (or component).
inline Result<std::vector<uint8_t>> wat2wasm(std::string_view wat) {
  wasm_byte_vec_t out;
  if (weft_error_t *e = weft_wat2wasm(wat.data(), wat.size(), &out))
    return Error(e);
  std::vector<uint8_t> v(out.data, out.data + out.size);
  wasm_byte_vec_delete(&out);
  return v;
}

} // namespace weft

#endif // WEFT_ERROR_HH
