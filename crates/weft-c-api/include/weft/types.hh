/**
 * \file weft/types.hh
 *
 * \brief C++ API: the core type classes (as Wasmtime 48's
 * `wasmtime/types.hh` and `wasmtime/types/` headers): `ValKind`, `ValType`,
 * `HeapType`, `RefType`, `FuncType`, `GlobalType`, `TableType`,
 * `MemoryType`, `TagType`, `ExternType`, `ImportType`, `ExportType`,
 * `StorageType`, `FieldType`, `StructType`, `ArrayType` and `ExnType`.
 *
 * Owning classes (`X`) free their C object when destroyed and copy it when
 * copied; a moved-from object is empty and safe to destroy. `X::Ref` is a
 * view of a type owned by something else (an `X`, a list, a module's
 * import list), valid as long as its owner; `X::operator->` gives one.
 */

#ifndef WEFT_TYPES_HH
#define WEFT_TYPES_HH

#include <ostream>
#include <weft/engine.hh>

namespace weft {

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

class FuncType;
class StructType;
class ArrayType;
class ExnType;
class RefType;

namespace detail {
/// The `ValKind` of a `wasm.h` kind.
inline ValKind valkind_of_wasm(wasm_valkind_t k) {
  switch (k) {
  case WASM_I32: return ValKind::I32;
  case WASM_I64: return ValKind::I64;
  case WASM_F32: return ValKind::F32;
  case WASM_F64: return ValKind::F64;
  case WASM_EXTERNREF: return ValKind::ExternRef;
  case WASM_FUNCREF: return ValKind::FuncRef;
  case WEFT_WASM_ANYREF: return ValKind::AnyRef;
  case WEFT_WASM_EXNREF: return ValKind::ExnRef;
  default: return ValKind::V128;
  }
}

/// The C++ object that owns the C value `slot`, as Wasmtime 48's
/// accessors return it (`const ArrayType *`, `const ListType &`, …)
/// without a copy: the classes these are used with hold exactly one member,
/// the C value (a `std::unique_ptr` with an empty deleter for a C pointer),
/// so they have its layout. The result is valid as long as `slot` is
/// unchanged, and const: nothing may destroy or move from it.
template <typename Owner, typename C> const Owner &owner_of(const C &slot) {
  static_assert(sizeof(Owner) == sizeof(C), "the class is not a lone owner of the C value");
  static_assert(alignof(Owner) == alignof(C), "the class is not a lone owner of the C value");
  return *reinterpret_cast<const Owner *>(&slot);
}

/// An empty `T` (made from a null C pointer) that lives as long as the
/// program, for the accessors that return a reference and are called on
/// the wrong kind (where Wasmtime 48 asserts).
template <typename T> const T &empty_of() {
  static const T empty(nullptr);
  return empty;
}

/// `owner_of<T>(slot)` where `is` (the accessor's kind matches) and the C
/// pointer is set, else `empty_of<T>()`.
template <typename T, typename C> const T &owner_or_empty(bool is, C *const &slot) {
  return is && slot ? owner_of<T>(slot) : empty_of<T>();
}
} // namespace detail

/// A heap type: abstract (`any`, `eq`, `func`, …) or concrete (a function,
/// struct, array or exception type). Owning; copies clone.
class HeapType {
  weft_heaptype_t ty;

  static weft_heaptype_t of_kind(weft_heaptype_kind_t k) {
    weft_heaptype_t t;
    t.kind = k;
    t.of.concrete_func = nullptr;
    return t;
  }

public:
  /// Takes ownership of the C heap type `raw`, leaving it `none` (as
  /// Wasmtime 48).
  HeapType(weft_heaptype_t &raw) : ty(raw) { raw = of_kind(WEFT_HEAPTYPE_KIND_NONE); }
  /// Takes ownership of the C heap type `raw`.
  explicit HeapType(weft_heaptype_t &&raw) : ty(raw) {}
  /// A copy.
  HeapType(const HeapType &other) { weft_heaptype_clone(&other.ty, &ty); }
  /// A copy.
  HeapType &operator=(const HeapType &other) {
    if (this != &other) {
      weft_heaptype_delete(&ty);
      weft_heaptype_clone(&other.ty, &ty);
    }
    return *this;
  }
  /// Takes `other`'s type, leaving it `extern`.
  HeapType(HeapType &&other) noexcept : ty(other.ty) { other.ty = of_kind(WEFT_HEAPTYPE_KIND_EXTERN); }
  /// Takes `other`'s type, leaving it `extern`.
  HeapType &operator=(HeapType &&other) noexcept {
    if (this != &other) {
      weft_heaptype_delete(&ty);
      ty = other.ty;
      other.ty = of_kind(WEFT_HEAPTYPE_KIND_EXTERN);
    }
    return *this;
  }
  ~HeapType() { weft_heaptype_delete(&ty); }

  /// `extern`.
  static HeapType extern_() { return HeapType(of_kind(WEFT_HEAPTYPE_KIND_EXTERN)); }
  /// `noextern`.
  static HeapType noextern() { return HeapType(of_kind(WEFT_HEAPTYPE_KIND_NOEXTERN)); }
  /// `func`.
  static HeapType func() { return HeapType(of_kind(WEFT_HEAPTYPE_KIND_FUNC)); }
  /// `nofunc`.
  static HeapType nofunc() { return HeapType(of_kind(WEFT_HEAPTYPE_KIND_NOFUNC)); }
  /// `any`.
  static HeapType any() { return HeapType(of_kind(WEFT_HEAPTYPE_KIND_ANY)); }
  /// `none`.
  static HeapType none() { return HeapType(of_kind(WEFT_HEAPTYPE_KIND_NONE)); }
  /// `eq`.
  static HeapType eq() { return HeapType(of_kind(WEFT_HEAPTYPE_KIND_EQ)); }
  /// `i31`.
  static HeapType i31() { return HeapType(of_kind(WEFT_HEAPTYPE_KIND_I31)); }
  /// `array`.
  static HeapType array() { return HeapType(of_kind(WEFT_HEAPTYPE_KIND_ARRAY)); }
  /// `struct`.
  static HeapType struct_() { return HeapType(of_kind(WEFT_HEAPTYPE_KIND_STRUCT)); }
  /// `exn`.
  static HeapType exn() { return HeapType(of_kind(WEFT_HEAPTYPE_KIND_EXN)); }
  /// `noexn`.
  static HeapType noexn() { return HeapType(of_kind(WEFT_HEAPTYPE_KIND_NOEXN)); }
  /// The concrete function type `ty`.
  static HeapType concrete_func(const FuncType &ty);
  /// The concrete struct type `ty`.
  static HeapType concrete_struct(const StructType &ty);
  /// The concrete array type `ty`.
  static HeapType concrete_array(const ArrayType &ty);
  /// The concrete exception type `ty`.
  static HeapType concrete_exn(const ExnType &ty);

