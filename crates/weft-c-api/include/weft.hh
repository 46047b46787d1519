/**
 * \file weft.hh
 *
 * \brief The C++ API of Weft: RAII classes over the C API of `weft.h`, in
 * the shape of Wasmtime 48's `wasmtime.hh` (namespace `weft`, and
 * `weft::component` for the component model), header-only, C++17.
 *
 * Owning classes free their C object when destroyed; objects of a store
 * (`Func`, `Global`, `Memory`, `Table`, `Instance`, component instances and
 * functions) are plain values, valid as long as their store. Fallible
 * operations return `Result<T>` (or `TrapResult<T>` where wasm may trap).
 *
 * This header covers the core classes (`Error`, `Result`, `Trap`,
 * `Config`, `Engine`, `Store`, `Caller`, `Val`, `ValType`, `FuncType`,
 * `Func`, `Global`, `Memory`, `Table`, `TagType`, `Tag`, `ExnRef`,
 * `Module`, `Instance`, `Linker`, `WasiConfig`, `wat2wasm`) and the component model's (`Component`,
 * `ExportIndex`, `Instance`, `Func`, `Val`, `Linker`, `LinkerInstance`,
 * `ResourceType`, `ResourceHost`, `ResourceAny`). Not offered yet (use the
 * C functions): Wasmtime's GC reference classes other than `ExnRef`
 * (`ExternRef`, `AnyRef`, `EqRef`, `StructRef`, `ArrayRef` and their
 * `Pre`s; `Val` holds `anyref`s only as C values), `TypedFunc`, `Trace`,
 * the type classes other than `ValType`, `FuncType` and `TagType`
 * (`GlobalType`, `TableType`, `MemoryType`, `ImportType`, `ExportType`,
 * `HeapType`, `RefType`, `StorageType`, `FieldType`, `StructType`,
 * `ArrayType`, `ExnType`) and the component model's type classes.
 */

#ifndef WEFT_HH
#define WEFT_HH

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
#include <utility>
#include <variant>
#include <vector>
#include <weft.h>

