/**
 * \file weft/func.hh
 *
 * \brief C++ API: `Caller`, `Func` (host functions from a `FuncType` and a
 * callback, or from a typed C++ callable with `Func::wrap`), `WasmType`,
 * `WasmTypeList` and `TypedFunc` (as Wasmtime 48's `wasmtime/func.hh`; the
 * definitions that need `Val` are in `weft/detail/func_impl.hh`, included
 * with it).
 */

#include <weft/detail/core.hh>

#ifndef WEFT_FUNC_HH
#define WEFT_FUNC_HH

#include <weft/types.hh>

namespace weft {

template <typename Params, typename Results> class TypedFunc;
namespace detail {
template <typename F> struct HostSig;
} // namespace detail

/// The caller of a host function.
class Caller {
  friend class Func;
  friend class Store::Context;
  weft_caller_t *ptr;

public:
  /// The C caller.
  explicit Caller(weft_caller_t *raw) : ptr(raw) {}
  /// The caller's export `name`, if any.
  std::optional<Extern> get_export(std::string_view name);
  /// The store context.
  Store::Context context() { return Store::Context(weft_caller_context(ptr)); }
  /// The C caller.
  weft_caller_t *capi() const { return ptr; }
};

inline Store::Context::Context(Caller &caller) : ptr(weft_caller_context(caller.ptr)) {}
inline Store::Context::Context(Caller *caller) : Context(*caller) {}

/// A function of a store.
class Func {
  friend class Val;
  weft_func_t f;

  template <typename F>
  static wasm_trap_t *trampoline(void *env, weft_caller_t *caller, const weft_val_t *args, size_t nargs,
                                 weft_val_t *results, size_t nresults) {
    F *func = static_cast<F *>(env);
    Span<const Val> a(reinterpret_cast<const Val *>(args), nargs);
    Span<Val> r(reinterpret_cast<Val *>(results), nresults);
    Result<std::monostate, Trap> res = (*func)(Caller(caller), a, r);
    if (res)
      return nullptr;
    return res.err().capi_release();
  }
  template <typename F> static void finalize(void *env) { delete static_cast<F *>(env); }

public:
  /// The C function.
  explicit Func(weft_func_t func) : f(func) {}
  /// A host function of type `ty` calling `f(Caller, Span<const Val> args,
  /// Span<Val> results) -> Result<std::monostate, Trap>`.
  template <typename F> Func(Store::Context cx, const FuncType &ty, F f) : f({}) {
    weft_func_new(cx.capi(), ty.capi(), trampoline<F>, new F(std::move(f)), finalize<F>, &this->f);
  }
  /// A host function whose type is that of the C++ callable `f`: its
  /// parameters (after an optional leading `Caller`) and result (`void`, a
  /// type of `WasmType`, a `std::tuple` of them, or a `Result<T, Trap>` of
  /// one of those to trap) are wasm values.
  template <typename F> static Func wrap(Store::Context cx, F f) {
    using Sig = detail::HostSig<F>;
    return Func(cx, Sig::functype(),
                [f = std::move(f)](Caller caller, Span<const Val> args, Span<Val> results) mutable
                -> Result<std::monostate, Trap> { return Sig::invoke(f, caller, args, results); });
  }
  /// Calls the function with `params`.
  TrapResult<std::vector<Val>> call(Store::Context cx, const std::vector<Val> &params) const;
  /// Calls the function with `params`.
  TrapResult<std::vector<Val>> call(Store::Context cx, std::initializer_list<Val> params) const;
  /// Calls the function with the values from `begin` to `end`.
  template <typename I> TrapResult<std::vector<Val>> call(Store::Context cx, const I &begin, const I &end) const {
    return call(cx, std::vector<Val>(begin, end));
  }
  /// The function's type.
  FuncType type(Store::Context cx) const { return FuncType(weft_func_type(cx.capi(), &f)); }
  /// The function as a `TypedFunc` taking `Params` and giving `Results`
  /// (see `WasmTypeList`); a trap if its type is another.
  template <typename Params, typename Results>
  Result<TypedFunc<Params, Results>, Trap> typed(Store::Context cx) const;
  /// The C function.
  const weft_func_t &capi() const { return f; }
};

} // namespace weft

#endif // WEFT_FUNC_HH