  /// The kind (`WEFT_HEAPTYPE_KIND_*`).
  weft_heaptype_kind_t kind() const { return ty.kind; }
  /// Whether it is `extern`.
  bool is_extern() const { return ty.kind == WEFT_HEAPTYPE_KIND_EXTERN; }
  /// Whether it is `noextern`.
  bool is_noextern() const { return ty.kind == WEFT_HEAPTYPE_KIND_NOEXTERN; }
  /// Whether it is `func`.
  bool is_func() const { return ty.kind == WEFT_HEAPTYPE_KIND_FUNC; }
  /// Whether it is `nofunc`.
  bool is_nofunc() const { return ty.kind == WEFT_HEAPTYPE_KIND_NOFUNC; }
  /// Whether it is `any`.
  bool is_any() const { return ty.kind == WEFT_HEAPTYPE_KIND_ANY; }
  /// Whether it is `none`.
  bool is_none() const { return ty.kind == WEFT_HEAPTYPE_KIND_NONE; }
  /// Whether it is `eq`.
  bool is_eq() const { return ty.kind == WEFT_HEAPTYPE_KIND_EQ; }
  /// Whether it is `i31`.
  bool is_i31() const { return ty.kind == WEFT_HEAPTYPE_KIND_I31; }
  /// Whether it is `array`.
  bool is_array() const { return ty.kind == WEFT_HEAPTYPE_KIND_ARRAY; }
  /// Whether it is `struct`.
  bool is_struct() const { return ty.kind == WEFT_HEAPTYPE_KIND_STRUCT; }
  /// Whether it is `exn`.
  bool is_exn() const { return ty.kind == WEFT_HEAPTYPE_KIND_EXN; }
  /// Whether it is `noexn`.
  bool is_noexn() const { return ty.kind == WEFT_HEAPTYPE_KIND_NOEXN; }
  /// Whether it is a concrete function type.
  bool is_concrete_func() const { return ty.kind == WEFT_HEAPTYPE_KIND_CONCRETE_FUNC; }
  /// Whether it is a concrete struct type.
  bool is_concrete_struct() const { return ty.kind == WEFT_HEAPTYPE_KIND_CONCRETE_STRUCT; }
  /// Whether it is a concrete array type.
  bool is_concrete_array() const { return ty.kind == WEFT_HEAPTYPE_KIND_CONCRETE_ARRAY; }
  /// Whether it is a concrete exception type.
  bool is_concrete_exn() const { return ty.kind == WEFT_HEAPTYPE_KIND_CONCRETE_EXN; }
  /// Whether it is a concrete type (function, struct, array or exception).
  bool is_concrete() const { return is_concrete_func() || is_concrete_struct() || is_concrete_array() || is_concrete_exn(); }
  /// The concrete function type, as a `std::optional<FuncType::Ref>` (a
  /// view valid as long as this heap type; nullopt for another kind), as
  /// in Wasmtime 48. (Declared `auto` because `FuncType` is defined below.)
  auto as_concrete_func() const;
  /// The concrete struct type, owned by this heap type (null for another
  /// kind).
  const StructType *as_concrete_struct() const;
  /// The concrete array type, owned by this heap type (null for another
  /// kind).
  const ArrayType *as_concrete_array() const;
  /// The concrete exception type, owned by this heap type (null for
  /// another kind).
  const ExnType *as_concrete_exn() const;
  /// The C heap type.
  const weft_heaptype_t *capi() const { return &ty; }
};

/// A reference type: a heap type and whether `null` is a value of it.
class RefType {
  weft_reftype_t ty;

  void clear() {
    ty.nullable = true;
    ty.heaptype.kind = WEFT_HEAPTYPE_KIND_EXTERN;
    ty.heaptype.of.concrete_func = nullptr;
  }

public:
  /// The reference type to `heap`, nullable or not.
  RefType(bool nullable, const HeapType &heap) {
    ty.nullable = nullable;
    weft_heaptype_clone(heap.capi(), &ty.heaptype);
  }
  /// Takes ownership of the C reference type `raw`.
  explicit RefType(weft_reftype_t raw) : ty(raw) {}
  /// A copy.
  RefType(const RefType &other) {
    ty.nullable = other.ty.nullable;
    weft_heaptype_clone(&other.ty.heaptype, &ty.heaptype);
  }
  /// A copy.
  RefType &operator=(const RefType &other) {
    if (this != &other) {
      weft_heaptype_delete(&ty.heaptype);
      ty.nullable = other.ty.nullable;
      weft_heaptype_clone(&other.ty.heaptype, &ty.heaptype);
    }
    return *this;
  }
  /// Takes `other`'s type, leaving it `externref`.
  RefType(RefType &&other) noexcept : ty(other.ty) { other.clear(); }
  /// Takes `other`'s type, leaving it `externref`.
  RefType &operator=(RefType &&other) noexcept {
    if (this != &other) {
      weft_heaptype_delete(&ty.heaptype);
      ty = other.ty;
      other.clear();
    }
    return *this;
  }
  ~RefType() { weft_heaptype_delete(&ty.heaptype); }
  /// `externref` (`(ref null extern)`).
  static RefType externref() { return RefType(true, HeapType::extern_()); }
  /// `nullexternref`.
  static RefType nullexternref() { return RefType(true, HeapType::noextern()); }
  /// `funcref`.
  static RefType funcref() { return RefType(true, HeapType::func()); }
  /// `nullfuncref`.
  static RefType nullfuncref() { return RefType(true, HeapType::nofunc()); }
  /// `anyref`.
  static RefType anyref() { return RefType(true, HeapType::any()); }
  /// `nullref`.
  static RefType nullref() { return RefType(true, HeapType::none()); }
  /// `eqref`.
  static RefType eqref() { return RefType(true, HeapType::eq()); }
  /// `i31ref`.
  static RefType i31ref() { return RefType(true, HeapType::i31()); }
  /// `structref`.
  static RefType structref() { return RefType(true, HeapType::struct_()); }
  /// `arrayref`.
  static RefType arrayref() { return RefType(true, HeapType::array()); }
  /// `exnref`.
  static RefType exnref() { return RefType(true, HeapType::exn()); }
  /// `nullexnref`.
  static RefType nullexnref() { return RefType(true, HeapType::noexn()); }
  /// Whether `null` is a value of the type.
  bool is_nullable() const { return ty.nullable; }
  /// Whether `null` is a value of the type (Wasmtime 48's name).
  bool nullable() const { return ty.nullable; }
  /// The heap type (Wasmtime 48's name), borrowed from this reference type.
  const HeapType &heaptype() const {
    static_assert(sizeof(HeapType) == sizeof(weft_heaptype_t), "HeapType wraps only the C type");
    static_assert(std::is_standard_layout_v<HeapType>, "HeapType is pointer-interconvertible with its C type");
    return *reinterpret_cast<const HeapType *>(&ty.heaptype);
  }
  /// The heap type.
  const HeapType &heap_type() const { return heaptype(); }
  /// The C reference type, still owned by this object.
  const weft_reftype_t *capi() const { return &ty; }
  /// A C copy (caller-owned: #weft_reftype_delete).
  weft_reftype_t to_capi() const {
    weft_reftype_t out;
    out.nullable = ty.nullable;
    weft_heaptype_clone(&ty.heaptype, &out.heaptype);
    return out;
  }
};

/// A core value type (`wasm_valtype_t`). Copies clone.
class ValType {
  struct Deleter {
    void operator()(wasm_valtype_t *t) const { wasm_valtype_delete(t); }
  };
  std::unique_ptr<wasm_valtype_t, Deleter> ptr;

public:
  /// A view of a value type owned elsewhere.
  class Ref {
    const wasm_valtype_t *ptr;

  public:
    /// Borrows `raw`.
    Ref(const wasm_valtype_t *raw) : ptr(raw) {}
    /// Borrows `ty`.
    Ref(const ValType &ty) : ptr(ty.capi()) {}
    /// The kind.
    ValKind kind() const { return detail::valkind_of_wasm(wasm_valtype_kind(ptr)); }
    /// Whether it is `i32`.
    bool is_i32() const { return kind() == ValKind::I32; }
    /// Whether it is `i64`.
    bool is_i64() const { return kind() == ValKind::I64; }
    /// Whether it is `f32`.
    bool is_f32() const { return kind() == ValKind::F32; }
    /// Whether it is `f64`.
    bool is_f64() const { return kind() == ValKind::F64; }
    /// Whether it is `v128`.
    bool is_v128() const { return kind() == ValKind::V128; }
    /// Whether it is a reference type.
    bool is_ref() const {
      ValKind k = kind();
      return k == ValKind::FuncRef || k == ValKind::ExternRef || k == ValKind::AnyRef || k == ValKind::ExnRef;
    }
    /// Whether it is a reference type of the `func` hierarchy.
    bool is_funcref() const { return kind() == ValKind::FuncRef; }
    /// Whether it is a reference type of the `extern` hierarchy.
    bool is_externref() const { return kind() == ValKind::ExternRef; }
    /// Whether it is a reference type of the `any` hierarchy.
    bool is_anyref() const { return kind() == ValKind::AnyRef; }
    /// Whether it is a reference type of the `exn` hierarchy.
    bool is_exnref() const { return kind() == ValKind::ExnRef; }
    /// The precise reference type (nullopt for a number or vector type).
    std::optional<RefType> as_ref() const {
      weft_valtype_t t;
      weft_valtype_new(ptr, &t);
      if (t.kind != WEFT_VALTYPE_KIND_REF) {
        weft_valtype_delete(&t);
        return std::nullopt;
      }
      return RefType(t.reftype);
    }
    /// The C type.
    const wasm_valtype_t *capi() const { return ptr; }
  };