namespace weft {

/// A view of `size` contiguous `T`s (`std::span` where available).
template <typename T> class Span {
  T *ptr_ = nullptr;
  size_t size_ = 0;

public:
  /// An empty span.
  Span() = default;
  /// `size` elements at `ptr`.
  Span(T *ptr, size_t size) : ptr_(ptr), size_(size) {}
  /// The elements of a vector.
  template <typename U> Span(std::vector<U> &v) : ptr_(v.data()), size_(v.size()) {}
  /// The elements of a vector.
  template <typename U> Span(const std::vector<U> &v) : ptr_(v.data()), size_(v.size()) {}
  /// The first element.
  T *data() const { return ptr_; }
  /// The number of elements.
  size_t size() const { return size_; }
  /// The element `i`.
  T &operator[](size_t i) const { return ptr_[i]; }
  /// Iteration.
  T *begin() const { return ptr_; }
  /// Iteration.
  T *end() const { return ptr_ + size_; }
};

namespace detail {
inline std::string take_name(wasm_name_t &n) {
  std::string s(n.data ? n.data : "", n.size);
  wasm_byte_vec_delete(&n);
  return s;
}
} // namespace detail

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
  const E &err_ref() const { return std::get<E>(data); }
  /// The value (only on success).
  T &&ok() { return std::get<T>(std::move(data)); }
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

/// The text format `wat` as a binary module (or component).
inline Result<std::vector<uint8_t>> wat2wasm(std::string_view wat) {
  wasm_byte_vec_t out;
  if (weft_error_t *e = weft_wat2wasm(wat.data(), wat.size(), &out))
    return Error(e);
  std::vector<uint8_t> v(out.data, out.data + out.size);
  wasm_byte_vec_delete(&out);
  return v;
}

/// An engine configuration.
/// The limits of the pooling allocator (see `weft/config.h`).
class PoolAllocationConfig {
  friend class Config;
  struct Deleter {
    void operator()(weft_pooling_allocation_config_t *c) const { weft_pooling_allocation_config_delete(c); }
  };
  std::unique_ptr<weft_pooling_allocation_config_t, Deleter> ptr;

public:
  /// The default limits.
  PoolAllocationConfig() : ptr(weft_pooling_allocation_config_new()) {}
  /// Sets `max_unused_warm_slots` (see #weft_pooling_allocation_config_max_unused_warm_slots_set).
  void max_unused_warm_slots(uint32_t value) { weft_pooling_allocation_config_max_unused_warm_slots_set(ptr.get(), value); }
  /// Sets `decommit_batch_size` (see #weft_pooling_allocation_config_decommit_batch_size_set).
  void decommit_batch_size(size_t value) { weft_pooling_allocation_config_decommit_batch_size_set(ptr.get(), value); }
  /// Sets `async_stack_keep_resident` (see #weft_pooling_allocation_config_async_stack_keep_resident_set).
  void async_stack_keep_resident(size_t value) { weft_pooling_allocation_config_async_stack_keep_resident_set(ptr.get(), value); }
  /// Sets `linear_memory_keep_resident` (see #weft_pooling_allocation_config_linear_memory_keep_resident_set).
  void linear_memory_keep_resident(size_t value) { weft_pooling_allocation_config_linear_memory_keep_resident_set(ptr.get(), value); }
  /// Sets `table_keep_resident` (see #weft_pooling_allocation_config_table_keep_resident_set).
  void table_keep_resident(size_t value) { weft_pooling_allocation_config_table_keep_resident_set(ptr.get(), value); }
  /// Sets `total_component_instances` (see #weft_pooling_allocation_config_total_component_instances_set).
  void total_component_instances(uint32_t value) { weft_pooling_allocation_config_total_component_instances_set(ptr.get(), value); }
  /// Sets `max_component_instance_size` (see #weft_pooling_allocation_config_max_component_instance_size_set).
  void max_component_instance_size(size_t value) { weft_pooling_allocation_config_max_component_instance_size_set(ptr.get(), value); }
  /// Sets `max_core_instances_per_component` (see #weft_pooling_allocation_config_max_core_instances_per_component_set).
  void max_core_instances_per_component(uint32_t value) { weft_pooling_allocation_config_max_core_instances_per_component_set(ptr.get(), value); }
  /// Sets `max_memories_per_component` (see #weft_pooling_allocation_config_max_memories_per_component_set).
  void max_memories_per_component(uint32_t value) { weft_pooling_allocation_config_max_memories_per_component_set(ptr.get(), value); }
  /// Sets `max_tables_per_component` (see #weft_pooling_allocation_config_max_tables_per_component_set).
  void max_tables_per_component(uint32_t value) { weft_pooling_allocation_config_max_tables_per_component_set(ptr.get(), value); }
  /// Sets `total_memories` (see #weft_pooling_allocation_config_total_memories_set).
  void total_memories(uint32_t value) { weft_pooling_allocation_config_total_memories_set(ptr.get(), value); }
  /// Sets `total_tables` (see #weft_pooling_allocation_config_total_tables_set).
  void total_tables(uint32_t value) { weft_pooling_allocation_config_total_tables_set(ptr.get(), value); }
  /// Sets `total_stacks` (see #weft_pooling_allocation_config_total_stacks_set).
  void total_stacks(uint32_t value) { weft_pooling_allocation_config_total_stacks_set(ptr.get(), value); }
  /// Sets `total_core_instances` (see #weft_pooling_allocation_config_total_core_instances_set).
  void total_core_instances(uint32_t value) { weft_pooling_allocation_config_total_core_instances_set(ptr.get(), value); }
  /// Sets `max_core_instance_size` (see #weft_pooling_allocation_config_max_core_instance_size_set).
  void max_core_instance_size(size_t value) { weft_pooling_allocation_config_max_core_instance_size_set(ptr.get(), value); }
  /// Sets `max_tables_per_module` (see #weft_pooling_allocation_config_max_tables_per_module_set).
  void max_tables_per_module(uint32_t value) { weft_pooling_allocation_config_max_tables_per_module_set(ptr.get(), value); }
  /// Sets `table_elements` (see #weft_pooling_allocation_config_table_elements_set).
  void table_elements(size_t value) { weft_pooling_allocation_config_table_elements_set(ptr.get(), value); }
  /// Sets `max_memories_per_module` (see #weft_pooling_allocation_config_max_memories_per_module_set).
  void max_memories_per_module(uint32_t value) { weft_pooling_allocation_config_max_memories_per_module_set(ptr.get(), value); }
  /// Sets `max_memory_size` (see #weft_pooling_allocation_config_max_memory_size_set).
  void max_memory_size(size_t value) { weft_pooling_allocation_config_max_memory_size_set(ptr.get(), value); }
  /// Sets `total_gc_heaps` (see #weft_pooling_allocation_config_total_gc_heaps_set).
  void total_gc_heaps(uint32_t value) { weft_pooling_allocation_config_total_gc_heaps_set(ptr.get(), value); }
  /// The C object.
  weft_pooling_allocation_config_t *capi() const { return ptr.get(); }
};

class Config {
  friend class Engine;
  struct Deleter {
    void operator()(wasm_config_t *c) const { wasm_config_delete(c); }
  };
  std::unique_ptr<wasm_config_t, Deleter> ptr;

public:
  /// The default configuration.
  Config() : ptr(wasm_config_new()) {}
  /// Whether wasm consumes fuel.
  void consume_fuel(bool enable) { weft_config_consume_fuel_set(ptr.get(), enable); }
  /// Whether wasm checks epoch deadlines.
  void epoch_interruption(bool enable) { weft_config_epoch_interruption_set(ptr.get(), enable); }
  /// The most stack wasm may use.
  void max_wasm_stack(size_t size) { weft_config_max_wasm_stack_set(ptr.get(), size); }
  /// The size of async stacks.
  void async_stack_size(size_t size) { weft_config_async_stack_size_set(ptr.get(), size); }
  /// Debug information for native debuggers.
  void debug_info(bool enable) { weft_config_debug_info_set(ptr.get(), enable); }
  /// The tail-call proposal.
  void wasm_tail_call(bool enable) { weft_config_wasm_tail_call_set(ptr.get(), enable); }
  /// The component model.
  void wasm_component_model(bool enable) { weft_config_wasm_component_model_set(ptr.get(), enable); }
  /// The component model's async ABI.
  void wasm_component_model_async(bool enable) { weft_config_wasm_component_model_async_set(ptr.get(), enable); }
  /// Allocates from a pool with the limits `config` (copied).
  void pooling_allocation_strategy(const PoolAllocationConfig &config) {
    weft_pooling_allocation_strategy_set(ptr.get(), config.ptr.get());
  }
  /// The C object.
  wasm_config_t *capi() const { return ptr.get(); }
};

/// An engine (copies share it).
class Engine {
  struct Deleter {
    void operator()(wasm_engine_t *e) const { wasm_engine_delete(e); }
  };
  std::unique_ptr<wasm_engine_t, Deleter> ptr;

public:
  /// An engine with the default configuration.
  Engine() : ptr(wasm_engine_new()) {}
  /// An engine with `config` (consumed).
  explicit Engine(Config config) : ptr(wasm_engine_new_with_config(config.ptr.release())) {}
  /// Another reference to the same engine.
  Engine(const Engine &other) : ptr(weft_engine_clone(other.ptr.get())) {}
  /// Another reference to the same engine.
  Engine &operator=(const Engine &other) {
    ptr.reset(weft_engine_clone(other.ptr.get()));
    return *this;
  }
  /// Moves the reference.
  Engine(Engine &&) = default;
  /// Moves the reference.
  Engine &operator=(Engine &&) = default;
  /// Increments the epoch.
  void increment_epoch() const { weft_engine_increment_epoch(ptr.get()); }
  /// Whether the engine runs Pulley bytecode (never).
  bool is_pulley() const { return weft_engine_is_pulley(ptr.get()); }
  /// The C object.
  wasm_engine_t *capi() const { return ptr.get(); }
};

class WasiConfig;
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
    /// and externrefs that no root reaches. An error is ignored.
    void gc() {
      if (weft_error_t *e = weft_context_gc(ptr))
        weft_error_delete(e);
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
    Result<std::monostate> set_wasi(WasiConfig config);
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
  /// The C object.
  weft_store_t *capi() const { return ptr.get(); }
};

/// The kind of a core value.
enum class ValKind {
  /// `i32`.
  I32 = WEFT_I32,
  /// `i64`.
  I64 = WEFT_I64,
  /// `f32`.
  F32 = WEFT_F32,
  /// `f64`.
  F64 = WEFT_F64,
  /// `v128`.
  V128 = WEFT_V128,
  /// `funcref`.
  FuncRef = WEFT_FUNCREF,
  /// `externref`.
  ExternRef = WEFT_EXTERNREF,
  /// `anyref` (its `wasm.h` kind is `WEFT_WASM_ANYREF`).
  AnyRef = WEFT_ANYREF,
  /// `exnref` (its `wasm.h` kind is `WEFT_WASM_EXNREF`).
  ExnRef = WEFT_EXNREF,
};

/// A core value type.
class ValType {
  struct Deleter {
    void operator()(wasm_valtype_t *t) const { wasm_valtype_delete(t); }
  };
  std::unique_ptr<wasm_valtype_t, Deleter> ptr;

public:
  /// Of kind `kind`.
  ValType(ValKind kind) {
    wasm_valkind_t k = WASM_I32;
    switch (kind) {
    case ValKind::I32: k = WASM_I32; break;
    case ValKind::I64: k = WASM_I64; break;
    case ValKind::F32: k = WASM_F32; break;
    case ValKind::F64: k = WASM_F64; break;
    case ValKind::V128: k = 4; break; // v128 (Weft's wasm_valtype_new takes kind 4)
    case ValKind::FuncRef: k = WASM_FUNCREF; break;
    case ValKind::ExternRef: k = WASM_EXTERNREF; break;
    case ValKind::AnyRef: k = WEFT_WASM_ANYREF; break;
    case ValKind::ExnRef: k = WEFT_WASM_EXNREF; break;
    }
    ptr.reset(wasm_valtype_new(k));
  }
  /// `i32`.
  static ValType i32() { return ValType(ValKind::I32); }
  /// `i64`.
  static ValType i64() { return ValType(ValKind::I64); }
  /// `f32`.
  static ValType f32() { return ValType(ValKind::F32); }
  /// `f64`.
  static ValType f64() { return ValType(ValKind::F64); }
  /// `funcref`.
  static ValType funcref() { return ValType(ValKind::FuncRef); }
  /// `externref`.
  static ValType externref() { return ValType(ValKind::ExternRef); }
  /// `anyref`.
  static ValType anyref() { return ValType(ValKind::AnyRef); }
  /// `exnref`.
  static ValType exnref() { return ValType(ValKind::ExnRef); }
  /// Gives up ownership of the C object.
  wasm_valtype_t *capi_release() { return ptr.release(); }
};

/// A core function type.
class FuncType {
  struct Deleter {
    void operator()(wasm_functype_t *t) const { wasm_functype_delete(t); }
  };
  std::unique_ptr<wasm_functype_t, Deleter> ptr;
  static void fill(wasm_valtype_vec_t *out, std::initializer_list<ValType> types) {
    wasm_valtype_vec_new_uninitialized(out, types.size());
    size_t i = 0;
    for (const ValType &t : types)
      out->data[i++] = const_cast<ValType &>(t).capi_release();
  }

public:
  /// Takes ownership of `raw`.
  explicit FuncType(wasm_functype_t *raw) : ptr(raw) {}
  /// The type with these parameters and results.
  FuncType(std::initializer_list<ValType> params, std::initializer_list<ValType> results) {
    wasm_valtype_vec_t p, r;
    fill(&p, params);
    fill(&r, results);
    ptr.reset(wasm_functype_new(&p, &r));
  }
  /// The number of parameters.
  size_t param_count() const { return wasm_functype_params(ptr.get())->size; }
  /// The number of results.
  size_t result_count() const { return wasm_functype_results(ptr.get())->size; }
  /// The C object.
  const wasm_functype_t *capi() const { return ptr.get(); }
};

/// The type of a tag: a function type whose parameters are the payload of
/// the exceptions thrown with it (and which has no results).
class TagType {
  struct Deleter {
    void operator()(wasm_tagtype_t *t) const { wasm_tagtype_delete(t); }
  };
  std::unique_ptr<wasm_tagtype_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit TagType(wasm_tagtype_t *raw) : ptr(raw) {}
  /// The tag type of function type `ty`.
  explicit TagType(const FuncType &ty) : ptr(wasm_tagtype_new(wasm_functype_copy(ty.capi()))) {}
  /// The function type.
  FuncType functype() const { return FuncType(wasm_functype_copy(wasm_tagtype_functype(ptr.get()))); }
  /// The C object.
  const wasm_tagtype_t *capi() const { return ptr.get(); }
};

/// An exception (`exnref`): thrown by wasm, or made by the host to throw
/// with `Store::Context::throw_exception`. Copies are new references.
class ExnRef {
  weft_exnref_t ref;

public:
  /// Takes ownership of the C reference `raw`.
  explicit ExnRef(weft_exnref_t raw) : ref(raw) {}
  /// A new reference to the same exception.
  ExnRef(const ExnRef &other) { weft_exnref_clone(&other.ref, &ref); }
  /// Takes `other`'s reference.
  ExnRef(ExnRef &&other) noexcept : ref(other.ref) { weft_exnref_set_null(&other.ref); }
  /// Refers to `other`'s exception.
  ExnRef &operator=(const ExnRef &other) {
    if (this != &other) {
      weft_exnref_unroot(&ref);
      weft_exnref_clone(&other.ref, &ref);
    }
    return *this;
  }
  /// Takes `other`'s reference.
  ExnRef &operator=(ExnRef &&other) noexcept {
    if (this != &other) {
      weft_exnref_unroot(&ref);
      ref = other.ref;
      weft_exnref_set_null(&other.ref);
    }
    return *this;
  }
  ~ExnRef() { weft_exnref_unroot(&ref); }
  /// A new exception thrown with `tag`, whose payload is `fields` (of the
  /// tag's parameter types).
  static Result<ExnRef> create(Store::Context cx, const Tag &tag, const std::vector<Val> &fields);
  /// The tag it is thrown with.
  Result<Tag> tag(Store::Context cx) const;
  /// The number of fields of its payload.
  size_t field_count(Store::Context cx) const { return weft_exnref_field_count(cx.capi(), &ref); }
  /// Field `index` of its payload.
  Result<Val> field(Store::Context cx, size_t index) const;
  /// The C reference.
  const weft_exnref_t &capi() const { return ref; }
};

/// A 128-bit SIMD value.
struct V128 {
  /// Its bytes, little-endian.
  weft_v128 v;
};

/// A core value (layout-compatible with `weft_val_t`).
class Val {
  friend class Func;
  weft_val_t val;

public:
  /// The C value `v`.
  explicit Val(weft_val_t v) : val(v) {}
  /// An `i32`.
  Val(int32_t i) { val.kind = WEFT_I32; val.of.i32 = i; }
  /// An `i64`.
  Val(int64_t i) { val.kind = WEFT_I64; val.of.i64 = i; }
  /// An `f32`.
  Val(float f) { val.kind = WEFT_F32; val.of.f32 = f; }
  /// An `f64`.
  Val(double f) { val.kind = WEFT_F64; val.of.f64 = f; }
  /// A `v128`.
  Val(V128 v) { val.kind = WEFT_V128; memcpy(val.of.v128, v.v, sizeof v.v); }
  /// A `funcref`.
  Val(std::optional<Func> f);
  /// A `funcref`.
  Val(Func f);
  /// An `exnref` (a new reference to the exception; nullopt for null).
  Val(const std::optional<ExnRef> &e);
  /// An `exnref` (a new reference to the exception).
  Val(const ExnRef &e);
  /// The kind.
  ValKind kind() const { return static_cast<ValKind>(val.kind); }
  /// The `i32` (only for that kind).
  int32_t i32() const { return val.of.i32; }
  /// The `i64`.
  int64_t i64() const { return val.of.i64; }
  /// The `f32`.
  float f32() const { return val.of.f32; }
  /// The `f64`.
  double f64() const { return val.of.f64; }
  /// The `v128`.
  V128 v128() const {
    V128 r;
    memcpy(r.v, val.of.v128, sizeof r.v);
    return r;
  }
  /// The `funcref` (nullopt for null).
  std::optional<Func> funcref() const;
  /// The `exnref`, a new reference (nullopt for null or another kind).
  std::optional<ExnRef> exnref() const;
  /// The C value.
  const weft_val_t &capi() const { return val; }
};

static_assert(sizeof(Val) == sizeof(weft_val_t), "Val is a weft_val_t");

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
  /// Calls the function.
  TrapResult<std::vector<Val>> call(Store::Context cx, const std::vector<Val> &params) const {
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
  /// The function's type.
  FuncType type(Store::Context cx) const { return FuncType(weft_func_type(cx.capi(), &f)); }
  /// The C function.
  const weft_func_t &capi() const { return f; }
};

inline Val::Val(std::optional<Func> f) {
  val.kind = WEFT_FUNCREF;
  if (f)
    val.of.funcref = f->f;
  else {
    val.of.funcref.store_id = 0;
    val.of.funcref.__private = nullptr;
  }
}
inline Val::Val(Func f) : Val(std::optional<Func>(f)) {}
inline std::optional<Func> Val::funcref() const {
  if (val.of.funcref.store_id == 0)
    return std::nullopt;
  return Func(val.of.funcref);
}

/// An exception tag of a store.
class Tag {
  weft_tag_t tag;

public:
  /// The C tag.
  explicit Tag(weft_tag_t raw) : tag(raw) {}
  /// A new tag of type `ty`.
  static Result<Tag> create(Store::Context cx, const TagType &ty) {
    weft_tag_t t;
    if (weft_error_t *e = weft_tag_new(cx.capi(), ty.capi(), &t))
      return Error(e);
    return Tag(t);
  }
  /// The tag's type.
  TagType type(Store::Context cx) const { return TagType(weft_tag_type(cx.capi(), &tag)); }
  /// Whether `other` is the same tag.
  bool eq(Store::Context cx, const Tag &other) const { return weft_tag_eq(cx.capi(), &tag, &other.tag); }
  /// The C tag.
  const weft_tag_t &capi() const { return tag; }
};

inline Result<ExnRef> ExnRef::create(Store::Context cx, const Tag &tag, const std::vector<Val> &fields) {
  weft_exnref_t out;
  if (weft_error_t *e = weft_exnref_new(cx.capi(), &tag.capi(), reinterpret_cast<const weft_val_t *>(fields.data()),
                                        fields.size(), &out))
    return Error(e);
  return ExnRef(out);
}
inline Result<Tag> ExnRef::tag(Store::Context cx) const {
  weft_tag_t t;
  if (weft_error_t *e = weft_exnref_tag(cx.capi(), &ref, &t))
    return Error(e);
  return Tag(t);
}
inline Result<Val> ExnRef::field(Store::Context cx, size_t index) const {
  weft_val_t v;
  if (weft_error_t *e = weft_exnref_field(cx.capi(), &ref, index, &v))
    return Error(e);
  return Val(v);
}

inline Val::Val(const std::optional<ExnRef> &e) {
  val.kind = WEFT_EXNREF;
  if (e)
    weft_exnref_clone(&e->capi(), &val.of.exnref);
  else
    weft_exnref_set_null(&val.of.exnref);
}
inline Val::Val(const ExnRef &e) : Val(std::optional<ExnRef>(e)) {}
inline std::optional<ExnRef> Val::exnref() const {
  if (val.kind != WEFT_EXNREF || weft_exnref_is_null(&val.of.exnref))
    return std::nullopt;
  weft_exnref_t copy;
  weft_exnref_clone(&val.of.exnref, &copy);
  return ExnRef(copy);
}

inline Trap Store::Context::throw_exception(ExnRef exn) {
  return Trap(weft_context_set_exception(ptr, &exn.capi()));
}

inline std::optional<ExnRef> Store::Context::take_exception() {
  weft_exnref_t out;
  if (!weft_context_take_exception(ptr, &out))
    return std::nullopt;
  return ExnRef(out);
}

/// A global of a store.
class Global {
  weft_global_t g;

public:
  /// The C global.
  explicit Global(weft_global_t raw) : g(raw) {}
  /// Its value.
  Val get(Store::Context cx) const {
    weft_val_t v;
    weft_global_get(cx.capi(), &g, &v);
    return Val(v);
  }
  /// Sets its value.
  Result<std::monostate> set(Store::Context cx, const Val &v) const {
    if (weft_error_t *e = weft_global_set(cx.capi(), &g, &v.capi()))
      return Error(e);
    return std::monostate();
  }
  /// The C global.
  const weft_global_t &capi() const { return g; }
};

/// A memory of a store.
class Memory {
  weft_memory_t m;

public:
  /// The C memory.
  explicit Memory(weft_memory_t raw) : m(raw) {}
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
  /// The C memory.
  const weft_memory_t &capi() const { return m; }
};

/// A table of a store.
class Table {
  weft_table_t t;

public:
  /// The C table.
  explicit Table(weft_table_t raw) : t(raw) {}
  /// Its size.
  uint64_t size(Store::Context cx) const { return weft_table_size(cx.capi(), &t); }
  /// The C table.
  const weft_table_t &capi() const { return t; }
};

namespace detail {
inline std::optional<Extern> extern_of(const weft_extern_t &e) {
  switch (e.kind) {
  case WEFT_EXTERN_FUNC: return Extern(Func(e.of.func));
  case WEFT_EXTERN_GLOBAL: return Extern(Global(e.of.global));
  case WEFT_EXTERN_MEMORY: return Extern(Memory(e.of.memory));
  case WEFT_EXTERN_TABLE: return Extern(Table(e.of.table));
  case WEFT_EXTERN_TAG: return Extern(Tag(e.of.tag));
  default: return std::nullopt;
  }
}
inline weft_extern_t to_extern(const Extern &e) {
  weft_extern_t out;
  if (auto *f = std::get_if<Func>(&e)) {
    out.kind = WEFT_EXTERN_FUNC;
    out.of.func = f->capi();
  } else if (auto *g = std::get_if<Global>(&e)) {
    out.kind = WEFT_EXTERN_GLOBAL;
    out.of.global = g->capi();
  } else if (auto *m = std::get_if<Memory>(&e)) {
    out.kind = WEFT_EXTERN_MEMORY;
    out.of.memory = m->capi();
  } else if (auto *t = std::get_if<Table>(&e)) {
    out.kind = WEFT_EXTERN_TABLE;
    out.of.table = t->capi();
  } else {
    out.kind = WEFT_EXTERN_TAG;
    out.of.tag = std::get<Tag>(e).capi();
  }
  return out;
}
} // namespace detail

inline std::optional<Extern> Caller::get_export(std::string_view name) {
  weft_extern_t e;
  if (!weft_caller_export_get(ptr, name.data(), name.size(), &e))
    return std::nullopt;
  return detail::extern_of(e);
}

/// A compiled module (copies share it).
class Module {
  struct Deleter {
    void operator()(weft_module_t *m) const { weft_module_delete(m); }
  };
  std::unique_ptr<weft_module_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit Module(weft_module_t *raw) : ptr(raw) {}
  /// Another reference to the module.
  Module(const Module &other) : ptr(weft_module_clone(other.ptr.get())) {}
  /// Another reference to the module.
  Module &operator=(const Module &other) {
    ptr.reset(weft_module_clone(other.ptr.get()));
    return *this;
  }
  /// Moves the reference.
  Module(Module &&) = default;
  /// Moves the reference.
  Module &operator=(Module &&) = default;
  /// Compiles a binary module.
  static Result<Module> compile(Engine &engine, Span<const uint8_t> wasm) {
    weft_module_t *m = nullptr;
    if (weft_error_t *e = weft_module_new(engine.capi(), wasm.data(), wasm.size(), &m))
      return Error(e);
    return Module(m);
  }
  /// Compiles a module in the text format.
  static Result<Module> compile(Engine &engine, std::string_view wat) {
    auto wasm = wat2wasm(wat);
    if (!wasm)
      return wasm.err();
    std::vector<uint8_t> bytes = wasm.ok();
    return compile(engine, Span<const uint8_t>(bytes));
  }
  /// Validates a binary module.
  static Result<std::monostate> validate(Engine &engine, Span<const uint8_t> wasm) {
    if (weft_error_t *e = weft_module_validate(engine.capi(), wasm.data(), wasm.size()))
      return Error(e);
    return std::monostate();
  }
  /// The module's precompiled form.
  Result<std::vector<uint8_t>> serialize() const {
    wasm_byte_vec_t out;
    if (weft_error_t *e = weft_module_serialize(ptr.get(), &out))
      return Error(e);
    std::vector<uint8_t> v(out.data, out.data + out.size);
    wasm_byte_vec_delete(&out);
    return v;
  }
  /// A module from `serialize`'s output (trusted input only).
  static Result<Module> deserialize(Engine &engine, Span<const uint8_t> bytes) {
    weft_module_t *m = nullptr;
    if (weft_error_t *e = weft_module_deserialize(engine.capi(), bytes.data(), bytes.size(), &m))
      return Error(e);
    return Module(m);
  }
  /// The C object.
  weft_module_t *capi() const { return ptr.get(); }
};

/// An instance of a module in a store.
class Instance {
  weft_instance_t i;

public:
  /// The C instance.
  explicit Instance(weft_instance_t raw) : i(raw) {}
  /// Instantiates `module` with `imports`, in the module's import order.
  static TrapResult<Instance> create(Store::Context cx, const Module &module, const std::vector<Extern> &imports) {
    std::vector<weft_extern_t> raw;
    for (const Extern &e : imports)
      raw.push_back(detail::to_extern(e));
    weft_instance_t out;
    wasm_trap_t *trap = nullptr;
    if (weft_error_t *e = weft_instance_new(cx.capi(), module.capi(), raw.data(), raw.size(), &out, &trap))
      return TrapError(Error(e));
    if (trap)
      return TrapError(Trap(trap));
    return Instance(out);
  }
  /// The export `name`, if any.
  std::optional<Extern> get(Store::Context cx, std::string_view name) const {
    weft_extern_t e;
    if (!weft_instance_export_get(cx.capi(), &i, name.data(), name.size(), &e))
      return std::nullopt;
    return detail::extern_of(e);
  }
  /// The C instance.
  const weft_instance_t &capi() const { return i; }
};

/// WASI preview1 configuration.
class WasiConfig {
  friend class Store::Context;
  struct Deleter {
    void operator()(wasi_config_t *c) const { wasi_config_delete(c); }
  };
  std::unique_ptr<wasi_config_t, Deleter> ptr;

public:
  /// The default: no arguments, environment, input or output.
  WasiConfig() : ptr(wasi_config_new()) {}
  /// The arguments.
  void argv(const std::vector<std::string> &args) {
    std::vector<const char *> raw;
    for (const auto &a : args)
      raw.push_back(a.c_str());
    wasi_config_set_argv(ptr.get(), raw.size(), raw.data());
  }
  /// The host's arguments.
  void inherit_argv() { wasi_config_inherit_argv(ptr.get()); }
  /// The environment.
  void env(const std::vector<std::pair<std::string, std::string>> &env) {
    std::vector<const char *> names, values;
    for (const auto &kv : env) {
      names.push_back(kv.first.c_str());
      values.push_back(kv.second.c_str());
    }
    wasi_config_set_env(ptr.get(), names.size(), names.data(), values.data());
  }
  /// The host's environment.
  void inherit_env() { wasi_config_inherit_env(ptr.get()); }
  /// Stdin from a file; false if it cannot be opened.
  [[nodiscard]] bool stdin_file(const std::string &path) { return wasi_config_set_stdin_file(ptr.get(), path.c_str()); }
  /// The host's stdin.
  void inherit_stdin() { wasi_config_inherit_stdin(ptr.get()); }
  /// Stdout to a file; false if it cannot be opened.
  [[nodiscard]] bool stdout_file(const std::string &path) {
    return wasi_config_set_stdout_file(ptr.get(), path.c_str());
  }
  /// The host's stdout.
  void inherit_stdout() { wasi_config_inherit_stdout(ptr.get()); }
  /// Stderr to a file; false if it cannot be opened.
  [[nodiscard]] bool stderr_file(const std::string &path) {
    return wasi_config_set_stderr_file(ptr.get(), path.c_str());
  }
  /// The host's stderr.
  void inherit_stderr() { wasi_config_inherit_stderr(ptr.get()); }
  /// A preopened directory; false if it cannot be opened.
  [[nodiscard]] bool preopen_dir(const std::string &path, const std::string &guest_path, bool fs_mutable) {
    return wasi_config_preopen_dir(ptr.get(), path.c_str(), guest_path.c_str(), fs_mutable);
  }
};

inline Result<std::monostate> Store::Context::set_wasi(WasiConfig config) {
  if (weft_error_t *e = weft_context_set_wasi(ptr, config.ptr.release()))
    return Error(e);
  return std::monostate();
}

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
  /// The C object.
  weft_linker_t *capi() const { return ptr.get(); }
};

