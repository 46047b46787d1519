/**
 * \file weft/component/linker.hh
 *
 * \brief C++ API: `LinkerInstance` and `Linker` (as Wasmtime 48's
 * `wasmtime/component/linker.hh`).
 */

#ifndef WEFT_COMPONENT_LINKER_HH
#define WEFT_COMPONENT_LINKER_HH

#include <weft/module.hh>
#include <weft/component/instance.hh>

namespace weft {
namespace component {

/// An instance being defined in a linker.
class LinkerInstance {
  struct Deleter {
    void operator()(weft_component_linker_instance_t *l) const { weft_component_linker_instance_delete(l); }
  };
  std::unique_ptr<weft_component_linker_instance_t, Deleter> ptr;
  static Result<std::monostate> done(weft_error_t *e) {
    if (e)
      return Error(e);
    return std::monostate();
  }

public:
  /// Takes ownership of `raw`.
  explicit LinkerInstance(weft_component_linker_instance_t *raw) : ptr(raw) {}
  /// Defines `name` as a core module.
  Result<std::monostate> add_module(std::string_view name, const Module &module) {
    return done(weft_component_linker_instance_add_module(ptr.get(), name.data(), name.size(), module.capi()));
  }
  /// Defines (or opens) the instance `name`; do not use this one until it is gone.
  Result<LinkerInstance> add_instance(std::string_view name) {
    weft_component_linker_instance_t *out = nullptr;
    if (weft_error_t *e = weft_component_linker_instance_add_instance(ptr.get(), name.data(), name.size(), &out))
      return Error(e);
    return LinkerInstance(out);
  }
  /// Defines `name` as a host function `f(Store::Context, const FuncType&,
  /// Span<Val> args, Span<Val> results) -> Result<std::monostate>`.
  template <typename F> Result<std::monostate> add_func(std::string_view name, F f) {
    auto cb = [](void *env, weft_context_t *cx, const weft_component_func_type_t *ty, weft_component_val_t *args,
                 size_t nargs, weft_component_val_t *results, size_t nresults) -> weft_error_t * {
      F *func = static_cast<F *>(env);
      Result<std::monostate> r = (*func)(Store::Context(cx), FuncType(weft_component_func_type_clone(ty)), Span<Val>(reinterpret_cast<Val *>(args), nargs),
                                         Span<Val>(reinterpret_cast<Val *>(results), nresults));
      if (r)
        return nullptr;
      return r.err().capi_release();
    };
    auto fin = [](void *env) { delete static_cast<F *>(env); };
    return done(
        weft_component_linker_instance_add_func(ptr.get(), name.data(), name.size(), cb, new F(std::move(f)), fin));
  }
  /// Defines `name` as the resource type `ty`, whose `own` handles the guest
  /// drops by calling `f(Store::Context, uint32_t rep) -> Result<std::monostate>`.
  template <typename F> Result<std::monostate> add_resource(std::string_view name, const ResourceType &ty, F f) {
    auto cb = [](void *env, weft_context_t *cx, uint32_t rep) -> weft_error_t * {
      Result<std::monostate> r = (*static_cast<F *>(env))(Store::Context(cx), rep);
      if (r)
        return nullptr;
      return r.err().capi_release();
    };
    auto fin = [](void *env) { delete static_cast<F *>(env); };
    return done(weft_component_linker_instance_add_resource(ptr.get(), name.data(), name.size(), ty.capi(), cb,
                                                            new F(std::move(f)), fin));
  }
};

/// A linker of components.
class Linker {
  struct Deleter {
    void operator()(weft_component_linker_t *l) const { weft_component_linker_delete(l); }
  };
  std::unique_ptr<weft_component_linker_t, Deleter> ptr;
  static Result<std::monostate> done(weft_error_t *e) {
    if (e)
      return Error(e);
    return std::monostate();
  }

public:
  /// An empty linker.
  explicit Linker(Engine &engine) : ptr(weft_component_linker_new(engine.capi())) {}
  /// The root instance (do not use the linker until it is gone).
  LinkerInstance root() { return LinkerInstance(weft_component_linker_root(ptr.get())); }
  /// Whether definitions may be replaced.
  void allow_shadowing(bool allow) { weft_component_linker_allow_shadowing(ptr.get(), allow); }
  /// Defines each unknown import of `component` as a trapping function.
  Result<std::monostate> define_unknown_imports_as_traps(const Component &component) {
    return done(weft_component_linker_define_unknown_imports_as_traps(ptr.get(), component.capi()));
  }
  /// Instantiates `component`.
  Result<Instance> instantiate(Store::Context cx, const Component &component) {
    weft_component_instance_t out;
    if (weft_error_t *e = weft_component_linker_instantiate(ptr.get(), cx.capi(), component.capi(), &out))
      return Error(e);
    return Instance(out);
  }
  /// WASI 0.2 (the store's context is set with `Store::Context::set_wasi`).
  Result<std::monostate> add_wasip2() { return done(weft_component_linker_add_wasip2(ptr.get())); }
  /// `wasi:http/types` and `wasi:http/outgoing-handler` (after `add_wasip2`).
  Result<std::monostate> add_wasi_http() { return done(weft_component_linker_add_wasi_http(ptr.get())); }
  /// WASI 0.2, for async instantiation and calls.
  Result<std::monostate> add_wasip2_async() { return done(weft_component_linker_add_wasip2_async(ptr.get())); }
  /// `wasi:http`, for async calls (after `add_wasip2_async`).
  Result<std::monostate> add_wasi_http_async() { return done(weft_component_linker_add_wasi_http_async(ptr.get())); }
};

} // namespace component
} // namespace weft

#endif // WEFT_COMPONENT_LINKER_HH