  /// A view of a list of value types owned elsewhere.
  class ListRef {
    const wasm_valtype_vec_t *list;

  public:
    /// Borrows `raw`.
    explicit ListRef(const wasm_valtype_vec_t *raw) : list(raw) {}
    /// An iterator over the types.
    class Iterator {
      wasm_valtype_t *const *p;

    public:
      /// At `at`.
      explicit Iterator(wasm_valtype_t *const *at) : p(at) {}
      /// The type.
      Ref operator*() const { return Ref(*p); }
      /// The next type.
      Iterator &operator++() {
        ++p;
        return *this;
      }
      /// Whether both are at the same type.
      bool operator==(const Iterator &o) const { return p == o.p; }
      /// Whether they are at different types.
      bool operator!=(const Iterator &o) const { return p != o.p; }
    };
    /// The number of types.
    size_t size() const { return list->size; }
    /// Type `i`.
    Ref operator[](size_t i) const { return Ref(list->data[i]); }
    /// The iterator type (Wasmtime 48's name).
    using iterator = Iterator;
    /// The first type.
    Iterator begin() const { return Iterator(list->data); }
    /// Past the last type.
    Iterator end() const { return Iterator(list->data + list->size); }
  };

  /// Takes ownership of `raw`.
  explicit ValType(wasm_valtype_t *raw) : ptr(raw) {}
  /// Of kind `kind` (the reference kinds give the nullable abstract types).
  ValType(ValKind kind) {
    wasm_valkind_t k = WASM_I32;
    switch (kind) {
    case ValKind::I32: k = WASM_I32; break;
    case ValKind::I64: k = WASM_I64; break;
    case ValKind::F32: k = WASM_F32; break;
    case ValKind::F64: k = WASM_F64; break;
    case ValKind::V128: ptr.reset(weft_wasm_valtype_v128()); return;
    case ValKind::FuncRef: k = WASM_FUNCREF; break;
    case ValKind::ExternRef: k = WASM_EXTERNREF; break;
    case ValKind::AnyRef: k = WEFT_WASM_ANYREF; break;
    case ValKind::ExnRef: k = WEFT_WASM_EXNREF; break;
    }
    ptr.reset(wasm_valtype_new(k));
  }
  /// The reference type `ty` (its concrete types registered in `engine`).
  ValType(const Engine &engine, const RefType &ty) {
    weft_valtype_t t;
    t.kind = WEFT_VALTYPE_KIND_REF;
    t.reftype = ty.to_capi();
    ptr.reset(weft_valtype_to_wasm(engine.capi(), &t));
    weft_valtype_delete(&t);
  }
  /// A copy of the type `ty` refers to.
  ValType(Ref ty) : ptr(wasm_valtype_copy(ty.capi())) {}
  /// A copy.
  ValType(const ValType &other) : ptr(other.ptr ? wasm_valtype_copy(other.ptr.get()) : nullptr) {}
  /// A copy.
  ValType &operator=(const ValType &other) {
    if (this != &other) {
      ptr.reset(other.ptr ? wasm_valtype_copy(other.ptr.get()) : nullptr);
      reftype.reset();
    }
    return *this;
  }
  /// Moves (the moved-from type is empty).
  ValType(ValType &&other) noexcept : ptr(std::move(other.ptr)) { other.reftype.reset(); }
  /// Moves (the moved-from type is empty).
  ValType &operator=(ValType &&other) noexcept {
    ptr = std::move(other.ptr);
    reftype.reset();
    other.reftype.reset();
    return *this;
  }

  /// `i32`.
  static ValType i32() { return ValType(ValKind::I32); }
  /// `i64`.
  static ValType i64() { return ValType(ValKind::I64); }
  /// `f32`.
  static ValType f32() { return ValType(ValKind::F32); }
  /// `f64`.
  static ValType f64() { return ValType(ValKind::F64); }
  /// `v128`.
  static ValType v128() { return ValType(ValKind::V128); }
  /// `funcref`.
  static ValType funcref() { return ValType(ValKind::FuncRef); }
  /// `externref`.
  static ValType externref() { return ValType(ValKind::ExternRef); }
  /// `anyref`.
  static ValType anyref() { return ValType(ValKind::AnyRef); }
  /// `exnref`.
  static ValType exnref() { return ValType(ValKind::ExnRef); }

  /// A view of the type.
  const Ref *operator->() const {
    view = Ref(ptr.get());
    return &view;
  }
  /// The kind.
  ValKind kind() const { return Ref(ptr.get()).kind(); }
  /// Whether it is `i32`.
  bool is_i32() const { return Ref(ptr.get()).is_i32(); }
  /// Whether it is `i64`.
  bool is_i64() const { return Ref(ptr.get()).is_i64(); }
  /// Whether it is `f32`.
  bool is_f32() const { return Ref(ptr.get()).is_f32(); }
  /// Whether it is `f64`.
  bool is_f64() const { return Ref(ptr.get()).is_f64(); }
  /// Whether it is `v128`.
  bool is_v128() const { return Ref(ptr.get()).is_v128(); }
  /// Whether it is a reference type.
  bool is_ref() const { return Ref(ptr.get()).is_ref(); }
  /// Whether it is a reference type of the `func` hierarchy.
  bool is_funcref() const { return Ref(ptr.get()).is_funcref(); }
  /// Whether it is a reference type of the `extern` hierarchy.
  bool is_externref() const { return Ref(ptr.get()).is_externref(); }
  /// Whether it is a reference type of the `any` hierarchy.
  bool is_anyref() const { return Ref(ptr.get()).is_anyref(); }
  /// Whether it is a reference type of the `exn` hierarchy.
  bool is_exnref() const { return Ref(ptr.get()).is_exnref(); }
  /// The precise reference type (null for a number or vector type), as in
  /// Wasmtime 48: owned by this `ValType`, valid until it changes.
  const RefType *as_ref() const {
    if (!reftype)
      reftype = Ref(ptr.get()).as_ref();
    return reftype ? &*reftype : nullptr;
  }
  /// Whether `other` is the same type.
  bool operator==(const ValType &other) const { return weft_wasm_valtype_equal(ptr.get(), other.ptr.get()); }
  /// Whether `other` is another type.
  bool operator!=(const ValType &other) const { return !(*this == other); }
  /// The C object.
  const wasm_valtype_t *capi() const { return ptr.get(); }
  /// Gives up ownership of the C object.
  wasm_valtype_t *capi_release() { return ptr.release(); }

private:
  mutable Ref view = Ref(static_cast<const wasm_valtype_t *>(nullptr));
  // What `as_ref` returns, made on its first call.
  mutable std::optional<RefType> reftype;
};

namespace detail {
inline void fill_valtypes(wasm_valtype_vec_t *out, const std::vector<ValType> &types) {
  wasm_valtype_vec_new_uninitialized(out, types.size());
  for (size_t i = 0; i < types.size(); i++)
    out->data[i] = wasm_valtype_copy(types[i].capi());
}
} // namespace detail

/// A core function type. Copies clone.
class FuncType {
  struct Deleter {
    void operator()(wasm_functype_t *t) const { wasm_functype_delete(t); }
  };
  std::unique_ptr<wasm_functype_t, Deleter> ptr;

public:
  /// A view of a function type owned elsewhere.
  class Ref {
    const wasm_functype_t *ptr;

  public:
    /// Borrows `raw`.
    Ref(const wasm_functype_t *raw) : ptr(raw) {}
    /// The parameter types.
    ValType::ListRef params() const { return ValType::ListRef(wasm_functype_params(ptr)); }
    /// The result types.
    ValType::ListRef results() const { return ValType::ListRef(wasm_functype_results(ptr)); }
    /// The C type.
    const wasm_functype_t *capi() const { return ptr; }
  };

