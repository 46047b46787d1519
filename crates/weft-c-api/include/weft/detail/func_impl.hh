/**
 * \file weft/detail/func_impl.hh
 *
 * \brief The parts of `weft/func.hh` that need `Val`: `WasmType`,
 * `WasmTypeList`, `TypedFunc` and the calls of `Func`.
 */

#include <weft/detail/core.hh>

#ifndef WEFT_DETAIL_FUNC_IMPL_HH
#define WEFT_DETAIL_FUNC_IMPL_HH

namespace weft {

/// The C++ types of wasm values, for `Func::wrap` and `TypedFunc`:
/// `WasmType<T>` gives the value type of `T` and converts between `T` and
/// `Val`.
template <typename T> struct WasmType;

/// `int32_t` is `i32`.
template <> struct WasmType<int32_t> {
  /// The value type.
  static ValType valtype() { return ValType::i32(); }
  /// As a value.
  static Val to_val(int32_t v) { return Val(v); }
  /// From a value.
  static int32_t from_val(const Val &v) { return v.i32(); }
};
/// `uint32_t` is `i32` (the same bits).
template <> struct WasmType<uint32_t> {
  /// The value type.
  static ValType valtype() { return ValType::i32(); }
  /// As a value.
  static Val to_val(uint32_t v) { return Val(static_cast<int32_t>(v)); }
  /// From a value.
  static uint32_t from_val(const Val &v) { return static_cast<uint32_t>(v.i32()); }
};
/// `int64_t` is `i64`.
template <> struct WasmType<int64_t> {
  /// The value type.
  static ValType valtype() { return ValType::i64(); }
  /// As a value.
  static Val to_val(int64_t v) { return Val(v); }
  /// From a value.
  static int64_t from_val(const Val &v) { return v.i64(); }
};
/// `uint64_t` is `i64` (the same bits).
template <> struct WasmType<uint64_t> {
  /// The value type.
  static ValType valtype() { return ValType::i64(); }
  /// As a value.
  static Val to_val(uint64_t v) { return Val(static_cast<int64_t>(v)); }
  /// From a value.
  static uint64_t from_val(const Val &v) { return static_cast<uint64_t>(v.i64()); }
};
/// `float` is `f32`.
template <> struct WasmType<float> {
  /// The value type.
  static ValType valtype() { return ValType::f32(); }
  /// As a value.
  static Val to_val(float v) { return Val(v); }
  /// From a value.
  static float from_val(const Val &v) { return v.f32(); }
};
/// `double` is `f64`.
template <> struct WasmType<double> {
  /// The value type.
  static ValType valtype() { return ValType::f64(); }
  /// As a value.
  static Val to_val(double v) { return Val(v); }
  /// From a value.
  static double from_val(const Val &v) { return v.f64(); }
};
/// `V128` is `v128`.
template <> struct WasmType<V128> {
  /// The value type.
  static ValType valtype() { return ValType::v128(); }
  /// As a value.
  static Val to_val(V128 v) { return Val(v); }
  /// From a value.
  static V128 from_val(const Val &v) { return v.v128(); }
};
/// `std::optional<Func>` is `funcref`.
template <> struct WasmType<std::optional<Func>> {
  /// The value type.
  static ValType valtype() { return ValType::funcref(); }
  /// As a value.
  static Val to_val(std::optional<Func> v);
  /// From a value.
  static std::optional<Func> from_val(const Val &v);
};
/// `std::optional<ExternRef>` is `externref`.
template <> struct WasmType<std::optional<ExternRef>> {
  /// The value type.
  static ValType valtype() { return ValType::externref(); }
  /// As a value.
  static Val to_val(std::optional<ExternRef> v) { return Val(std::move(v)); }
  /// From a value.
  static std::optional<ExternRef> from_val(const Val &v) { return v.externref(); }
};
/// `std::optional<AnyRef>` is `anyref`.
template <> struct WasmType<std::optional<AnyRef>> {
  /// The value type.
  static ValType valtype() { return ValType::anyref(); }
  /// As a value.
  static Val to_val(std::optional<AnyRef> v) { return Val(std::move(v)); }
  /// From a value.
  static std::optional<AnyRef> from_val(const Val &v) { return v.anyref(); }
};
/// `std::optional<ExnRef>` is `exnref`.
template <> struct WasmType<std::optional<ExnRef>> {
  /// The value type.
  static ValType valtype() { return ValType::exnref(); }
  /// As a value.
  static Val to_val(std::optional<ExnRef> v) { return Val(std::move(v)); }
  /// From a value.
  static std::optional<ExnRef> from_val(const Val &v) { return v.exnref(); }
};

/// A list of wasm values as C++: `std::monostate` (none), a `T` with
/// `WasmType<T>` (one), or a `std::tuple` of them.
template <typename T> struct WasmTypeList {
  /// The number of values.
  static constexpr size_t size = 1;
  /// The value types.
  static std::vector<ValType> valtypes() { return {WasmType<T>::valtype()}; }
  /// Appends the values of `t` to `out`.
  static void store(T t, std::vector<Val> &out) { out.push_back(WasmType<T>::to_val(std::move(t))); }
  /// The C++ of `size` values at `vals`.
  static T load(const Val *vals) { return WasmType<T>::from_val(vals[0]); }
};
/// No values.
template <> struct WasmTypeList<std::monostate> {
  /// The number of values.
  static constexpr size_t size = 0;
  /// The value types.
  static std::vector<ValType> valtypes() { return {}; }
  /// Appends nothing.
  static void store(std::monostate, std::vector<Val> &) {}
  /// Nothing.
  static std::monostate load(const Val *) { return std::monostate(); }
};
/// Several values.
template <typename... T> struct WasmTypeList<std::tuple<T...>> {
  /// The number of values.
  static constexpr size_t size = sizeof...(T);
  /// The value types.
  static std::vector<ValType> valtypes() { return {WasmType<T>::valtype()...}; }
  /// Appends the values of `t` to `out`.
  static void store(std::tuple<T...> t, std::vector<Val> &out) {
    std::apply([&](auto &&...xs) { (out.push_back(WasmType<std::decay_t<decltype(xs)>>::to_val(std::move(xs))), ...); },
               std::move(t));
  }
  /// The C++ of `size` values at `vals`.
  static std::tuple<T...> load(const Val *vals) { return load_at(vals, std::index_sequence_for<T...>()); }

private:
  template <size_t... I> static std::tuple<T...> load_at(const Val *vals, std::index_sequence<I...>) {
    (void)vals;
    return std::tuple<T...>(WasmType<T>::from_val(vals[I])...);
  }
};

namespace detail {
template <typename F> struct FnTraits : FnTraits<decltype(&F::operator())> {};
template <typename C, typename R, typename... A> struct FnTraits<R (C::*)(A...) const> {
  using Ret = R;
  using Args = std::tuple<A...>;
};
template <typename C, typename R, typename... A> struct FnTraits<R (C::*)(A...)> {
  using Ret = R;
  using Args = std::tuple<A...>;
};
template <typename R, typename... A> struct FnTraits<R (*)(A...)> {
  using Ret = R;
  using Args = std::tuple<A...>;
};
template <typename R, typename... A> struct FnTraits<R(A...)> {
  using Ret = R;
  using Args = std::tuple<A...>;
};

template <typename Args> struct ArgSplit;
template <> struct ArgSplit<std::tuple<>> {
  static constexpr bool caller = false;
  using Params = std::tuple<>;
};
template <typename First, typename... Rest> struct ArgSplit<std::tuple<First, Rest...>> {
  static constexpr bool caller = std::is_same_v<std::decay_t<First>, Caller>;
  using Params = std::conditional_t<caller, std::tuple<std::decay_t<Rest>...>,
                                    std::tuple<std::decay_t<First>, std::decay_t<Rest>...>>;
};

template <typename R> struct RetSplit {
  static constexpr bool fallible = false;
  using Results = R;
};
template <> struct RetSplit<void> {
  static constexpr bool fallible = false;
  using Results = std::monostate;
};
template <typename T> struct RetSplit<Result<T, Trap>> {
  static constexpr bool fallible = true;
  using Results = T;
};

/// The shape of a host callable `F` for `Func::wrap`.
template <typename F> struct HostSig {
  using Traits = FnTraits<std::remove_pointer_t<std::decay_t<F>>>;
  using Split = ArgSplit<typename Traits::Args>;
  using Params = typename Split::Params;
  using Ret = typename Traits::Ret;
  using Results = typename RetSplit<Ret>::Results;

  static FuncType functype() {
    return FuncType(WasmTypeList<Params>::valtypes(), WasmTypeList<Results>::valtypes());
  }

  template <typename G> static decltype(auto) call(G &f, Caller caller, Params &&p) {
    if constexpr (Split::caller)
      return std::apply([&](auto &&...xs) -> decltype(auto) { return f(caller, std::move(xs)...); }, std::move(p));
    else {
      (void)caller;
      return std::apply([&](auto &&...xs) -> decltype(auto) { return f(std::move(xs)...); }, std::move(p));
    }
  }

  static void put(Results r, Span<Val> results) {
    std::vector<Val> out;
    WasmTypeList<Results>::store(std::move(r), out);
    for (size_t i = 0; i < out.size() && i < results.size(); i++)
      results[i] = std::move(out[i]);
  }

  template <typename G> static Result<std::monostate, Trap> invoke(G &f, Caller caller, Span<const Val> args, Span<Val> results) {
    if (args.size() != WasmTypeList<Params>::size || results.size() != WasmTypeList<Results>::size)
      return Trap("host function called with the wrong number of values");
    Params p = WasmTypeList<Params>::load(args.data());
    if constexpr (std::is_void_v<Ret>) {
      call(f, caller, std::move(p));
    } else if constexpr (RetSplit<Ret>::fallible) {
      Ret r = call(f, caller, std::move(p));
      if (!r)
        return r.err();
      put(r.ok(), results);
    } else {
      put(call(f, caller, std::move(p)), results);
    }
    return std::monostate();
  }
};
} // namespace detail

inline TrapResult<std::vector<Val>> Func::call(Store::Context cx, const std::vector<Val> &params) const {
  wasm_functype_t *ty = weft_func_type(cx.capi(), &f);
  if (ty == nullptr)
    return TrapError(Error("function of another store"));
  size_t n = wasm_functype_results(ty)->size;
  wasm_functype_delete(ty);
  std::vector<Val> results(n, Val(int32_t(0)));
  wasm_trap_t *trap = nullptr;
  weft_error_t *e = weft_func_call(cx.capi(), &f, reinterpret_cast<const weft_val_t *>(params.data()),
                                   params.size(), reinterpret_cast<weft_val_t *>(results.data()), n, &trap);
  if (e)
    return TrapError(Error(e));
  if (trap)
    return TrapError(Trap(trap));
  return results;
}
inline TrapResult<std::vector<Val>> Func::call(Store::Context cx, std::initializer_list<Val> params) const {
  return call(cx, std::vector<Val>(params));
}

/// A function called with C++ values: `Params` and `Results` are
/// `std::monostate`, a type of `WasmType` or a `std::tuple` of them.
template <typename Params, typename Results> class TypedFunc {
  Func f;

public:
  /// `func`, whose type the caller has checked (see `Func::typed`).
  explicit TypedFunc(Func func) : f(func) {}
  /// Calls the function.
  TrapResult<Results> call(Store::Context cx, Params params) const {
    std::vector<Val> args;
    WasmTypeList<Params>::store(std::move(params), args);
    auto r = f.call(cx, args);
    if (!r)
      return r.err();
    std::vector<Val> results = r.ok();
    if (results.size() != WasmTypeList<Results>::size)
      return TrapError(Error("function gave another number of results"));
    return WasmTypeList<Results>::load(results.data());
  }
  /// The function.
  const Func &func() const { return f; }
};

template <typename Params, typename Results>
Result<TypedFunc<Params, Results>, Trap> Func::typed(Store::Context cx) const {
  wasm_functype_t *raw = weft_func_type(cx.capi(), &f);
  if (raw == nullptr)
    return Trap("function of another store");
  FuncType ty(raw);
  std::vector<ValType> params = WasmTypeList<Params>::valtypes();
  std::vector<ValType> results = WasmTypeList<Results>::valtypes();
  auto same = [](ValType::ListRef have, const std::vector<ValType> &want) {
    if (have.size() != want.size())
      return false;
    for (size_t i = 0; i < want.size(); i++)
      if (have[i].kind() != want[i].kind())
        return false;
    return true;
  };
  if (!same(ty->params(), params) || !same(ty->results(), results))
    return Trap("the function's type is not the one of the typed function");
  return TypedFunc<Params, Results>(*this);
}

inline Val::Val(std::optional<Func> f) : val(zero()) {
  val.kind = WEFT_FUNCREF;
  if (f)
    val.of.funcref = f->f;
  else
    weft_funcref_set_null(&val.of.funcref);
}
inline Val::Val(Func f) : Val(std::optional<Func>(f)) {}
inline std::optional<Func> Val::funcref() const {
  if (val.kind != WEFT_FUNCREF || weft_funcref_is_null(&val.of.funcref))
    return std::nullopt;
  return Func(val.of.funcref);
}
inline Val WasmType<std::optional<Func>>::to_val(std::optional<Func> v) { return Val(v); }
inline std::optional<Func> WasmType<std::optional<Func>>::from_val(const Val &v) { return v.funcref(); }

} // namespace weft

#endif // WEFT_DETAIL_FUNC_IMPL_HH
