/**
 * \file weft/trap.hh
 *
 * \brief C++ API: `Trap`, `TrapError` and `TrapResult` (as Wasmtime 48's
 * `wasmtime/trap.hh`).
 */

#ifndef WEFT_TRAP_HH
#define WEFT_TRAP_HH

#include <weft/error.hh>

namespace weft {

/// A trap (`wasm_trap_t`).
class Trap {
  struct Deleter {
    void operator()(wasm_trap_t *t) const { wasm_trap_delete(t); }
  };
  std::unique_ptr<wasm_trap_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit Trap(wasm_trap_t *raw) : ptr(raw) {}
  /// A trap with message `msg`.
  explicit Trap(std::string_view msg) : ptr(weft_trap_new(msg.data(), msg.size())) {}
  /// A trap with code `code`.
  explicit Trap(weft_trap_code_t code) : ptr(weft_trap_new_code(code)) {}
  /// The message.
  std::string message() const {
    wasm_message_t m;
    wasm_trap_message(ptr.get(), &m);
    std::string s = detail::take_name(m);
    if (!s.empty() && s.back() == '\0')
      s.pop_back();
    return s;
  }
  /// The trap code, for traps of wasm instructions.
  std::optional<weft_trap_code_t> code() const {
    weft_trap_code_t c;
    if (weft_trap_code(ptr.get(), &c))
      return c;
    return std::nullopt;
  }
  /// The wasm backtrace of the trap, innermost frame first (empty for a
  /// trap made by the host and not yet raised).
  Trace trace() const {
    wasm_frame_vec_t out;
    wasm_trap_trace(ptr.get(), &out);
    return Trace(out);
  }
  /// The C object.
  wasm_trap_t *capi() const { return ptr.get(); }
  /// Gives up ownership of the C object.
  wasm_trap_t *capi_release() { return ptr.release(); }
};

/// A trap or an error: the failures of a call.
struct TrapError {
  /// Which one.
  std::variant<Trap, Error> data;
  /// From a trap.
  TrapError(Trap t) : data(std::move(t)) {}
  /// From an error.
  TrapError(Error e) : data(std::move(e)) {}
  /// The message of either.
  std::string message() const {
    if (auto *t = std::get_if<Trap>(&data))
      return t->message();
    return std::get<Error>(data).message();
  }
};

/// A value or a trap or error.
template <typename T> using TrapResult = Result<T, TrapError>;

} // namespace weft

#endif // WEFT_TRAP_HH