  /// Takes ownership of `raw`.
  explicit FuncType(wasm_functype_t *raw) : ptr(raw), view(raw) {}
  /// The type with these parameters and results.
  FuncType(const std::vector<ValType> &params, const std::vector<ValType> &results) : view(nullptr) {
    wasm_valtype_vec_t p, r;
    detail::fill_valtypes(&p, params);
    detail::fill_valtypes(&r, results);
    ptr.reset(wasm_functype_new(&p, &r));
    view = Ref(ptr.get());
  }
  /// The type with these parameters and results.
  FuncType(std::initializer_list<ValType> params, std::initializer_list<ValType> results)
      : FuncType(std::vector<ValType>(params), std::vector<ValType>(results)) {}
  /// A copy of the type `ty` refers to.
  FuncType(Ref ty) : FuncType(wasm_functype_copy(ty.capi())) {}
  /// A copy.
  FuncType(const FuncType &other) : FuncType(wasm_functype_copy(other.ptr.get())) {}
  /// A copy.
  FuncType &operator=(const FuncType &other) {
    if (this != &other) {
      ptr.reset(wasm_functype_copy(other.ptr.get()));
      view = Ref(ptr.get());
    }
    return *this;
  }
  /// Moves (the moved-from type is empty).
  FuncType(FuncType &&other) noexcept : ptr(std::move(other.ptr)), view(ptr.get()) { other.view = Ref(nullptr); }
  /// Moves (the moved-from type is empty).
  FuncType &operator=(FuncType &&other) noexcept {
    ptr = std::move(other.ptr);
    view = Ref(ptr.get());
    other.view = Ref(nullptr);
    return *this;
  }
  /// The view of the type.
  const Ref *operator->() const { return &view; }
  /// The number of parameters.
  size_t param_count() const { return wasm_functype_params(ptr.get())->size; }
  /// The number of results.
  size_t result_count() const { return wasm_functype_results(ptr.get())->size; }
  /// The C object.
  const wasm_functype_t *capi() const { return ptr.get(); }
  /// Gives up ownership of the C object.
  wasm_functype_t *capi_release() {
    view = Ref(nullptr);
    return ptr.release();
  }

private:
  Ref view;
};

/// The type of a global. Copies clone.
class GlobalType {
  struct Deleter {
    void operator()(wasm_globaltype_t *t) const { wasm_globaltype_delete(t); }
  };
  std::unique_ptr<wasm_globaltype_t, Deleter> ptr;

public:
  /// A view of a global type owned elsewhere.
  class Ref {
    const wasm_globaltype_t *ptr;

  public:
    /// Borrows `raw`.
    Ref(const wasm_globaltype_t *raw) : ptr(raw) {}
    /// Whether the global may be set.
    bool is_mutable() const { return wasm_globaltype_mutability(ptr) == WASM_VAR; }
    /// The type of its value.
    ValType::Ref content() const { return ValType::Ref(wasm_globaltype_content(ptr)); }
    /// The C type.
    const wasm_globaltype_t *capi() const { return ptr; }
  };

  /// Takes ownership of `raw`.
  explicit GlobalType(wasm_globaltype_t *raw) : ptr(raw), view(raw) {}
  /// A global of `content`, mutable or not.
  GlobalType(const ValType &content, bool is_mutable)
      : GlobalType(wasm_globaltype_new(wasm_valtype_copy(content.capi()), is_mutable ? WASM_VAR : WASM_CONST)) {}
  /// A copy of the type `ty` refers to.
  GlobalType(Ref ty) : GlobalType(wasm_globaltype_copy(ty.capi())) {}
  /// A copy.
  GlobalType(const GlobalType &other) : GlobalType(wasm_globaltype_copy(other.ptr.get())) {}
  /// A copy.
  GlobalType &operator=(const GlobalType &other) {
    if (this != &other) {
      ptr.reset(wasm_globaltype_copy(other.ptr.get()));
      view = Ref(ptr.get());
    }
    return *this;
  }
  /// Moves (the moved-from type is empty).
  GlobalType(GlobalType &&other) noexcept : ptr(std::move(other.ptr)), view(ptr.get()) { other.view = Ref(nullptr); }
  /// Moves (the moved-from type is empty).
  GlobalType &operator=(GlobalType &&other) noexcept {
    ptr = std::move(other.ptr);
    view = Ref(ptr.get());
    other.view = Ref(nullptr);
    return *this;
  }
  /// The view of the type.
  const Ref *operator->() const { return &view; }
  /// The C object.
  const wasm_globaltype_t *capi() const { return ptr.get(); }

private:
  Ref view;
};

/// The type of a table. Copies clone.
class TableType {
  struct Deleter {
    void operator()(wasm_tabletype_t *t) const { wasm_tabletype_delete(t); }
  };
  std::unique_ptr<wasm_tabletype_t, Deleter> ptr;

  static wasm_tabletype_t *make(const ValType &ty, uint32_t min, std::optional<uint32_t> max) {
    wasm_limits_t limits;
    limits.min = min;
    limits.max = max ? *max : wasm_limits_max_default;
    return wasm_tabletype_new(wasm_valtype_copy(ty.capi()), &limits);
  }

public:
  /// A view of a table type owned elsewhere.
  class Ref {
    const wasm_tabletype_t *ptr;

  public:
    /// Borrows `raw`.
    Ref(const wasm_tabletype_t *raw) : ptr(raw) {}
    /// The type of the elements.
    ValType::Ref element() const { return ValType::Ref(wasm_tabletype_element(ptr)); }
    /// The minimum size.
    uint32_t min() const { return wasm_tabletype_limits(ptr)->min; }
    /// The maximum size, if any.
    std::optional<uint32_t> max() const {
      uint32_t m = wasm_tabletype_limits(ptr)->max;
      if (m == wasm_limits_max_default)
        return std::nullopt;
      return m;
    }
    /// The C type.
    const wasm_tabletype_t *capi() const { return ptr; }
  };

  /// Takes ownership of `raw`.
  explicit TableType(wasm_tabletype_t *raw) : ptr(raw), view(raw) {}
  /// A table of `ty` with at least `min` elements.
  TableType(const ValType &ty, uint32_t min) : TableType(make(ty, min, std::nullopt)) {}
  /// A table of `ty` with `min` to `max` elements.
  TableType(const ValType &ty, uint32_t min, uint32_t max) : TableType(make(ty, min, max)) {}
  /// A copy of the type `ty` refers to.
  TableType(Ref ty) : TableType(wasm_tabletype_copy(ty.capi())) {}
  /// A copy.
  TableType(const TableType &other) : TableType(wasm_tabletype_copy(other.ptr.get())) {}
  /// A copy.
  TableType &operator=(const TableType &other) {
    if (this != &other) {
      ptr.reset(wasm_tabletype_copy(other.ptr.get()));
      view = Ref(ptr.get());
    }
    return *this;
  }
  /// Moves (the moved-from type is empty).
  TableType(TableType &&other) noexcept : ptr(std::move(other.ptr)), view(ptr.get()) { other.view = Ref(nullptr); }
  /// Moves (the moved-from type is empty).
  TableType &operator=(TableType &&other) noexcept {
    ptr = std::move(other.ptr);
    view = Ref(ptr.get());
    other.view = Ref(nullptr);
    return *this;
  }
  /// The view of the type.
  const Ref *operator->() const { return &view; }
  /// The C object.
  const wasm_tabletype_t *capi() const { return ptr.get(); }

private:
  Ref view;
};

/// The type of a memory. Copies clone.
class MemoryType {
  struct Deleter {
    void operator()(wasm_memorytype_t *t) const { wasm_memorytype_delete(t); }
  };
  std::unique_ptr<wasm_memorytype_t, Deleter> ptr;

