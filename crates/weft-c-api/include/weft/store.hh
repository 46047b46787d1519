/**
 * \file weft/store.hh
 *
 * \brief C++ API: `Store` and `Store::Context` (as Wasmtime 48's
 * `wasmtime/store.hh`).
 */

#include <weft/detail/core.hh>

#ifndef WEFT_STORE_HH
#define WEFT_STORE_HH

#include <weft/engine.hh>
#include <weft/trap.hh>
#include <weft/wasi.hh>

namespace weft {

class Caller;
class Func;
class Global;
class Memory;
class Table;
class Tag;
class ExnRef;
class Val;

/// An item of a store that can be imported or exported.
using Extern = std::variant<Func, Global, Memory, Table, Tag>;

/// A store: the home of instances and their objects.
class Store {
  struct Deleter {
    void operator()(weft_store_t *s) const { weft_store_delete(s); }
  };
  std::unique_ptr<weft_store_t, Deleter> ptr;
  static void finalize(void *data) { delete static_cast<std::any *>(data); }

public:
  /// A new store of `engine`.
  explicit Store(Engine &engine) : ptr(weft_store_new(engine.capi(), new std::any(), finalize)) {}

  /// What an epoch deadline callback asks for.
  enum class DeadlineKind {
    /// Go on running until the new deadline.
    Continue,
    /// Yield to the async caller, then go on (async calls only).
    Yield,
  };

  /// The store's context: what every function of the store takes.
  class Context {
    friend class Store;
    friend class Caller;
    weft_context_t *ptr;

  public:
    /// The context of a C context.
    explicit Context(weft_context_t *raw) : ptr(raw) {}
    /// The context of `store`.
    Context(Store &store) : ptr(weft_store_context(store.ptr.get())) {}
    /// The context of `store`.
    Context(Store *store) : Context(*store) {}
    /// The context of a caller.
    Context(Caller &caller);
    /// The context of a caller.
    Context(Caller *caller);
    /// Collects the store's GC heap (`weft_context_gc`): frees the GC objects
    /// and externrefs that no root reaches.
    Result<std::monostate> gc() {
      if (weft_error_t *e = weft_context_gc(ptr))
        return Error(e);
      return std::monostate();
    }
    /// Sets the fuel.
    Result<std::monostate> set_fuel(uint64_t fuel) {
      if (weft_error_t *e = weft_context_set_fuel(ptr, fuel))
        return Error(e);
      return std::monostate();
    }
    /// The fuel left.
    Result<uint64_t> get_fuel() const {
      uint64_t fuel = 0;
      if (weft_error_t *e = weft_context_get_fuel(ptr, &fuel))
        return Error(e);
      return fuel;
    }
    /// Sets the store's data.
    void set_data(std::any data) { get_data() = std::move(data); }
    /// The store's data.
    std::any &get_data() { return *static_cast<std::any *>(weft_context_get_data(ptr)); }
    /// Sets the epoch deadline.
    void set_epoch_deadline(uint64_t ticks) { weft_context_set_epoch_deadline(ptr, ticks); }
    /// Gives the store a WASI context.
    Result<std::monostate> set_wasi(WasiConfig config) {
      if (weft_error_t *e = weft_context_set_wasi(ptr, config.capi_release()))
        return Error(e);
      return std::monostate();
    }
    /// Gives the store a `wasi:http` context (after `set_wasi`).
    void set_wasi_http() { weft_context_set_wasi_http(ptr); }
    /// Makes `exn` the pending exception; returned from a host function,
    /// the trap throws it into the function's wasm caller.
    Trap throw_exception(ExnRef exn);
    /// Takes the pending exception (one that escaped wasm), if any.
    std::optional<ExnRef> take_exception();
    /// Whether an exception is pending.
    bool has_exception() { return weft_context_has_exception(ptr); }
    /// The C object.
    weft_context_t *capi() const { return ptr; }
  };

  /// The store's context.
  Context context() { return Context(*this); }
  /// Collects the store's GC heap (see `Context::gc`).
  Result<std::monostate> gc() { return context().gc(); }
  /// Limits what the store may grow and create (a negative value keeps the
  /// default): bytes of a memory, elements of a table, instances, tables
  /// and memories.
  void limiter(int64_t memory_size, int64_t table_elements, int64_t instances, int64_t tables, int64_t memories) {
    weft_store_limiter(ptr.get(), memory_size, table_elements, instances, tables, memories);
  }
  /// Calls `f(Context, uint64_t &delta) -> Result<DeadlineKind>` when the
  /// epoch deadline is reached: on success the new deadline is `delta`
  /// ticks away; an error traps the wasm code.
  template <typename F> void epoch_deadline_callback(F f) {
    auto cb = [](weft_context_t *cx, void *data, uint64_t *delta, weft_update_deadline_kind_t *kind) -> weft_error_t * {
      Result<DeadlineKind> r = (*static_cast<F *>(data))(Context(cx), *delta);
      if (!r)
        return r.err().capi_release();
      *kind = r.ok() == DeadlineKind::Yield ? WEFT_UPDATE_DEADLINE_YIELD : WEFT_UPDATE_DEADLINE_CONTINUE;
      return nullptr;
    };
    auto fin = [](void *data) { delete static_cast<F *>(data); };
    weft_store_epoch_deadline_callback(ptr.get(), cb, new F(std::move(f)), fin);
  }
  /// The C object.
  weft_store_t *capi() const { return ptr.get(); }
};

} // namespace weft

#endif // WEFT_STORE_HH
