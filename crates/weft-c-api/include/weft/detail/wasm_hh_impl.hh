/**
 * \file weft/detail/wasm_hh_impl.hh
 *
 * \brief Weft's definitions of the functions `wasm.hh` (the standard's C++
 * API, namespace `wasm`) declares, written inline over the C functions of
 * `wasm.h`; `wasm.hh` includes this file last, so the C++ API needs no
 * library of its own (and C users of libweft need no libstdc++).
 *
 * Technique: a C++ object IS its C object. `wasm::Engine*` is a
 * `wasm_engine_t*`, `wasm::Func*` a `wasm_func_t*`, and so on, converted
 * with `reinterpret_cast`; the classes are empty and never constructed.
 * In Weft every reference object (`wasm_ref_t`, functions, globals,
 * tables, memories, externs, instances, modules, traps, foreign objects)
 * is one C type, as is every extern type, so the C++ base-class views
 * (`Func` → `Extern` → `Ref`) are the same pointer and `Ref::destroy`
 * deletes any of them. `vec<T>` is `{size_t, pointer}` as the C vectors
 * are, and `Val` has the layout of `wasm_val_t` (checked below), so a C
 * vector a C object holds (a function type's parameters, a name) is
 * returned by reference; vectors given to the caller are new C++ vectors
 * (allocated with `new[]`, as `vec` frees them), filled from C vectors.
 *
 * A C++ exception thrown by a host function becomes a trap (it never
 * unwinds through Weft). Invalid vectors (`vec::invalid()`, moved-from
 * ones) are treated as empty.
 */

#ifndef WEFT_DETAIL_WASM_HH_IMPL_HH
#define WEFT_DETAIL_WASM_HH_IMPL_HH

#include <wasm.h>
#include <wasm.hh>

#include <cstring>
#include <type_traits>