  static wasm_memorytype_t *make(uint64_t min, std::optional<uint64_t> max, bool is64, bool shared,
                                 uint8_t page_size_log2) {
    wasm_memorytype_t *out = nullptr;
    if (weft_error_t *e = weft_memorytype_new(min, max.has_value(), max ? *max : 0, is64, shared, page_size_log2, &out)) {
      weft_error_delete(e);
      return nullptr;
    }
    return out;
  }

public:
  /// A view of a memory type owned elsewhere.
  class Ref {
    const wasm_memorytype_t *ptr;

  public:
    /// Borrows `raw`.
    Ref(const wasm_memorytype_t *raw) : ptr(raw) {}
    /// The minimum size in pages.
    uint64_t min() const { return weft_memorytype_minimum(ptr); }
    /// The maximum size in pages, if any.
    std::optional<uint64_t> max() const {
      uint64_t m;
      if (weft_memorytype_maximum(ptr, &m))
        return m;
      return std::nullopt;
    }
    /// Whether it is a 64-bit memory.
    bool is_64() const { return weft_memorytype_is64(ptr); }
    /// Whether it is shared.
    bool is_shared() const { return weft_memorytype_isshared(ptr); }
    /// The page size in bytes.
    uint64_t page_size() const { return weft_memorytype_page_size(ptr); }
    /// The base-2 logarithm of the page size.
    uint8_t page_size_log2() const { return weft_memorytype_page_size_log2(ptr); }
    /// The C type.
    const wasm_memorytype_t *capi() const { return ptr; }
  };

  /// Builds a memory type of any shape (`build` checks it).
  class Builder {
    uint64_t min_ = 0;
    std::optional<uint64_t> max_;
    bool memory64_ = false;
    bool shared_ = false;
    uint8_t page_size_log2_ = 16;

  public:
    /// 32-bit, unshared, at least zero pages of 64 KiB.
    Builder() = default;
    /// The minimum size in pages.
    Builder &min(uint64_t min) {
      min_ = min;
      return *this;
    }
    /// The maximum size in pages (nullopt for none).
    Builder &max(std::optional<uint64_t> max) {
      max_ = max;
      return *this;
    }
    /// Whether it is a 64-bit memory.
    Builder &memory64(bool enable) {
      memory64_ = enable;
      return *this;
    }
    /// Whether it is shared.
    Builder &shared(bool enable) {
      shared_ = enable;
      return *this;
    }
    /// The base-2 logarithm of the page size (16 or 0).
    Builder &page_size_log2(uint8_t log2) {
      page_size_log2_ = log2;
      return *this;
    }
    /// The memory type, or an error saying why the shape is not valid.
    Result<MemoryType> build() const {
      wasm_memorytype_t *out = nullptr;
      if (weft_error_t *e = weft_memorytype_new(min_, max_.has_value(), max_ ? *max_ : 0, memory64_, shared_,
                                                page_size_log2_, &out))
        return Error(e);
      return MemoryType(out);
    }
  };

  /// Takes ownership of `raw`.
  explicit MemoryType(wasm_memorytype_t *raw) : ptr(raw), view(raw) {}
  /// A 32-bit memory of at least `min` pages.
  explicit MemoryType(uint32_t min) : MemoryType(make(min, std::nullopt, false, false, 16)) {}
  /// A 32-bit memory of `min` to `max` pages.
  MemoryType(uint32_t min, uint32_t max) : MemoryType(make(min, max, false, false, 16)) {}
  /// A 64-bit memory of `min` to `max` (if given) pages.
  static MemoryType New64(uint64_t min, std::optional<uint64_t> max = std::nullopt) {
    return MemoryType(make(min, max, true, false, 16));
  }
  /// A copy of the type `ty` refers to.
  MemoryType(Ref ty) : MemoryType(wasm_memorytype_copy(ty.capi())) {}
  /// A copy.
  MemoryType(const MemoryType &other) : MemoryType(wasm_memorytype_copy(other.ptr.get())) {}
  /// A copy.
  MemoryType &operator=(const MemoryType &other) {
    if (this != &other) {
      ptr.reset(wasm_memorytype_copy(other.ptr.get()));
      view = Ref(ptr.get());
    }
    return *this;
  }
  /// Moves (the moved-from type is empty).
  MemoryType(MemoryType &&other) noexcept : ptr(std::move(other.ptr)), view(ptr.get()) { other.view = Ref(nullptr); }
  /// Moves (the moved-from type is empty).
  MemoryType &operator=(MemoryType &&other) noexcept {
    ptr = std::move(other.ptr);
    view = Ref(ptr.get());
    other.view = Ref(nullptr);
    return *this;
  }
  /// The view of the type.
  const Ref *operator->() const { return &view; }
  /// The C object.
  const wasm_memorytype_t *capi() const { return ptr.get(); }

private:
  Ref view;
};

/// The type of a tag: a function type whose parameters are the payload of
/// the exceptions thrown with it (and which has no results). Copies clone.
class TagType {
  struct Deleter {
    void operator()(wasm_tagtype_t *t) const { wasm_tagtype_delete(t); }
  };
  std::unique_ptr<wasm_tagtype_t, Deleter> ptr;

public:
  /// A view of a tag type owned elsewhere.
  class Ref {
    const wasm_tagtype_t *ptr;

  public:
    /// Borrows `raw`.
    Ref(const wasm_tagtype_t *raw) : ptr(raw) {}
    /// The function type.
    FuncType functype() const { return FuncType(wasm_functype_copy(wasm_tagtype_functype(ptr))); }
    /// The C type.
    const wasm_tagtype_t *capi() const { return ptr; }
  };

  /// Takes ownership of `raw`.
  explicit TagType(wasm_tagtype_t *raw) : ptr(raw), view(raw) {}
  /// The tag type of function type `ty`.
  explicit TagType(const FuncType &ty) : TagType(wasm_tagtype_new(wasm_functype_copy(ty.capi()))) {}
  /// A copy of the type `ty` refers to.
  TagType(Ref ty) : TagType(wasm_tagtype_copy(ty.capi())) {}
  /// A copy.
  TagType(const TagType &other) : TagType(wasm_tagtype_copy(other.ptr.get())) {}
  /// A copy.
  TagType &operator=(const TagType &other) {
    if (this != &other) {
      ptr.reset(wasm_tagtype_copy(other.ptr.get()));
      view = Ref(ptr.get());
    }
    return *this;
  }
  /// Moves (the moved-from type is empty).
  TagType(TagType &&other) noexcept : ptr(std::move(other.ptr)), view(ptr.get()) { other.view = Ref(nullptr); }
  /// Moves (the moved-from type is empty).
  TagType &operator=(TagType &&other) noexcept {
    ptr = std::move(other.ptr);
    view = Ref(ptr.get());
    other.view = Ref(nullptr);
    return *this;
  }
  /// The view of the type.
  const Ref *operator->() const { return &view; }
  /// The function type (a copy).
  FuncType functype() const { return FuncType(wasm_functype_copy(wasm_tagtype_functype(ptr.get()))); }
  /// The C object.
  const wasm_tagtype_t *capi() const { return ptr.get(); }

private:
  Ref view;
};

namespace detail {
/// The view of an item type (`ExternType::Ref`).
using ExternTypeRef = std::variant<FuncType::Ref, GlobalType::Ref, TableType::Ref, MemoryType::Ref, TagType::Ref>;
/// The view of the C type `ty`.
inline ExternTypeRef extern_type_ref(const wasm_externtype_t *ty) {
  switch (wasm_externtype_kind(ty)) {
  case WASM_EXTERN_FUNC: return FuncType::Ref(wasm_externtype_as_functype_const(ty));
  case WASM_EXTERN_GLOBAL: return GlobalType::Ref(wasm_externtype_as_globaltype_const(ty));
  case WASM_EXTERN_TABLE: return TableType::Ref(wasm_externtype_as_tabletype_const(ty));
  case WASM_EXTERN_MEMORY: return MemoryType::Ref(wasm_externtype_as_memorytype_const(ty));
  default: return TagType::Ref(wasm_externtype_as_tagtype_const(ty));
  }
}
} // namespace detail


namespace detail {
inline std::string_view name_view(const wasm_name_t *n) { return std::string_view(n->data, n->size); }
} // namespace detail

/// The type of an import of a module (owning; copies clone).
class ImportType {
  struct Deleter {
    void operator()(wasm_importtype_t *t) const { wasm_importtype_delete(t); }
  };
  std::unique_ptr<wasm_importtype_t, Deleter> ptr;

public:
  /// A view of an import type owned elsewhere.
  class Ref {
    const wasm_importtype_t *ptr;