/// The component model.
namespace component {

/// The index of an export of a component.
class ExportIndex {
  struct Deleter {
    void operator()(weft_component_export_index_t *i) const { weft_component_export_index_delete(i); }
  };
  std::unique_ptr<weft_component_export_index_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit ExportIndex(weft_component_export_index_t *raw) : ptr(raw) {}
  /// A copy.
  ExportIndex(const ExportIndex &other) : ptr(weft_component_export_index_clone(other.ptr.get())) {}
  /// A copy.
  ExportIndex &operator=(const ExportIndex &other) {
    ptr.reset(weft_component_export_index_clone(other.ptr.get()));
    return *this;
  }
  /// Moves.
  ExportIndex(ExportIndex &&) = default;
  /// Moves.
  ExportIndex &operator=(ExportIndex &&) = default;
  /// The C object.
  const weft_component_export_index_t *capi() const { return ptr.get(); }
};

/// A compiled component (copies share it).
class Component {
  struct Deleter {
    void operator()(weft_component_t *c) const { weft_component_delete(c); }
  };
  std::unique_ptr<weft_component_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit Component(weft_component_t *raw) : ptr(raw) {}
  /// Another reference.
  Component(const Component &other) : ptr(weft_component_clone(other.ptr.get())) {}
  /// Another reference.
  Component &operator=(const Component &other) {
    ptr.reset(weft_component_clone(other.ptr.get()));
    return *this;
  }
  /// Moves.
  Component(Component &&) = default;
  /// Moves.
  Component &operator=(Component &&) = default;
  /// Compiles a component binary.
  static Result<Component> compile(Engine &engine, Span<const uint8_t> wasm) {
    weft_component_t *c = nullptr;
    if (weft_error_t *e = weft_component_new(engine.capi(), wasm.data(), wasm.size(), &c))
      return Error(e);
    return Component(c);
  }
  /// Compiles a component in the text format.
  static Result<Component> compile(Engine &engine, std::string_view wat) {
    auto wasm = wat2wasm(wat);
    if (!wasm)
      return wasm.err();
    std::vector<uint8_t> bytes = wasm.ok();
    return compile(engine, Span<const uint8_t>(bytes));
  }
  /// The precompiled component (its compiled code and translation).
  Result<std::vector<uint8_t>> serialize() const {
    wasm_byte_vec_t out;
    if (weft_error_t *e = weft_component_serialize(ptr.get(), &out))
      return Error(e);
    std::vector<uint8_t> v(out.data, out.data + out.size);
    wasm_byte_vec_delete(&out);
    return v;
  }
  /// A component from `serialize`'s output, loaded without compiling (trusted input only).
  static Result<Component> deserialize(Engine &engine, Span<const uint8_t> bytes) {
    weft_component_t *c = nullptr;
    if (weft_error_t *e = weft_component_deserialize(engine.capi(), bytes.data(), bytes.size(), &c))
      return Error(e);
    return Component(c);
  }
  /// The export `name` (inside the exported instance `instance`, if given).
  std::optional<ExportIndex> export_index(const ExportIndex *instance, std::string_view name) const {
    auto *i = weft_component_get_export_index(ptr.get(), instance ? instance->capi() : nullptr, name.data(),
                                              name.size());
    if (!i)
      return std::nullopt;
    return ExportIndex(i);
  }
  /// The C object.
  const weft_component_t *capi() const { return ptr.get(); }
};

/// A component value (owning; layout-compatible with
/// `weft_component_val_t`).
class Val {
  weft_component_val_t raw;

public:
  /// `false`.
  Val() { raw.kind = WEFT_COMPONENT_BOOL; raw.of.boolean = false; }
  /// Takes the C value `v`.
  explicit Val(weft_component_val_t v) : raw(v) {}
  /// A `bool`.
  Val(bool b) { raw.kind = WEFT_COMPONENT_BOOL; raw.of.boolean = b; }
  /// An `s8`.
  Val(int8_t v) { raw.kind = WEFT_COMPONENT_S8; raw.of.s8 = v; }
  /// A `u8`.
  Val(uint8_t v) { raw.kind = WEFT_COMPONENT_U8; raw.of.u8 = v; }
  /// An `s16`.
  Val(int16_t v) { raw.kind = WEFT_COMPONENT_S16; raw.of.s16 = v; }
  /// A `u16`.
  Val(uint16_t v) { raw.kind = WEFT_COMPONENT_U16; raw.of.u16 = v; }
  /// An `s32`.
  Val(int32_t v) { raw.kind = WEFT_COMPONENT_S32; raw.of.s32 = v; }
  /// A `u32`.
  Val(uint32_t v) { raw.kind = WEFT_COMPONENT_U32; raw.of.u32 = v; }
  /// An `s64`.
  Val(int64_t v) { raw.kind = WEFT_COMPONENT_S64; raw.of.s64 = v; }
  /// A `u64`.
  Val(uint64_t v) { raw.kind = WEFT_COMPONENT_U64; raw.of.u64 = v; }
  /// An `f32`.
  Val(float v) { raw.kind = WEFT_COMPONENT_F32; raw.of.f32 = v; }
  /// An `f64`.
  Val(double v) { raw.kind = WEFT_COMPONENT_F64; raw.of.f64 = v; }
  /// A `char`.
  static Val char_(uint32_t c) {
    weft_component_val_t v;
    v.kind = WEFT_COMPONENT_CHAR;
    v.of.character = c;
    return Val(v);
  }
  /// A `string`.
  static Val string(std::string_view s) {
    weft_component_val_t v;
    v.kind = WEFT_COMPONENT_STRING;
    wasm_byte_vec_new(&v.of.string, s.size(), s.data());
    return Val(v);
  }
  /// An `enum` case.
  static Val enum_(std::string_view s) {
    weft_component_val_t v;
    v.kind = WEFT_COMPONENT_ENUM;
    wasm_byte_vec_new(&v.of.enumeration, s.size(), s.data());
    return Val(v);
  }
  /// A `list`.
  static Val list(std::vector<Val> items) {
    weft_component_val_t v;
    v.kind = WEFT_COMPONENT_LIST;
    weft_component_vallist_new_uninit(&v.of.list, items.size());
    for (size_t i = 0; i < items.size(); i++)
      v.of.list.data[i] = items[i].release();
    return Val(v);
  }
  /// A `record`.
  static Val record(std::vector<std::pair<std::string_view, Val>> fields) {
    weft_component_val_t v;
    v.kind = WEFT_COMPONENT_RECORD;
    weft_component_valrecord_new_uninit(&v.of.record, fields.size());
    for (size_t i = 0; i < fields.size(); i++) {
      wasm_byte_vec_new(&v.of.record.data[i].name, fields[i].first.size(), fields[i].first.data());
      v.of.record.data[i].val = fields[i].second.release();
    }
    return Val(v);
  }
  /// An `option`.
  static Val option(std::optional<Val> payload) {
    weft_component_val_t v;
    v.kind = WEFT_COMPONENT_OPTION;
    v.of.option = nullptr;
    if (payload) {
      weft_component_val_t inner = payload->release();
      v.of.option = weft_component_val_new(&inner);
    }
    return Val(v);
  }
  /// A copy.
  Val(const Val &other) { weft_component_val_clone(&other.raw, &raw); }
  /// A copy.
  Val &operator=(const Val &other) {
    if (this != &other) {
      weft_component_val_delete(&raw);
      weft_component_val_clone(&other.raw, &raw);
    }
    return *this;
  }
  /// Moves.
  Val(Val &&other) noexcept : raw(other.release()) {}
  /// Moves.
  Val &operator=(Val &&other) noexcept {
    if (this != &other) {
      weft_component_val_delete(&raw);
      raw = other.release();
    }
    return *this;
  }
  ~Val() { weft_component_val_delete(&raw); }
  /// Gives up the C value, leaving `false`.
  weft_component_val_t release() {
    weft_component_val_t out = raw;
    raw.kind = WEFT_COMPONENT_BOOL;
    raw.of.boolean = false;
    return out;
  }
  /// The kind.
  weft_component_valkind_t kind() const { return raw.kind; }
  /// Whether it is a `bool`.
  bool is_bool() const { return raw.kind == WEFT_COMPONENT_BOOL; }
  /// The `bool`.
  bool get_bool() const { return raw.of.boolean; }
  /// Whether it is a `u32`.
  bool is_u32() const { return raw.kind == WEFT_COMPONENT_U32; }
  /// The `u32`.
  uint32_t get_u32() const { return raw.of.u32; }
  /// Whether it is an `s32`.
  bool is_s32() const { return raw.kind == WEFT_COMPONENT_S32; }
  /// The `s32`.
  int32_t get_s32() const { return raw.of.s32; }
  /// Whether it is an `u64`.
  bool is_u64() const { return raw.kind == WEFT_COMPONENT_U64; }
  /// The `u64`.
  uint64_t get_u64() const { return raw.of.u64; }
  /// Whether it is an `f64`.
  bool is_f64() const { return raw.kind == WEFT_COMPONENT_F64; }
  /// The `f64`.
  double get_f64() const { return raw.of.f64; }
  /// Whether it is a `string`.
  bool is_string() const { return raw.kind == WEFT_COMPONENT_STRING; }
  /// The `string` (a view into the value).
  std::string_view get_string() const { return std::string_view(raw.of.string.data, raw.of.string.size); }
  /// Whether it is a `list`.
  bool is_list() const { return raw.kind == WEFT_COMPONENT_LIST; }
  /// The `list`'s elements.
  Span<const Val> get_list() const {
    return Span<const Val>(reinterpret_cast<const Val *>(raw.of.list.data), raw.of.list.size);
  }
  /// Whether it is a `record`.
  bool is_record() const { return raw.kind == WEFT_COMPONENT_RECORD; }
  /// The field `name` of a `record`, if any.
  const Val *get_field(std::string_view name) const {
    for (size_t i = 0; i < raw.of.record.size; i++) {
      const auto &f = raw.of.record.data[i];
      if (std::string_view(f.name.data, f.name.size) == name)
        return reinterpret_cast<const Val *>(&f.val);
    }
    return nullptr;
  }
  /// Whether it is an `option`.
  bool is_option() const { return raw.kind == WEFT_COMPONENT_OPTION; }
  /// The `option`'s payload (null for `none`).
  const Val *get_option() const { return reinterpret_cast<const Val *>(raw.of.option); }
  /// The C value.
  const weft_component_val_t &capi() const { return raw; }
};

static_assert(sizeof(Val) == sizeof(weft_component_val_t), "Val is a weft_component_val_t");

/// The type of a component function.
class FuncType {
  const weft_component_func_type_t *ptr;

public:
  /// Borrows the C type.
  explicit FuncType(const weft_component_func_type_t *raw) : ptr(raw) {}
  /// The number of parameters.
  size_t param_count() const { return weft_component_func_type_param_count(ptr); }
  /// Whether it is an `async func`.
  bool async() const { return weft_component_func_type_async(ptr); }
};

/// A function of a component instance.
class Func {
  weft_component_func_t f;

public:
  /// The C function.
  explicit Func(weft_component_func_t raw) : f(raw) {}
  /// Calls the function; `results` must have the result count.
  Result<std::monostate> call(Store::Context cx, Span<const Val> args, Span<Val> results) const {
    if (weft_error_t *e = weft_component_func_call(&f, cx.capi(), reinterpret_cast<const weft_component_val_t *>(args.data()),
                                                   args.size(), reinterpret_cast<weft_component_val_t *>(results.data()),
                                                   results.size()))
      return Error(e);
    return std::monostate();
  }
  /// Does nothing (calls run `post-return` themselves).
  Result<std::monostate> post_return(Store::Context cx) const {
    if (weft_error_t *e = weft_component_func_post_return(&f, cx.capi()))
      return Error(e);
    return std::monostate();
  }
  /// The C function.
  const weft_component_func_t &capi() const { return f; }
};

/// An instance of a component.
class Instance {
  weft_component_instance_t i;

public:
  /// The C instance.
  explicit Instance(weft_component_instance_t raw) : i(raw) {}
  /// The export `name` (inside the exported instance `instance`, if given).
  std::optional<ExportIndex> get_export_index(Store::Context cx, const ExportIndex *instance,
                                              std::string_view name) const {
    auto *idx = weft_component_instance_get_export_index(&i, cx.capi(), instance ? instance->capi() : nullptr,
                                                        name.data(), name.size());
    if (!idx)
      return std::nullopt;
    return ExportIndex(idx);
  }
  /// The function at `index`, if it is one.
  std::optional<Func> get_func(Store::Context cx, const ExportIndex &index) const {
    weft_component_func_t f;
    if (!weft_component_instance_get_func(&i, cx.capi(), index.capi(), &f))
      return std::nullopt;
    return Func(f);
  }
  /// The C instance.
  const weft_component_instance_t &capi() const { return i; }
};

/// A resource type.
class ResourceType {
  struct Deleter {
    void operator()(weft_component_resource_type_t *t) const { weft_component_resource_type_delete(t); }
  };
  std::unique_ptr<weft_component_resource_type_t, Deleter> ptr;

public:
  /// The host resource type named by `ty`.
  explicit ResourceType(uint32_t ty) : ptr(weft_component_resource_type_new_host(ty)) {}
  /// The C object.
  const weft_component_resource_type_t *capi() const { return ptr.get(); }
};

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
      Result<std::monostate> r = (*func)(Store::Context(cx), FuncType(ty), Span<Val>(reinterpret_cast<Val *>(args), nargs),
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

#endif // WEFT_HH