namespace wasm {

/// Helpers of Weft's implementation of `wasm.hh`; not part of the API.
namespace weft_detail {

static_assert(sizeof(vec<byte_t>) == sizeof(wasm_byte_vec_t) &&
                  alignof(vec<byte_t>) == alignof(wasm_byte_vec_t),
              "vec<byte_t> must have the layout of wasm_byte_vec_t");
static_assert(sizeof(ownvec<ValType>) == sizeof(wasm_valtype_vec_t) &&
                  alignof(ownvec<ValType>) == alignof(wasm_valtype_vec_t),
              "ownvec<ValType> must have the layout of wasm_valtype_vec_t");
static_assert(sizeof(own<ValType>) == sizeof(wasm_valtype_t *),
              "own<T> must be a bare pointer");
static_assert(sizeof(vec<Extern *>) == sizeof(wasm_extern_vec_t),
              "vec<Extern*> must have the layout of wasm_extern_vec_t");
static_assert(sizeof(Val) == sizeof(wasm_val_t) && alignof(Val) == alignof(wasm_val_t) &&
                  std::is_standard_layout<Val>::value,
              "Val must have the layout of wasm_val_t");
static_assert(sizeof(ValKind) == sizeof(wasm_valkind_t) &&
                  static_cast<wasm_valkind_t>(ValKind::I32) == WASM_I32 &&
                  static_cast<wasm_valkind_t>(ValKind::I64) == WASM_I64 &&
                  static_cast<wasm_valkind_t>(ValKind::F32) == WASM_F32 &&
                  static_cast<wasm_valkind_t>(ValKind::F64) == WASM_F64 &&
                  static_cast<wasm_valkind_t>(ValKind::EXTERNREF) == WASM_EXTERNREF &&
                  static_cast<wasm_valkind_t>(ValKind::FUNCREF) == WASM_FUNCREF,
              "ValKind must match wasm_valkind_t");
static_assert(static_cast<wasm_externkind_t>(ExternKind::FUNC) == WASM_EXTERN_FUNC &&
                  static_cast<wasm_externkind_t>(ExternKind::GLOBAL) == WASM_EXTERN_GLOBAL &&
                  static_cast<wasm_externkind_t>(ExternKind::TABLE) == WASM_EXTERN_TABLE &&
                  static_cast<wasm_externkind_t>(ExternKind::MEMORY) == WASM_EXTERN_MEMORY &&
                  static_cast<wasm_externkind_t>(ExternKind::TAG) == WASM_EXTERN_TAG,
              "ExternKind must match wasm_externkind_t");
static_assert(static_cast<wasm_mutability_t>(Mutability::CONST) == WASM_CONST &&
                  static_cast<wasm_mutability_t>(Mutability::VAR) == WASM_VAR,
              "Mutability must match wasm_mutability_t");
static_assert(sizeof(Limits) == sizeof(wasm_limits_t) && offsetof(Limits, min) == offsetof(wasm_limits_t, min) &&
                  offsetof(Limits, max) == offsetof(wasm_limits_t, max),
              "Limits must have the layout of wasm_limits_t");

/// The C object of a C++ object (the same pointer).
template <class C, class T> inline C *c(T *p) { return reinterpret_cast<C *>(p); }
/// The C object of a const C++ object (the same pointer).
template <class C, class T> inline const C *c(const T *p) { return reinterpret_cast<const C *>(p); }
/// The C++ object of a C object, owned.
template <class T, class C> inline own<T> own_of(C *p) { return own<T>(reinterpret_cast<T *>(p)); }

/// The size of a vector, 0 for an invalid one.
template <class T> inline size_t size_of(const vec<T> &v) { return v ? v.size() : 0; }

/// A C byte vector borrowing `v`'s bytes (never deleted).
inline wasm_byte_vec_t borrow_bytes(const vec<byte_t> &v) {
  wasm_byte_vec_t b;
  b.size = size_of(v);
  b.data = b.size ? const_cast<byte_t *>(v.get()) : nullptr;
  return b;
}

/// A C++ byte vector with `v`'s bytes; deletes `v`.
inline vec<byte_t> take_bytes(wasm_byte_vec_t *v) {
  auto out = vec<byte_t>::make_uninitialized(v->size);
  if (out && v->size) std::memcpy(out.get(), v->data, v->size);
  wasm_byte_vec_delete(v);
  return out;
}

/// A C++ vector owning the elements of the C vector `v` of pointers (left
/// empty, then deleted with `del`).
template <class T, class CV, class CE> inline ownvec<T> take_ptrs(CV *v, void (*del)(CV *)) {
  auto out = ownvec<T>::make_uninitialized(v->size);
  if (v->size && !out.get()) {  // out of memory: the C vector frees its elements
    del(v);
    return ownvec<T>::invalid();
  }
  for (size_t i = 0; i < v->size; ++i) {
    CE *e = v->data[i];
    v->data[i] = nullptr;
    out[i] = own_of<T>(e);
  }
  del(v);
  return out;
}

/// A C vector of value types owning the elements of `v` (left null).
inline void give_valtypes(ownvec<ValType> &v, wasm_valtype_vec_t *out) {
  size_t n = size_of(v);
  wasm_valtype_vec_new_uninitialized(out, n);
  for (size_t i = 0; i < n && i < out->size; ++i) out->data[i] = c<wasm_valtype_t>(v[i].release());
}

/// A C value vector borrowing `v`'s values (never deleted).
inline wasm_val_vec_t borrow_vals(const vec<Val> &v) {
  wasm_val_vec_t b;
  b.size = size_of(v);
  b.data = b.size ? reinterpret_cast<wasm_val_t *>(const_cast<Val *>(v.get())) : nullptr;
  return b;
}

/// The C value of a C++ value (the same bytes).
inline const wasm_val_t *c_val(const Val &v) { return reinterpret_cast<const wasm_val_t *>(&v); }

/// A C++ value owning what the C value `v` holds.
inline Val val_of(const wasm_val_t &v) {
  Val out;  // a null externref: owns nothing, so overwriting it leaks nothing
  std::memcpy(static_cast<void *>(&out), &v, sizeof v);
  return out;
}

/// A new trap with `msg`, not tied to a store.
inline wasm_trap_t *trap_with(const char *msg) {
  wasm_message_t m;
  wasm_name_new_from_string_nt(&m, msg);
  wasm_trap_t *t = wasm_trap_new(nullptr, &m);
  wasm_byte_vec_delete(&m);
  return t;
}

/// What a host function made by `Func::make` calls.
struct FuncEnv {
  Func::callback callback;
  Func::callback_with_env callback_with_env;
  void *env;
  void (*finalizer)(void *);
};

/// The C callback of every host function made by `Func::make`: calls the
/// C++ callback with the arguments (borrowed) and a C++ result vector, then
/// moves the results into the C result vector.
inline wasm_trap_t *func_trampoline(void *env, const wasm_val_vec_t *args, wasm_val_vec_t *results) {
  auto *e = static_cast<FuncEnv *>(env);
  try {
    // The arguments stay the C vector's: a const C++ view of the same
    // layout, never destroyed.
    const vec<Val> &a = *reinterpret_cast<const vec<Val> *>(args);
    auto r = vec<Val>::make_uninitialized(results->size);
    own<Trap> trap = e->callback ? e->callback(a, r) : e->callback_with_env(e->env, a, r);
    if (trap) return c<wasm_trap_t>(trap.release());
    if (!r || r.size() != results->size) return trap_with("host function replaced its result vector with one of another size");
    for (size_t i = 0; i < results->size; ++i) {
      // The C vector holds plain numbers (never references) before the
      // callback's results are moved in.
      std::memcpy(static_cast<void *>(&results->data[i]), c_val(r[i]), sizeof(wasm_val_t));
      if (r[i].is_ref()) r[i].release_ref().release();
    }
    return nullptr;
  } catch (...) {
    return trap_with("a C++ exception escaped a host function");
  }
}

/// Runs the C++ finalizer of a host function's environment, then frees it.
inline void func_env_finalize(void *env) {
  auto *e = static_cast<FuncEnv *>(env);
  if (e->finalizer) e->finalizer(e->env);
  delete e;
}

/// A new host function over `e` (owned: finalized on failure too).
inline own<Func> make_func(Store *store, const FuncType *type, FuncEnv *e) {
  return own_of<Func>(wasm_func_new_with_env(c<wasm_store_t>(store), c<wasm_functype_t>(type), func_trampoline, e,
                                             func_env_finalize));
}

}  // namespace weft_detail

#ifdef WASM_API_DEBUG
// The debugging hooks of `vec`: nothing to do in Weft.
template <class T> inline void vec<T>::make_data() {}
template <class T> inline void vec<T>::free_data() {}
#endif

// Configuration, engines, stores.

inline void Config::destroy() { wasm_config_delete(weft_detail::c<wasm_config_t>(this)); }
inline auto Config::make() -> own<Config> { return weft_detail::own_of<Config>(wasm_config_new()); }

inline void Engine::destroy() { wasm_engine_delete(weft_detail::c<wasm_engine_t>(this)); }
inline auto Engine::make(own<Config> &&config) -> own<Engine> {
  if (!config) return weft_detail::own_of<Engine>(wasm_engine_new());
  return weft_detail::own_of<Engine>(wasm_engine_new_with_config(weft_detail::c<wasm_config_t>(config.release())));
}

inline void Store::destroy() { wasm_store_delete(weft_detail::c<wasm_store_t>(this)); }
inline auto Store::make(Engine *engine) -> own<Store> {
  return weft_detail::own_of<Store>(wasm_store_new(weft_detail::c<wasm_engine_t>(engine)));
}

// Value types.

inline void ValType::destroy() { wasm_valtype_delete(weft_detail::c<wasm_valtype_t>(this)); }
inline auto ValType::make(ValKind kind) -> own<ValType> {
  return weft_detail::own_of<ValType>(wasm_valtype_new(static_cast<wasm_valkind_t>(kind)));
}
inline auto ValType::copy() const -> own<ValType> {
  return weft_detail::own_of<ValType>(wasm_valtype_copy(weft_detail::c<wasm_valtype_t>(this)));
}
inline auto ValType::kind() const -> ValKind {
  return static_cast<ValKind>(wasm_valtype_kind(weft_detail::c<wasm_valtype_t>(this)));
}

// Extern types (in Weft all one C type, so each `destroy` is the same).

inline void ExternType::destroy() { wasm_externtype_delete(weft_detail::c<wasm_externtype_t>(this)); }
inline auto ExternType::copy() const -> own<ExternType> {
  return weft_detail::own_of<ExternType>(wasm_externtype_copy(weft_detail::c<wasm_externtype_t>(this)));
}
inline auto ExternType::kind() const -> ExternKind {
  return static_cast<ExternKind>(wasm_externtype_kind(weft_detail::c<wasm_externtype_t>(this)));
}
inline auto ExternType::func() -> FuncType * {
  return reinterpret_cast<FuncType *>(wasm_externtype_as_functype(weft_detail::c<wasm_externtype_t>(this)));
}
inline auto ExternType::global() -> GlobalType * {
  return reinterpret_cast<GlobalType *>(wasm_externtype_as_globaltype(weft_detail::c<wasm_externtype_t>(this)));
}
inline auto ExternType::table() -> TableType * {
  return reinterpret_cast<TableType *>(wasm_externtype_as_tabletype(weft_detail::c<wasm_externtype_t>(this)));
}
inline auto ExternType::memory() -> MemoryType * {
  return reinterpret_cast<MemoryType *>(wasm_externtype_as_memorytype(weft_detail::c<wasm_externtype_t>(this)));
}
inline auto ExternType::tag() -> TagType * {
  return reinterpret_cast<TagType *>(wasm_externtype_as_tagtype(weft_detail::c<wasm_externtype_t>(this)));
}
inline auto ExternType::func() const -> const FuncType * {
  return reinterpret_cast<const FuncType *>(
      wasm_externtype_as_functype_const(weft_detail::c<wasm_externtype_t>(this)));
}
inline auto ExternType::global() const -> const GlobalType * {
  return reinterpret_cast<const GlobalType *>(
      wasm_externtype_as_globaltype_const(weft_detail::c<wasm_externtype_t>(this)));
}
inline auto ExternType::table() const -> const TableType * {
  return reinterpret_cast<const TableType *>(
      wasm_externtype_as_tabletype_const(weft_detail::c<wasm_externtype_t>(this)));
}
inline auto ExternType::memory() const -> const MemoryType * {
  return reinterpret_cast<const MemoryType *>(
      wasm_externtype_as_memorytype_const(weft_detail::c<wasm_externtype_t>(this)));
}
inline auto ExternType::tag() const -> const TagType * {
  return reinterpret_cast<const TagType *>(
      wasm_externtype_as_tagtype_const(weft_detail::c<wasm_externtype_t>(this)));
}

inline void FuncType::destroy() { wasm_functype_delete(weft_detail::c<wasm_functype_t>(this)); }
inline auto FuncType::make(ownvec<ValType> &&params, ownvec<ValType> &&results) -> own<FuncType> {
  wasm_valtype_vec_t p, r;
  weft_detail::give_valtypes(params, &p);
  weft_detail::give_valtypes(results, &r);
  return weft_detail::own_of<FuncType>(wasm_functype_new(&p, &r));
}
inline auto FuncType::copy() const -> own<FuncType> {
  return weft_detail::own_of<FuncType>(wasm_functype_copy(weft_detail::c<wasm_functype_t>(this)));
}
inline auto FuncType::params() const -> const ownvec<ValType> & {
  return *reinterpret_cast<const ownvec<ValType> *>(wasm_functype_params(weft_detail::c<wasm_functype_t>(this)));
}
inline auto FuncType::results() const -> const ownvec<ValType> & {
  return *reinterpret_cast<const ownvec<ValType> *>(wasm_functype_results(weft_detail::c<wasm_functype_t>(this)));
}

inline void GlobalType::destroy() { wasm_globaltype_delete(weft_detail::c<wasm_globaltype_t>(this)); }
inline auto GlobalType::make(own<ValType> &&content, Mutability mutability) -> own<GlobalType> {
  return weft_detail::own_of<GlobalType>(wasm_globaltype_new(weft_detail::c<wasm_valtype_t>(content.release()),
                                                             static_cast<wasm_mutability_t>(mutability)));
}
inline auto GlobalType::copy() const -> own<GlobalType> {
  return weft_detail::own_of<GlobalType>(wasm_globaltype_copy(weft_detail::c<wasm_globaltype_t>(this)));
}
inline auto GlobalType::content() const -> const ValType * {
  return reinterpret_cast<const ValType *>(wasm_globaltype_content(weft_detail::c<wasm_globaltype_t>(this)));
}
inline auto GlobalType::mutability() const -> Mutability {
  return static_cast<Mutability>(wasm_globaltype_mutability(weft_detail::c<wasm_globaltype_t>(this)));
}

inline void TableType::destroy() { wasm_tabletype_delete(weft_detail::c<wasm_tabletype_t>(this)); }
inline auto TableType::make(own<ValType> &&element, Limits limits) -> own<TableType> {
  wasm_limits_t l = {limits.min, limits.max};
  return weft_detail::own_of<TableType>(wasm_tabletype_new(weft_detail::c<wasm_valtype_t>(element.release()), &l));
}
inline auto TableType::copy() const -> own<TableType> {
  return weft_detail::own_of<TableType>(wasm_tabletype_copy(weft_detail::c<wasm_tabletype_t>(this)));
}
inline auto TableType::element() const -> const ValType * {
  return reinterpret_cast<const ValType *>(wasm_tabletype_element(weft_detail::c<wasm_tabletype_t>(this)));
}
inline auto TableType::limits() const -> const Limits & {
  return *reinterpret_cast<const Limits *>(wasm_tabletype_limits(weft_detail::c<wasm_tabletype_t>(this)));
}

inline void MemoryType::destroy() { wasm_memorytype_delete(weft_detail::c<wasm_memorytype_t>(this)); }
inline auto MemoryType::make(Limits limits) -> own<MemoryType> {
  wasm_limits_t l = {limits.min, limits.max};
  return weft_detail::own_of<MemoryType>(wasm_memorytype_new(&l));
}
inline auto MemoryType::copy() const -> own<MemoryType> {
  return weft_detail::own_of<MemoryType>(wasm_memorytype_copy(weft_detail::c<wasm_memorytype_t>(this)));
}
inline auto MemoryType::limits() const -> const Limits & {
  return *reinterpret_cast<const Limits *>(wasm_memorytype_limits(weft_detail::c<wasm_memorytype_t>(this)));
}

inline void TagType::destroy() { wasm_tagtype_delete(weft_detail::c<wasm_tagtype_t>(this)); }
inline auto TagType::make(own<FuncType> &&functype) -> own<TagType> {
  return weft_detail::own_of<TagType>(wasm_tagtype_new(weft_detail::c<wasm_functype_t>(functype.release())));
}
inline auto TagType::copy() const -> own<TagType> {
  return weft_detail::own_of<TagType>(wasm_tagtype_copy(weft_detail::c<wasm_tagtype_t>(this)));
}
inline auto TagType::functype() const -> const FuncType * {
  return reinterpret_cast<const FuncType *>(wasm_tagtype_functype(weft_detail::c<wasm_tagtype_t>(this)));
}

// Import and export types.

inline void ImportType::destroy() { wasm_importtype_delete(weft_detail::c<wasm_importtype_t>(this)); }
inline auto ImportType::make(Name &&module, Name &&name, own<ExternType> &&type) -> own<ImportType> {
  wasm_name_t m, n;
  wasm_name_new(&m, weft_detail::size_of(module), module ? module.get() : nullptr);
  wasm_name_new(&n, weft_detail::size_of(name), name ? name.get() : nullptr);
  return weft_detail::own_of<ImportType>(
      wasm_importtype_new(&m, &n, weft_detail::c<wasm_externtype_t>(type.release())));
}
inline auto ImportType::copy() const -> own<ImportType> {
  return weft_detail::own_of<ImportType>(wasm_importtype_copy(weft_detail::c<wasm_importtype_t>(this)));
}
inline auto ImportType::module() const -> const Name & {
  return *reinterpret_cast<const Name *>(wasm_importtype_module(weft_detail::c<wasm_importtype_t>(this)));
}
inline auto ImportType::name() const -> const Name & {
  return *reinterpret_cast<const Name *>(wasm_importtype_name(weft_detail::c<wasm_importtype_t>(this)));
}
inline auto ImportType::type() const -> const ExternType * {
  return reinterpret_cast<const ExternType *>(wasm_importtype_type(weft_detail::c<wasm_importtype_t>(this)));
}

inline void ExportType::destroy() { wasm_exporttype_delete(weft_detail::c<wasm_exporttype_t>(this)); }
inline auto ExportType::make(Name &&name, own<ExternType> &&type) -> own<ExportType> {
  wasm_name_t n;
  wasm_name_new(&n, weft_detail::size_of(name), name ? name.get() : nullptr);
  return weft_detail::own_of<ExportType>(wasm_exporttype_new(&n, weft_detail::c<wasm_externtype_t>(type.release())));
}
inline auto ExportType::copy() const -> own<ExportType> {
  return weft_detail::own_of<ExportType>(wasm_exporttype_copy(weft_detail::c<wasm_exporttype_t>(this)));
}
inline auto ExportType::name() const -> const Name & {
  return *reinterpret_cast<const Name *>(wasm_exporttype_name(weft_detail::c<wasm_exporttype_t>(this)));
}
inline auto ExportType::type() const -> const ExternType * {
  return reinterpret_cast<const ExternType *>(wasm_exporttype_type(weft_detail::c<wasm_exporttype_t>(this)));
}

// References (in Weft every reference object is one C type, so
// `Ref::destroy` deletes functions, modules, traps... alike).

inline void Ref::destroy() { wasm_ref_delete(weft_detail::c<wasm_ref_t>(this)); }
inline auto Ref::copy() const -> own<Ref> {
  return weft_detail::own_of<Ref>(wasm_ref_copy(weft_detail::c<wasm_ref_t>(this)));
}
inline auto Ref::same(const Ref *that) const -> bool {
  return wasm_ref_same(weft_detail::c<wasm_ref_t>(this), weft_detail::c<wasm_ref_t>(that));
}
inline auto Ref::get_host_info() const -> void * { return wasm_ref_get_host_info(weft_detail::c<wasm_ref_t>(this)); }
inline void Ref::set_host_info(void *info, void (*finalizer)(void *)) {
  wasm_ref_set_host_info_with_finalizer(weft_detail::c<wasm_ref_t>(this), info, finalizer);
}

// Frames and traps.

inline void Frame::destroy() { wasm_frame_delete(weft_detail::c<wasm_frame_t>(this)); }
inline auto Frame::copy() const -> own<Frame> {
  return weft_detail::own_of<Frame>(wasm_frame_copy(weft_detail::c<wasm_frame_t>(this)));
}
inline auto Frame::instance() const -> Instance * {
  return reinterpret_cast<Instance *>(wasm_frame_instance(weft_detail::c<wasm_frame_t>(this)));
}
inline auto Frame::func_index() const -> uint32_t { return wasm_frame_func_index(weft_detail::c<wasm_frame_t>(this)); }
inline auto Frame::func_offset() const -> size_t { return wasm_frame_func_offset(weft_detail::c<wasm_frame_t>(this)); }
inline auto Frame::module_offset() const -> size_t {
  return wasm_frame_module_offset(weft_detail::c<wasm_frame_t>(this));
}

inline void Trap::destroy() { wasm_trap_delete(weft_detail::c<wasm_trap_t>(this)); }
inline auto Trap::make(Store *store, const Message &msg) -> own<Trap> {
  wasm_message_t m = weft_detail::borrow_bytes(msg);
  return weft_detail::own_of<Trap>(wasm_trap_new(weft_detail::c<wasm_store_t>(store), &m));
}
inline auto Trap::copy() const -> own<Trap> {
  return weft_detail::own_of<Trap>(wasm_trap_copy(weft_detail::c<wasm_trap_t>(this)));
}
inline auto Trap::message() const -> Message {
  wasm_message_t m;
  wasm_trap_message(weft_detail::c<wasm_trap_t>(this), &m);
  return weft_detail::take_bytes(&m);
}
inline auto Trap::origin() const -> own<Frame> {
  return weft_detail::own_of<Frame>(wasm_trap_origin(weft_detail::c<wasm_trap_t>(this)));
}
inline auto Trap::trace() const -> ownvec<Frame> {
  wasm_frame_vec_t v;
  wasm_trap_trace(weft_detail::c<wasm_trap_t>(this), &v);
  return weft_detail::take_ptrs<Frame, wasm_frame_vec_t, wasm_frame_t>(&v, wasm_frame_vec_delete);
}

// Modules.

inline void Module::destroy() { wasm_module_delete(weft_detail::c<wasm_module_t>(this)); }
inline auto Module::validate(Store *store, const vec<byte_t> &binary) -> bool {
  wasm_byte_vec_t b = weft_detail::borrow_bytes(binary);
  return wasm_module_validate(weft_detail::c<wasm_store_t>(store), &b);
}
inline auto Module::make(Store *store, const vec<byte_t> &binary) -> own<Module> {
  wasm_byte_vec_t b = weft_detail::borrow_bytes(binary);
  return weft_detail::own_of<Module>(wasm_module_new(weft_detail::c<wasm_store_t>(store), &b));
}
inline auto Module::copy() const -> own<Module> {
  return weft_detail::own_of<Module>(wasm_module_copy(weft_detail::c<wasm_module_t>(this)));
}
inline auto Module::imports() const -> ownvec<ImportType> {
  wasm_importtype_vec_t v;
  wasm_module_imports(weft_detail::c<wasm_module_t>(this), &v);
  return weft_detail::take_ptrs<ImportType, wasm_importtype_vec_t, wasm_importtype_t>(&v, wasm_importtype_vec_delete);
}
inline auto Module::exports() const -> ownvec<ExportType> {
  wasm_exporttype_vec_t v;
  wasm_module_exports(weft_detail::c<wasm_module_t>(this), &v);
  return weft_detail::take_ptrs<ExportType, wasm_exporttype_vec_t, wasm_exporttype_t>(&v, wasm_exporttype_vec_delete);
}
inline auto Module::share() const -> own<Shared<Module>> {
  return weft_detail::own_of<Shared<Module>>(wasm_module_share(weft_detail::c<wasm_module_t>(this)));
}
inline auto Module::obtain(Store *store, const Shared<Module> *shared) -> own<Module> {
  return weft_detail::own_of<Module>(
      wasm_module_obtain(weft_detail::c<wasm_store_t>(store), weft_detail::c<wasm_shared_module_t>(shared)));
}
inline auto Module::serialize() const -> vec<byte_t> {
  wasm_byte_vec_t v;
  wasm_module_serialize(weft_detail::c<wasm_module_t>(this), &v);
  return weft_detail::take_bytes(&v);
}
inline auto Module::deserialize(Store *store, const vec<byte_t> &bytes) -> own<Module> {
  wasm_byte_vec_t b = weft_detail::borrow_bytes(bytes);
  return weft_detail::own_of<Module>(wasm_module_deserialize(weft_detail::c<wasm_store_t>(store), &b));
}

inline void Shared<Module>::destroy() { wasm_shared_module_delete(weft_detail::c<wasm_shared_module_t>(this)); }

// Foreign objects.

inline void Foreign::destroy() { wasm_foreign_delete(weft_detail::c<wasm_foreign_t>(this)); }
inline auto Foreign::make(Store *store) -> own<Foreign> {
  return weft_detail::own_of<Foreign>(wasm_foreign_new(weft_detail::c<wasm_store_t>(store)));
}
inline auto Foreign::copy() const -> own<Foreign> {
  return weft_detail::own_of<Foreign>(wasm_foreign_copy(weft_detail::c<wasm_foreign_t>(this)));
}

// Externals.

inline void Extern::destroy() { wasm_extern_delete(weft_detail::c<wasm_extern_t>(this)); }
inline auto Extern::copy() const -> own<Extern> {
  return weft_detail::own_of<Extern>(wasm_extern_copy(weft_detail::c<wasm_extern_t>(this)));
}
inline auto Extern::kind() const -> ExternKind {
  return static_cast<ExternKind>(wasm_extern_kind(weft_detail::c<wasm_extern_t>(this)));
}
inline auto Extern::type() const -> own<ExternType> {
  return weft_detail::own_of<ExternType>(wasm_extern_type(weft_detail::c<wasm_extern_t>(this)));
}
inline auto Extern::func() -> Func * {
  return reinterpret_cast<Func *>(wasm_extern_as_func(weft_detail::c<wasm_extern_t>(this)));
}
inline auto Extern::global() -> Global * {
  return reinterpret_cast<Global *>(wasm_extern_as_global(weft_detail::c<wasm_extern_t>(this)));
}
inline auto Extern::table() -> Table * {
  return reinterpret_cast<Table *>(wasm_extern_as_table(weft_detail::c<wasm_extern_t>(this)));
}
inline auto Extern::memory() -> Memory * {
  return reinterpret_cast<Memory *>(wasm_extern_as_memory(weft_detail::c<wasm_extern_t>(this)));
}
inline auto Extern::func() const -> const Func * {
  return reinterpret_cast<const Func *>(wasm_extern_as_func_const(weft_detail::c<wasm_extern_t>(this)));
}
inline auto Extern::global() const -> const Global * {
  return reinterpret_cast<const Global *>(wasm_extern_as_global_const(weft_detail::c<wasm_extern_t>(this)));
}
inline auto Extern::table() const -> const Table * {
  return reinterpret_cast<const Table *>(wasm_extern_as_table_const(weft_detail::c<wasm_extern_t>(this)));
}
inline auto Extern::memory() const -> const Memory * {
  return reinterpret_cast<const Memory *>(wasm_extern_as_memory_const(weft_detail::c<wasm_extern_t>(this)));
}

// Functions.

inline void Func::destroy() { wasm_func_delete(weft_detail::c<wasm_func_t>(this)); }
inline auto Func::make(Store *store, const FuncType *type, callback cb) -> own<Func> {
  if (!cb) return own<Func>();
  return weft_detail::make_func(store, type, new weft_detail::FuncEnv{cb, nullptr, nullptr, nullptr});
}
inline auto Func::make(Store *store, const FuncType *type, callback_with_env cb, void *env,
                       void (*finalizer)(void *)) -> own<Func> {
  if (!cb) {
    if (finalizer) finalizer(env);
    return own<Func>();
  }
  return weft_detail::make_func(store, type, new weft_detail::FuncEnv{nullptr, cb, env, finalizer});
}
inline auto Func::copy() const -> own<Func> {
  return weft_detail::own_of<Func>(wasm_func_copy(weft_detail::c<wasm_func_t>(this)));
}
inline auto Func::type() const -> own<FuncType> {
  return weft_detail::own_of<FuncType>(wasm_func_type(weft_detail::c<wasm_func_t>(this)));
}
inline auto Func::param_arity() const -> size_t { return wasm_func_param_arity(weft_detail::c<wasm_func_t>(this)); }
inline auto Func::result_arity() const -> size_t { return wasm_func_result_arity(weft_detail::c<wasm_func_t>(this)); }
inline auto Func::call(const vec<Val> &args, vec<Val> &results) const -> own<Trap> {
  if (&args == &results) {
    // One vector for both: the results must not release the arguments
    // before the call reads them.
    auto copy = vec<Val>::make_uninitialized(weft_detail::size_of(args));
    for (size_t i = 0; i < weft_detail::size_of(args); ++i) copy[i] = args[i].copy();
    return call(copy, results);
  }
  // The C function overwrites the results without releasing them.
  for (size_t i = 0; i < weft_detail::size_of(results); ++i) results[i].reset();
  wasm_val_vec_t a = weft_detail::borrow_vals(args);
  wasm_val_vec_t r = weft_detail::borrow_vals(results);
  return weft_detail::own_of<Trap>(wasm_func_call(weft_detail::c<wasm_func_t>(this), &a, &r));
}

// Globals.

inline void Global::destroy() { wasm_global_delete(weft_detail::c<wasm_global_t>(this)); }
inline auto Global::make(Store *store, const GlobalType *type, const Val &val) -> own<Global> {
  return weft_detail::own_of<Global>(wasm_global_new(
      weft_detail::c<wasm_store_t>(store), weft_detail::c<wasm_globaltype_t>(type), weft_detail::c_val(val)));
}
inline auto Global::copy() const -> own<Global> {
  return weft_detail::own_of<Global>(wasm_global_copy(weft_detail::c<wasm_global_t>(this)));
}
inline auto Global::type() const -> own<GlobalType> {
  return weft_detail::own_of<GlobalType>(wasm_global_type(weft_detail::c<wasm_global_t>(this)));
}
inline auto Global::get() const -> Val {
  wasm_val_t v;
  v.kind = WASM_I32;
  v.of.i64 = 0;
  wasm_global_get(weft_detail::c<wasm_global_t>(this), &v);
  return weft_detail::val_of(v);
}
inline void Global::set(const Val &val) { wasm_global_set(weft_detail::c<wasm_global_t>(this), weft_detail::c_val(val)); }

// Tables.

inline void Table::destroy() { wasm_table_delete(weft_detail::c<wasm_table_t>(this)); }
inline auto Table::make(Store *store, const TableType *type, const Ref *init) -> own<Table> {
  return weft_detail::own_of<Table>(wasm_table_new(weft_detail::c<wasm_store_t>(store),
                                                   weft_detail::c<wasm_tabletype_t>(type),
                                                   const_cast<wasm_ref_t *>(weft_detail::c<wasm_ref_t>(init))));
}
inline auto Table::copy() const -> own<Table> {
  return weft_detail::own_of<Table>(wasm_table_copy(weft_detail::c<wasm_table_t>(this)));
}
inline auto Table::type() const -> own<TableType> {
  return weft_detail::own_of<TableType>(wasm_table_type(weft_detail::c<wasm_table_t>(this)));
}
inline auto Table::get(size_t index) const -> own<Ref> {
  return weft_detail::own_of<Ref>(wasm_table_get(weft_detail::c<wasm_table_t>(this), index));
}
inline auto Table::set(size_t index, const Ref *r) -> bool {
  return wasm_table_set(weft_detail::c<wasm_table_t>(this), index,
                        const_cast<wasm_ref_t *>(weft_detail::c<wasm_ref_t>(r)));
}
inline auto Table::size() const -> size_t { return wasm_table_size(weft_detail::c<wasm_table_t>(this)); }
inline auto Table::grow(size_t delta, const Ref *init) -> bool {
  return wasm_table_grow(weft_detail::c<wasm_table_t>(this), delta,
                         const_cast<wasm_ref_t *>(weft_detail::c<wasm_ref_t>(init)));
}

// Memories.

inline void Memory::destroy() { wasm_memory_delete(weft_detail::c<wasm_memory_t>(this)); }
inline auto Memory::make(Store *store, const MemoryType *type) -> own<Memory> {
  return weft_detail::own_of<Memory>(
      wasm_memory_new(weft_detail::c<wasm_store_t>(store), weft_detail::c<wasm_memorytype_t>(type)));
}
inline auto Memory::copy() const -> own<Memory> {
  return weft_detail::own_of<Memory>(wasm_memory_copy(weft_detail::c<wasm_memory_t>(this)));
}
inline auto Memory::type() const -> own<MemoryType> {
  return weft_detail::own_of<MemoryType>(wasm_memory_type(weft_detail::c<wasm_memory_t>(this)));
}
inline auto Memory::data() const -> byte_t * {
  return wasm_memory_data(const_cast<wasm_memory_t *>(weft_detail::c<wasm_memory_t>(this)));
}
inline auto Memory::data_size() const -> size_t { return wasm_memory_data_size(weft_detail::c<wasm_memory_t>(this)); }
inline auto Memory::size() const -> pages_t { return wasm_memory_size(weft_detail::c<wasm_memory_t>(this)); }
inline auto Memory::grow(pages_t delta) -> bool { return wasm_memory_grow(weft_detail::c<wasm_memory_t>(this), delta); }

// Instances.

inline void Instance::destroy() { wasm_instance_delete(weft_detail::c<wasm_instance_t>(this)); }
inline auto Instance::make(Store *store, const Module *module, const vec<Extern *> &imports, own<Trap> *trap)
    -> own<Instance> {
  wasm_extern_vec_t i;
  i.size = weft_detail::size_of(imports);
  i.data = i.size ? reinterpret_cast<wasm_extern_t **>(const_cast<Extern **>(imports.get())) : nullptr;
  wasm_trap_t *t = nullptr;
  wasm_instance_t *instance =
      wasm_instance_new(weft_detail::c<wasm_store_t>(store), weft_detail::c<wasm_module_t>(module), &i, &t);
  if (trap) *trap = weft_detail::own_of<Trap>(t);
  else if (t) wasm_trap_delete(t);
  return weft_detail::own_of<Instance>(instance);
}
inline auto Instance::copy() const -> own<Instance> {
  return weft_detail::own_of<Instance>(wasm_instance_copy(weft_detail::c<wasm_instance_t>(this)));
}
inline auto Instance::exports() const -> ownvec<Extern> {
  wasm_extern_vec_t v;
  wasm_instance_exports(weft_detail::c<wasm_instance_t>(this), &v);
  return weft_detail::take_ptrs<Extern, wasm_extern_vec_t, wasm_extern_t>(&v, wasm_extern_vec_delete);
}

}  // namespace wasm

#endif  // WEFT_DETAIL_WASM_HH_IMPL_HH