  public:
    /// Borrows `raw`.
    Ref(const wasm_importtype_t *raw) : ptr(raw) {}
    /// The module name.
    std::string_view module() const { return detail::name_view(wasm_importtype_module(ptr)); }
    /// The item name.
    std::string_view name() const { return detail::name_view(wasm_importtype_name(ptr)); }
    /// The item's type.
    detail::ExternTypeRef type() const { return detail::extern_type_ref(wasm_importtype_type(ptr)); }
    /// The C type.
    const wasm_importtype_t *capi() const { return ptr; }
  };

  /// Takes ownership of `raw`.
  explicit ImportType(wasm_importtype_t *raw) : ptr(raw) {}
  /// A copy.
  ImportType(const ImportType &other) : ptr(wasm_importtype_copy(other.ptr.get())) {}
  /// A copy.
  ImportType &operator=(const ImportType &other) {
    if (this != &other)
      ptr.reset(wasm_importtype_copy(other.ptr.get()));
    return *this;
  }
  /// Moves (the moved-from type is empty).
  ImportType(ImportType &&) = default;
  /// Moves (the moved-from type is empty).
  ImportType &operator=(ImportType &&) = default;
  /// A view of the type.
  Ref ref() const { return Ref(ptr.get()); }
  /// The C object.
  const wasm_importtype_t *capi() const { return ptr.get(); }

  /// The imports of a module, in order (owning; move-only).
  class List {
    wasm_importtype_vec_t vec;

  public:
    /// Empty.
    List() { wasm_importtype_vec_new_empty(&vec); }
    /// Takes ownership of `raw`.
    explicit List(wasm_importtype_vec_t raw) : vec(raw) {}
    List(const List &) = delete;
    List &operator=(const List &) = delete;
    /// Takes `other`'s imports, leaving it empty.
    List(List &&other) noexcept : vec(other.vec) { wasm_importtype_vec_new_empty(&other.vec); }
    /// Takes `other`'s imports, leaving it empty.
    List &operator=(List &&other) noexcept {
      if (this != &other) {
        wasm_importtype_vec_delete(&vec);
        vec = other.vec;
        wasm_importtype_vec_new_empty(&other.vec);
      }
      return *this;
    }
    ~List() { wasm_importtype_vec_delete(&vec); }
    /// An iterator over the imports.
    class Iterator {
      wasm_importtype_t *const *p;

    public:
      /// At `at`.
      explicit Iterator(wasm_importtype_t *const *at) : p(at) {}
      /// The import.
      Ref operator*() const { return Ref(*p); }
      /// The next import.
      Iterator &operator++() {
        ++p;
        return *this;
      }
      /// Whether both are at the same import.
      bool operator==(const Iterator &o) const { return p == o.p; }
      /// Whether they are at different imports.
      bool operator!=(const Iterator &o) const { return p != o.p; }
    };
    /// The number of imports.
    size_t size() const { return vec.size; }
    /// Import `i`.
    Ref operator[](size_t i) const { return Ref(vec.data[i]); }
    /// The iterator type (Wasmtime 48's name).
    using iterator = Iterator;
    /// The first import.
    Iterator begin() const { return Iterator(vec.data); }
    /// Past the last import.
    Iterator end() const { return Iterator(vec.data + vec.size); }
  };
};

/// The type of an export of a module (owning; copies clone).
class ExportType {
  struct Deleter {
    void operator()(wasm_exporttype_t *t) const { wasm_exporttype_delete(t); }
  };
  std::unique_ptr<wasm_exporttype_t, Deleter> ptr;

public:
  /// A view of an export type owned elsewhere.
  class Ref {
    const wasm_exporttype_t *ptr;

  public:
    /// Borrows `raw`.
    Ref(const wasm_exporttype_t *raw) : ptr(raw) {}
    /// The export name.
    std::string_view name() const { return detail::name_view(wasm_exporttype_name(ptr)); }
    /// The item's type.
    detail::ExternTypeRef type() const { return detail::extern_type_ref(wasm_exporttype_type(ptr)); }
    /// The C type.
    const wasm_exporttype_t *capi() const { return ptr; }
  };

  /// Takes ownership of `raw`.
  explicit ExportType(wasm_exporttype_t *raw) : ptr(raw) {}
  /// A copy.
  ExportType(const ExportType &other) : ptr(wasm_exporttype_copy(other.ptr.get())) {}
  /// A copy.
  ExportType &operator=(const ExportType &other) {
    if (this != &other)
      ptr.reset(wasm_exporttype_copy(other.ptr.get()));
    return *this;
  }
  /// Moves (the moved-from type is empty).
  ExportType(ExportType &&) = default;
  /// Moves (the moved-from type is empty).
  ExportType &operator=(ExportType &&) = default;
  /// A view of the type.
  Ref ref() const { return Ref(ptr.get()); }
  /// The C object.
  const wasm_exporttype_t *capi() const { return ptr.get(); }

  /// The exports of a module, in order (owning; move-only).
  class List {
    wasm_exporttype_vec_t vec;

  public:
    /// Empty.
    List() { wasm_exporttype_vec_new_empty(&vec); }
    /// Takes ownership of `raw`.
    explicit List(wasm_exporttype_vec_t raw) : vec(raw) {}
    List(const List &) = delete;
    List &operator=(const List &) = delete;
    /// Takes `other`'s exports, leaving it empty.
    List(List &&other) noexcept : vec(other.vec) { wasm_exporttype_vec_new_empty(&other.vec); }
    /// Takes `other`'s exports, leaving it empty.
    List &operator=(List &&other) noexcept {
      if (this != &other) {
        wasm_exporttype_vec_delete(&vec);
        vec = other.vec;
        wasm_exporttype_vec_new_empty(&other.vec);
      }
      return *this;
    }
    ~List() { wasm_exporttype_vec_delete(&vec); }
    /// An iterator over the exports.
    class Iterator {
      wasm_exporttype_t *const *p;

    public:
      /// At `at`.
      explicit Iterator(wasm_exporttype_t *const *at) : p(at) {}
      /// The export.
      Ref operator*() const { return Ref(*p); }
      /// The next export.
      Iterator &operator++() {
        ++p;
        return *this;
      }
      /// Whether both are at the same export.
      bool operator==(const Iterator &o) const { return p == o.p; }
      /// Whether they are at different exports.
      bool operator!=(const Iterator &o) const { return p != o.p; }
    };
    /// The number of exports.
    size_t size() const { return vec.size; }
    /// Export `i`.
    Ref operator[](size_t i) const { return Ref(vec.data[i]); }
    /// The iterator type (Wasmtime 48's name).
    using iterator = Iterator;
    /// The first export.
    Iterator begin() const { return Iterator(vec.data); }
    /// Past the last export.
    Iterator end() const { return Iterator(vec.data + vec.size); }
  };
};

/// The type of an item (import or export): views of the item types.
class ExternType {
public:
  /// A view of the type: one of the views of the item types.
  using Ref = detail::ExternTypeRef;
  /// The view of the C type `ty`.
  static Ref ref_from_capi(const wasm_externtype_t *ty) { return detail::extern_type_ref(ty); }
  /// The view of the type of the import `ty`.
  static Ref from_import(ImportType::Ref ty) { return ty.type(); }
  /// The view of the type of the export `ty`.
  static Ref from_export(ExportType::Ref ty) { return ty.type(); }
};

/// What a struct field or an array element stores: `i8`, `i16` or a value
/// type. Copies clone.
class StorageType {
  weft_storage_type_t ty;

