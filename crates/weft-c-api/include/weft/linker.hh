/**
 * \file weft/linker.hh
 *
 * \brief C++ API: `Linker` (as Wasmtime 48's `wasmtime/linker.hh`).
 */

#ifndef WEFT_LINKER_HH
#define WEFT_LINKER_HH

#include <weft/instance.hh>

namespace weft {

/// A linker of modules.
class Linker {
  struct Deleter {
    void operator()(weft_linker_t *l) const { weft_linker_delete(l); }
  };
  std::unique_ptr<weft_linker_t, Deleter> ptr;
  static Result<std::monostate> done(weft_error_t *e) {
    if (e)
      return Error(e);
    return std::monostate();
  }

public:
  /// An empty linker.
  explicit Linker(Engine &engine) : ptr(weft_linker_new(engine.capi())) {}
  /// Whether definitions may be replaced.
  void allow_shadowing(bool allow) { weft_linker_allow_shadowing(ptr.get(), allow); }
  /// Defines `module::name`.
  Result<std::monostate> define(Store::Context cx, std::string_view module, std::string_view name,
                                const Extern &item) {
    weft_extern_t raw = detail::to_extern(item);
    return done(weft_linker_define(ptr.get(), cx.capi(), module.data(), module.size(), name.data(), name.size(), &raw));
  }
  /// Defines WASI preview1.
  Result<std::monostate> define_wasi() { return done(weft_linker_define_wasi(ptr.get())); }
  /// Defines the exports of `instance` under `name`.
  Result<std::monostate> define_instance(Store::Context cx, std::string_view name, const Instance &instance) {
    return done(weft_linker_define_instance(ptr.get(), cx.capi(), name.data(), name.size(), &instance.capi()));
  }
  /// Instantiates `module`.
  TrapResult<Instance> instantiate(Store::Context cx, const Module &module) {
    weft_instance_t out;
    wasm_trap_t *trap = nullptr;
    if (weft_error_t *e = weft_linker_instantiate(ptr.get(), cx.capi(), module.capi(), &out, &trap))
      return TrapError(Error(e));
    if (trap)
      return TrapError(Trap(trap));
    return Instance(out);
  }
  /// Instantiates `module` and defines its exports under `name`.
  Result<std::monostate> module(Store::Context cx, std::string_view name, const Module &module) {
    return done(weft_linker_module(ptr.get(), cx.capi(), name.data(), name.size(), module.capi()));
  }
  /// The definition `module::name`, if any.
  std::optional<Extern> get(Store::Context cx, std::string_view module, std::string_view name) {
    weft_extern_t e;
    if (!weft_linker_get(ptr.get(), cx.capi(), module.data(), module.size(), name.data(), name.size(), &e))
      return std::nullopt;
    return detail::extern_of(e);
  }
  /// The default export of the module `name`.
  Result<Func> get_default(Store::Context cx, std::string_view name) {
    weft_func_t f;
    if (weft_error_t *e = weft_linker_get_default(ptr.get(), cx.capi(), name.data(), name.size(), &f))
      return Error(e);
    return Func(f);
  }
  /// Defines `module::name` as a host function (as the `Func` constructor).
  template <typename F>
  Result<std::monostate> func_new(std::string_view module, std::string_view name, const FuncType &ty, F f) {
    struct Env {
      F f;
    };
    auto cb = [](void *env, weft_caller_t *caller, const weft_val_t *args, size_t nargs, weft_val_t *results,
                 size_t nresults) -> wasm_trap_t * {
      Env *e = static_cast<Env *>(env);
      Span<const Val> a(reinterpret_cast<const Val *>(args), nargs);
      Span<Val> r(reinterpret_cast<Val *>(results), nresults);
      Result<std::monostate, Trap> res = e->f(Caller(caller), a, r);
      if (res)
        return nullptr;
      return res.err().capi_release();
    };
    auto fin = [](void *env) { delete static_cast<Env *>(env); };
    return done(weft_linker_define_func(ptr.get(), module.data(), module.size(), name.data(), name.size(), ty.capi(),
                                        cb, new Env{std::move(f)}, fin));
  }
  /// Defines every unknown import of `module` as a trapping function.
  Result<std::monostate> define_unknown_imports_as_traps(const Module &module) {
    return done(weft_linker_define_unknown_imports_as_traps(ptr.get(), module.capi()));
  }
  /// Defines `module::name` as a host function whose type is that of the
  /// C++ callable `f` (as `Func::wrap`).
  template <typename F> Result<std::monostate> func_wrap(std::string_view module, std::string_view name, F f) {
    using Sig = detail::HostSig<F>;
    return func_new(module, name, Sig::functype(),
                    [f = std::move(f)](Caller caller, Span<const Val> args, Span<Val> results) mutable
                    -> Result<std::monostate, Trap> { return Sig::invoke(f, caller, args, results); });
  }
  /// Defines each import of `module` the linker lacks as an item of default
  /// contents: functions returning zeros and null references, globals of
  /// those, tables of nulls, memories of their minimum size, new tags.
  Result<std::monostate> define_unknown_imports_as_default_values(Store::Context cx, const Module &module) {
    return done(weft_linker_define_unknown_imports_as_default_values(ptr.get(), cx.capi(), module.capi()));
  }
  /// The C object.
  weft_linker_t *capi() const { return ptr.get(); }
};

} // namespace weft

#endif // WEFT_LINKER_HH