  static weft_storage_type_t packed(weft_storage_type_kind_t k) {
    weft_storage_type_t t;
    t.kind = k;
    t.valtype = nullptr;
    return t;
  }

public:
  /// Takes ownership of the C storage type `raw`.
  explicit StorageType(weft_storage_type_t raw) : ty(raw) {}
  /// The value type `ty`.
  StorageType(const ValType &ty) : ty(packed(WEFT_STORAGE_TYPE_KIND_VALTYPE)) { this->ty.valtype = wasm_valtype_copy(ty.capi()); }
  /// `i8`.
  static StorageType i8() { return StorageType(packed(WEFT_STORAGE_TYPE_KIND_I8)); }
  /// `i16`.
  static StorageType i16() { return StorageType(packed(WEFT_STORAGE_TYPE_KIND_I16)); }
  /// A copy.
  StorageType(const StorageType &other) { weft_storage_type_clone(&other.ty, &ty); }
  /// A copy.
  StorageType &operator=(const StorageType &other) {
    if (this != &other) {
      weft_storage_type_delete(&ty);
      weft_storage_type_clone(&other.ty, &ty);
    }
    return *this;
  }
  /// Takes `other`'s type, leaving it `i8`.
  StorageType(StorageType &&other) noexcept : ty(other.ty) { other.ty = packed(WEFT_STORAGE_TYPE_KIND_I8); }
  /// Takes `other`'s type, leaving it `i8`.
  StorageType &operator=(StorageType &&other) noexcept {
    if (this != &other) {
      weft_storage_type_delete(&ty);
      ty = other.ty;
      other.ty = packed(WEFT_STORAGE_TYPE_KIND_I8);
    }
    return *this;
  }
  ~StorageType() { weft_storage_type_delete(&ty); }
  /// Whether it is `i8`.
  bool is_i8() const { return ty.kind == WEFT_STORAGE_TYPE_KIND_I8; }
  /// Whether it is `i16`.
  bool is_i16() const { return ty.kind == WEFT_STORAGE_TYPE_KIND_I16; }
  /// The value type (nullopt for `i8` and `i16`).
  std::optional<ValType::Ref> valtype() const {
    if (ty.kind != WEFT_STORAGE_TYPE_KIND_VALTYPE)
      return std::nullopt;
    return ValType::Ref(ty.valtype);
  }
  /// The value type (nullopt for `i8` and `i16`; Wasmtime 48's name).
  std::optional<ValType::Ref> as_valtype() const { return valtype(); }
  /// The C storage type.
  const weft_storage_type_t *capi() const { return &ty; }
};

/// The type of a struct field or of array elements: a storage type, and
/// whether it may be changed. Copies clone.
class FieldType {
  weft_field_type_t ty;

public:
  /// Takes ownership of the C field type `raw`.
  explicit FieldType(weft_field_type_t raw) : ty(raw) {}
  /// A field of `storage`, mutable or not.
  FieldType(bool is_mutable, const StorageType &storage) {
    ty.mutable_ = is_mutable;
    weft_storage_type_clone(storage.capi(), &ty.storage);
  }
  /// A mutable field of `storage`.
  static FieldType mut_(const StorageType &storage) { return FieldType(true, storage); }
  /// An immutable field of `storage`.
  static FieldType const_(const StorageType &storage) { return FieldType(false, storage); }
  /// A copy.
  FieldType(const FieldType &other) { weft_field_type_clone(&other.ty, &ty); }
  /// A copy.
  FieldType &operator=(const FieldType &other) {
    if (this != &other) {
      weft_field_type_delete(&ty);
      weft_field_type_clone(&other.ty, &ty);
    }
    return *this;
  }
  /// Takes `other`'s type, leaving it an immutable `i8`.
  FieldType(FieldType &&other) noexcept : ty(other.ty) {
    other.ty.mutable_ = false;
    other.ty.storage.kind = WEFT_STORAGE_TYPE_KIND_I8;
    other.ty.storage.valtype = nullptr;
  }
  /// Takes `other`'s type, leaving it an immutable `i8`.
  FieldType &operator=(FieldType &&other) noexcept {
    if (this != &other) {
      weft_field_type_delete(&ty);
      ty = other.ty;
      other.ty.mutable_ = false;
      other.ty.storage.kind = WEFT_STORAGE_TYPE_KIND_I8;
      other.ty.storage.valtype = nullptr;
    }
    return *this;
  }
  ~FieldType() { weft_field_type_delete(&ty); }
  /// Whether it may be changed.
  bool is_mutable() const { return ty.mutable_; }
  /// What it stores (a copy).
  StorageType storage() const {
    weft_storage_type_t s;
    weft_storage_type_clone(&ty.storage, &s);
    return StorageType(s);
  }
  /// What it stores (borrowed from this field type).
  const StorageType &storage_type() const {
    static_assert(sizeof(StorageType) == sizeof(weft_storage_type_t), "StorageType wraps only the C type");
    static_assert(std::is_standard_layout_v<StorageType>, "StorageType is pointer-interconvertible with its C type");
    return *reinterpret_cast<const StorageType *>(&ty.storage);
  }
  /// The C field type.
  const weft_field_type_t *capi() const { return &ty; }
};

/// A struct type, registered in an engine. Copies clone.
class StructType {
  struct Deleter {
    void operator()(weft_struct_type_t *t) const { weft_struct_type_delete(t); }
  };
  std::unique_ptr<weft_struct_type_t, Deleter> ptr;

  static weft_struct_type_t *make(const Engine &engine, const std::vector<FieldType> &fields) {
    std::vector<weft_field_type_t> raw;
    for (const FieldType &f : fields)
      raw.push_back(*f.capi());
    return weft_struct_type_new(engine.capi(), raw.data(), raw.size());
  }

public:
  /// Takes ownership of `raw`.
  explicit StructType(weft_struct_type_t *raw) : ptr(raw) {}
  /// The struct type with `fields` in `engine`.
  StructType(const Engine &engine, const std::vector<FieldType> &fields) : ptr(make(engine, fields)) {}
  /// A copy.
  StructType(const StructType &other) : ptr(weft_struct_type_copy(other.ptr.get())) {}
  /// A copy.
  StructType &operator=(const StructType &other) {
    if (this != &other)
      ptr.reset(weft_struct_type_copy(other.ptr.get()));
    return *this;
  }
  /// Moves (the moved-from type is empty).
  StructType(StructType &&) = default;
  /// Moves (the moved-from type is empty).
  StructType &operator=(StructType &&) = default;
  /// The number of fields.
  size_t num_fields() const { return weft_struct_type_num_fields(ptr.get()); }
  /// Field `index` (nullopt out of bounds).
  std::optional<FieldType> field(size_t index) const {
    weft_field_type_t f;
    if (!weft_struct_type_field(ptr.get(), index, &f))
      return std::nullopt;
    return FieldType(f);
  }
  /// The fields, in order.
  std::vector<FieldType> fields() const {
    std::vector<FieldType> out;
    for (size_t i = 0; i < num_fields(); i++)
      out.push_back(*field(i));
    return out;
  }
  /// The C object.
  const weft_struct_type_t *capi() const { return ptr.get(); }
};

/// An array type, registered in an engine. Copies clone.
class ArrayType {
  struct Deleter {
    void operator()(weft_array_type_t *t) const { weft_array_type_delete(t); }
  };
  std::unique_ptr<weft_array_type_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit ArrayType(weft_array_type_t *raw) : ptr(raw) {}
  /// The array type of elements `field` in `engine`.
  ArrayType(const Engine &engine, const FieldType &field) : ptr(weft_array_type_new(engine.capi(), field.capi())) {}
  /// A copy.
  ArrayType(const ArrayType &other) : ptr(weft_array_type_copy(other.ptr.get())) {}
  /// A copy.
  ArrayType &operator=(const ArrayType &other) {
    if (this != &other)
      ptr.reset(weft_array_type_copy(other.ptr.get()));
    return *this;
  }
  /// Moves (the moved-from type is empty).
  ArrayType(ArrayType &&) = default;
  /// Moves (the moved-from type is empty).
  ArrayType &operator=(ArrayType &&) = default;
  /// The type of the elements.
  FieldType field() const {
    weft_field_type_t f;
    weft_array_type_element(ptr.get(), &f);
    return FieldType(f);
  }
  /// The type of the elements (Wasmtime 48's name).
  FieldType element_type() const { return field(); }
  /// The C object.
  const weft_array_type_t *capi() const { return ptr.get(); }
};

/// An exception type, registered in an engine. Copies clone.
class ExnType {
  struct Deleter {
    void operator()(weft_exn_type_t *t) const { weft_exn_type_delete(t); }
  };
  std::unique_ptr<weft_exn_type_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit ExnType(weft_exn_type_t *raw) : ptr(raw) {}
  /// The exception type with payload `params` in `engine`.
  static Result<ExnType> create(const Engine &engine, const std::vector<ValType> &params) {
    wasm_valtype_vec_t p;
    detail::fill_valtypes(&p, params);
    weft_exn_type_t *out = nullptr;
    weft_error_t *e = weft_exn_type_new(engine.capi(), &p, &out);
    wasm_valtype_vec_delete(&p);
    if (e)
      return Error(e);
    return ExnType(out);
  }
  /// A copy.
  ExnType(const ExnType &other) : ptr(weft_exn_type_copy(other.ptr.get())) {}
  /// A copy.
  ExnType &operator=(const ExnType &other) {
    if (this != &other)
      ptr.reset(weft_exn_type_copy(other.ptr.get()));
    return *this;
  }
  /// Moves (the moved-from type is empty).
  ExnType(ExnType &&) = default;
  /// Moves (the moved-from type is empty).
  ExnType &operator=(ExnType &&) = default;
  /// The tag type of the exceptions.
  TagType tag_type() const { return TagType(weft_exn_type_tag_type(ptr.get())); }
  /// The C object.
  const weft_exn_type_t *capi() const { return ptr.get(); }
};

namespace detail {
template <typename R> struct ResultValue;
template <typename T, typename E> struct ResultValue<Result<T, E>> {
  using type = T;
};
} // namespace detail

template <typename T> void Config::host_memory_creator(T creator) {
  using R = decltype(std::declval<T &>().new_memory(std::declval<const MemoryType::Ref &>(), size_t(0), size_t(0),
                                                    size_t(0), size_t(0)));
  using M = typename detail::ResultValue<R>::type;
  weft_memory_creator_t c;
  c.env = new T(std::move(creator));
  c.new_memory = [](void *env, const wasm_memorytype_t *ty, size_t minimum, size_t maximum, size_t reserved,
                    size_t guard, weft_linear_memory_t *out) -> weft_error_t * {
    R r = static_cast<T *>(env)->new_memory(MemoryType::Ref(ty), minimum, maximum, reserved, guard);
    if (!r)
      return r.err().capi_release();
    out->env = new M(r.ok());
    out->get_memory = [](void *e, size_t *size, size_t *capacity) -> uint8_t * {
      return static_cast<M *>(e)->get_memory(size, capacity);
    };
    out->grow_memory = [](void *e, size_t new_size) -> weft_error_t * {
      Result<std::monostate> g = static_cast<M *>(e)->grow_memory(new_size);
      if (!g)
        return g.err().capi_release();
      return nullptr;
    };
    out->finalizer = [](void *e) { delete static_cast<M *>(e); };
    return nullptr;
  };
  c.finalizer = [](void *env) { delete static_cast<T *>(env); };
  weft_config_host_memory_creator_set(ptr.get(), &c);
}

inline HeapType HeapType::concrete_func(const FuncType &ty) {
  weft_heaptype_t t = of_kind(WEFT_HEAPTYPE_KIND_CONCRETE_FUNC);
  t.of.concrete_func = wasm_functype_copy(ty.capi());
  return HeapType(t);
}
inline HeapType HeapType::concrete_struct(const StructType &ty) {
  weft_heaptype_t t = of_kind(WEFT_HEAPTYPE_KIND_CONCRETE_STRUCT);
  t.of.concrete_struct = weft_struct_type_copy(ty.capi());
  return HeapType(t);
}
inline HeapType HeapType::concrete_array(const ArrayType &ty) {
  weft_heaptype_t t = of_kind(WEFT_HEAPTYPE_KIND_CONCRETE_ARRAY);
  t.of.concrete_array = weft_array_type_copy(ty.capi());
  return HeapType(t);
}
inline HeapType HeapType::concrete_exn(const ExnType &ty) {
  weft_heaptype_t t = of_kind(WEFT_HEAPTYPE_KIND_CONCRETE_EXN);
  t.of.concrete_exn = weft_exn_type_copy(ty.capi());
  return HeapType(t);
}
inline auto HeapType::as_concrete_func() const {
  if (!is_concrete_func())
    return std::optional<FuncType::Ref>();
  return std::optional<FuncType::Ref>(FuncType::Ref(ty.of.concrete_func));
}
inline const StructType *HeapType::as_concrete_struct() const {
  return is_concrete_struct() ? &detail::owner_of<StructType>(ty.of.concrete_struct) : nullptr;
}
inline const ArrayType *HeapType::as_concrete_array() const {
  return is_concrete_array() ? &detail::owner_of<ArrayType>(ty.of.concrete_array) : nullptr;
}
inline const ExnType *HeapType::as_concrete_exn() const {
  return is_concrete_exn() ? &detail::owner_of<ExnType>(ty.of.concrete_exn) : nullptr;
}

/// Prints the heap type as in the text format (`any`, `eq`, …; a concrete
/// type as `$func`, `$struct`, `$array` or `$exn`).
inline std::ostream &operator<<(std::ostream &os, const HeapType &ty) {
  switch (ty.kind()) {
  case WEFT_HEAPTYPE_KIND_EXTERN: return os << "extern";
  case WEFT_HEAPTYPE_KIND_NOEXTERN: return os << "noextern";
  case WEFT_HEAPTYPE_KIND_FUNC: return os << "func";
  case WEFT_HEAPTYPE_KIND_CONCRETE_FUNC: return os << "$func";
  case WEFT_HEAPTYPE_KIND_NOFUNC: return os << "nofunc";
  case WEFT_HEAPTYPE_KIND_ANY: return os << "any";
  case WEFT_HEAPTYPE_KIND_NONE: return os << "none";
  case WEFT_HEAPTYPE_KIND_EQ: return os << "eq";
  case WEFT_HEAPTYPE_KIND_I31: return os << "i31";
  case WEFT_HEAPTYPE_KIND_ARRAY: return os << "array";
  case WEFT_HEAPTYPE_KIND_CONCRETE_ARRAY: return os << "$array";
  case WEFT_HEAPTYPE_KIND_STRUCT: return os << "struct";
  case WEFT_HEAPTYPE_KIND_CONCRETE_STRUCT: return os << "$struct";
  case WEFT_HEAPTYPE_KIND_EXN: return os << "exn";
  case WEFT_HEAPTYPE_KIND_CONCRETE_EXN: return os << "$exn";
  case WEFT_HEAPTYPE_KIND_NOEXN: return os << "noexn";
  default: return os << "unknown";
  }
}

/// Prints the reference type as `(ref null? <heap type>)`.
inline std::ostream &operator<<(std::ostream &os, const RefType &ty) {
  os << "(ref ";
  if (ty.nullable())
    os << "null ";
  return os << ty.heaptype() << ")";
}

/// Prints the value type as in the text format (`i32`, …; a reference type
/// as `(ref null? <heap type>)`).
inline std::ostream &operator<<(std::ostream &os, const ValType &ty) {
  ValType::Ref r(ty);
  if (std::optional<RefType> rt = r.as_ref())
    return os << *rt;
  switch (r.kind()) {
  case ValKind::I32: return os << "i32";
  case ValKind::I64: return os << "i64";
  case ValKind::F32: return os << "f32";
  case ValKind::F64: return os << "f64";
  case ValKind::V128: return os << "v128";
  default: return os << "unknown";
  }
}

} // namespace weft

#endif // WEFT_TYPES_HH
