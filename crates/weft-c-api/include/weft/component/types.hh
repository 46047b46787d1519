/**
 * \file weft/component/types.hh
 *
 * \brief C++ API: the component model's type classes (as Wasmtime 48's
 * `wasmtime/component/types.hh`): `ResourceType`, `ValType` and the
 * composite types (`ListType`, `RecordType`, `TupleType`, `VariantType`,
 * `EnumType`, `OptionType`, `ResultType`, `FlagsType`, `FutureType`,
 * `StreamType`, `MapType`), `FuncType`, `ModuleType`,
 * `ComponentInstanceType`, `ComponentType` and `ComponentItem`.
 *
 * Each class owns its C object: copies clone it, a moved-from object is
 * empty and safe to destroy. Names given as `std::string_view` are valid as
 * long as the type they come from.
 */

#ifndef WEFT_COMPONENT_TYPES_HH
#define WEFT_COMPONENT_TYPES_HH

#include <weft/module.hh>

namespace weft {
namespace component {

/// A resource type: a host one (`ResourceType(uint32_t)`) or one of a
/// component. Copies clone; a moved-from object is empty.
class ResourceType {
  struct Deleter {
    void operator()(weft_component_resource_type_t *t) const { weft_component_resource_type_delete(t); }
  };
  std::unique_ptr<weft_component_resource_type_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit ResourceType(weft_component_resource_type_t *raw) : ptr(raw) {}
  /// The host resource type named by `ty`.
  explicit ResourceType(uint32_t ty) : ptr(weft_component_resource_type_new_host(ty)) {}
  /// A copy.
  ResourceType(const ResourceType &other)
      : ptr(other.ptr ? weft_component_resource_type_clone(other.ptr.get()) : nullptr) {}
  /// A copy.
  ResourceType &operator=(const ResourceType &other) {
    if (this != &other)
      ptr.reset(other.ptr ? weft_component_resource_type_clone(other.ptr.get()) : nullptr);
    return *this;
  }
  /// Moves.
  ResourceType(ResourceType &&) = default;
  /// Moves.
  ResourceType &operator=(ResourceType &&) = default;
  /// Whether `other` is the same resource type.
  bool operator==(const ResourceType &other) const {
    return weft_component_resource_type_equal(ptr.get(), other.ptr.get());
  }
  /// Whether `other` is another resource type.
  bool operator!=(const ResourceType &other) const { return !(*this == other); }
  /// The C object.
  const weft_component_resource_type_t *capi() const { return ptr.get(); }
};

class ValType;

/// A `list` type. Copies clone; a moved-from object is empty.
class ListType {
  struct Deleter {
    void operator()(weft_component_list_type_t *t) const { weft_component_list_type_delete(t); }
  };
  std::unique_ptr<weft_component_list_type_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit ListType(weft_component_list_type_t *raw) : ptr(raw) {}
  /// A copy.
  ListType(const ListType &other) : ptr(other.ptr ? weft_component_list_type_clone(other.ptr.get()) : nullptr) {}
  /// A copy.
  ListType &operator=(const ListType &other) {
    if (this != &other)
      ptr.reset(other.ptr ? weft_component_list_type_clone(other.ptr.get()) : nullptr);
    return *this;
  }
  /// Moves.
  ListType(ListType &&) = default;
  /// Moves.
  ListType &operator=(ListType &&) = default;
  /// The type of the elements.
  ValType element() const;
  /// Whether `other` is the same type.
  bool operator==(const ListType &other) const { return weft_component_list_type_equal(ptr.get(), other.ptr.get()); }
  /// Whether `other` is another type.
  bool operator!=(const ListType &other) const { return !(*this == other); }
  /// The C object.
  const weft_component_list_type_t *capi() const { return ptr.get(); }
};

/// A `record` type. Copies clone; a moved-from object is empty.
class RecordType {
  struct Deleter {
    void operator()(weft_component_record_type_t *t) const { weft_component_record_type_delete(t); }
  };
  std::unique_ptr<weft_component_record_type_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit RecordType(weft_component_record_type_t *raw) : ptr(raw) {}
  /// A copy.
  RecordType(const RecordType &other) : ptr(other.ptr ? weft_component_record_type_clone(other.ptr.get()) : nullptr) {}
  /// A copy.
  RecordType &operator=(const RecordType &other) {
    if (this != &other)
      ptr.reset(other.ptr ? weft_component_record_type_clone(other.ptr.get()) : nullptr);
    return *this;
  }
  /// Moves.
  RecordType(RecordType &&) = default;
  /// Moves.
  RecordType &operator=(RecordType &&) = default;
  /// The number of fields.
  size_t field_count() const { return weft_component_record_type_field_count(ptr.get()); }
  /// Field `nth`: its name (valid as long as this type) and type (nullopt
  /// out of bounds).
  std::optional<std::pair<std::string_view, ValType>> field_nth(size_t nth) const;
  /// Whether `other` is the same type.
  bool operator==(const RecordType &other) const { return weft_component_record_type_equal(ptr.get(), other.ptr.get()); }
  /// Whether `other` is another type.
  bool operator!=(const RecordType &other) const { return !(*this == other); }
  /// The C object.
  const weft_component_record_type_t *capi() const { return ptr.get(); }
};

/// A `tuple` type. Copies clone; a moved-from object is empty.
class TupleType {
  struct Deleter {
    void operator()(weft_component_tuple_type_t *t) const { weft_component_tuple_type_delete(t); }
  };
  std::unique_ptr<weft_component_tuple_type_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit TupleType(weft_component_tuple_type_t *raw) : ptr(raw) {}
  /// A copy.
  TupleType(const TupleType &other) : ptr(other.ptr ? weft_component_tuple_type_clone(other.ptr.get()) : nullptr) {}
  /// A copy.
  TupleType &operator=(const TupleType &other) {
    if (this != &other)
      ptr.reset(other.ptr ? weft_component_tuple_type_clone(other.ptr.get()) : nullptr);
    return *this;
  }
  /// Moves.
  TupleType(TupleType &&) = default;
  /// Moves.
  TupleType &operator=(TupleType &&) = default;
  /// The number of types.
  size_t types_count() const { return weft_component_tuple_type_types_count(ptr.get()); }
  /// Type `nth` (nullopt out of bounds).
  std::optional<ValType> types_nth(size_t nth) const;
  /// Whether `other` is the same type.
  bool operator==(const TupleType &other) const { return weft_component_tuple_type_equal(ptr.get(), other.ptr.get()); }
  /// Whether `other` is another type.
  bool operator!=(const TupleType &other) const { return !(*this == other); }
  /// The C object.
  const weft_component_tuple_type_t *capi() const { return ptr.get(); }
};

/// A `variant` type. Copies clone; a moved-from object is empty.
class VariantType {
  struct Deleter {
    void operator()(weft_component_variant_type_t *t) const { weft_component_variant_type_delete(t); }
  };
  std::unique_ptr<weft_component_variant_type_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit VariantType(weft_component_variant_type_t *raw) : ptr(raw) {}
  /// A copy.
  VariantType(const VariantType &other) : ptr(other.ptr ? weft_component_variant_type_clone(other.ptr.get()) : nullptr) {}
  /// A copy.
  VariantType &operator=(const VariantType &other) {
    if (this != &other)
      ptr.reset(other.ptr ? weft_component_variant_type_clone(other.ptr.get()) : nullptr);
    return *this;
  }
  /// Moves.
  VariantType(VariantType &&) = default;
  /// Moves.
  VariantType &operator=(VariantType &&) = default;
  /// A case of a variant: its name (valid as long as the variant type) and
  /// payload type, if any.
  struct Case;
  /// The number of cases.
  size_t case_count() const { return weft_component_variant_type_case_count(ptr.get()); }
  /// Case `nth` (nullopt out of bounds).
  std::optional<Case> case_nth(size_t nth) const;
  /// Whether `other` is the same type.
  bool operator==(const VariantType &other) const { return weft_component_variant_type_equal(ptr.get(), other.ptr.get()); }
  /// Whether `other` is another type.
  bool operator!=(const VariantType &other) const { return !(*this == other); }
  /// The C object.
  const weft_component_variant_type_t *capi() const { return ptr.get(); }
};

/// An `enum` type. Copies clone; a moved-from object is empty.
class EnumType {
  struct Deleter {
    void operator()(weft_component_enum_type_t *t) const { weft_component_enum_type_delete(t); }
  };
  std::unique_ptr<weft_component_enum_type_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit EnumType(weft_component_enum_type_t *raw) : ptr(raw) {}
  /// A copy.
  EnumType(const EnumType &other) : ptr(other.ptr ? weft_component_enum_type_clone(other.ptr.get()) : nullptr) {}
  /// A copy.
  EnumType &operator=(const EnumType &other) {
    if (this != &other)
      ptr.reset(other.ptr ? weft_component_enum_type_clone(other.ptr.get()) : nullptr);
    return *this;
  }
  /// Moves.
  EnumType(EnumType &&) = default;
  /// Moves.
  EnumType &operator=(EnumType &&) = default;
  /// The number of names.
  size_t names_count() const { return weft_component_enum_type_names_count(ptr.get()); }
  /// Name `nth`, valid as long as this type (nullopt out of bounds).
  std::optional<std::string_view> names_nth(size_t nth) const {
    const char *name = nullptr;
    size_t len = 0;
    if (!weft_component_enum_type_names_nth(ptr.get(), nth, &name, &len))
      return std::nullopt;
    return std::string_view(name, len);
  }
  /// Whether `other` is the same type.
  bool operator==(const EnumType &other) const { return weft_component_enum_type_equal(ptr.get(), other.ptr.get()); }
  /// Whether `other` is another type.
  bool operator!=(const EnumType &other) const { return !(*this == other); }
  /// The C object.
  const weft_component_enum_type_t *capi() const { return ptr.get(); }
};

/// An `option` type. Copies clone; a moved-from object is empty.
class OptionType {
  struct Deleter {
    void operator()(weft_component_option_type_t *t) const { weft_component_option_type_delete(t); }
  };
  std::unique_ptr<weft_component_option_type_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit OptionType(weft_component_option_type_t *raw) : ptr(raw) {}
  /// A copy.
  OptionType(const OptionType &other) : ptr(other.ptr ? weft_component_option_type_clone(other.ptr.get()) : nullptr) {}
  /// A copy.
  OptionType &operator=(const OptionType &other) {
    if (this != &other)
      ptr.reset(other.ptr ? weft_component_option_type_clone(other.ptr.get()) : nullptr);
    return *this;
  }
  /// Moves.
  OptionType(OptionType &&) = default;
  /// Moves.
  OptionType &operator=(OptionType &&) = default;
  /// The type of the payload.
  ValType ty() const;
  /// Whether `other` is the same type.
  bool operator==(const OptionType &other) const { return weft_component_option_type_equal(ptr.get(), other.ptr.get()); }
  /// Whether `other` is another type.
  bool operator!=(const OptionType &other) const { return !(*this == other); }
  /// The C object.
  const weft_component_option_type_t *capi() const { return ptr.get(); }
};

/// A `result` type. Copies clone; a moved-from object is empty.
class ResultType {
  struct Deleter {
    void operator()(weft_component_result_type_t *t) const { weft_component_result_type_delete(t); }
  };
  std::unique_ptr<weft_component_result_type_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit ResultType(weft_component_result_type_t *raw) : ptr(raw) {}
  /// A copy.
  ResultType(const ResultType &other) : ptr(other.ptr ? weft_component_result_type_clone(other.ptr.get()) : nullptr) {}
  /// A copy.
  ResultType &operator=(const ResultType &other) {
    if (this != &other)
      ptr.reset(other.ptr ? weft_component_result_type_clone(other.ptr.get()) : nullptr);
    return *this;
  }
  /// Moves.
  ResultType(ResultType &&) = default;
  /// Moves.
  ResultType &operator=(ResultType &&) = default;
  /// The type of the `ok` payload, if any.
  std::optional<ValType> ok() const;
  /// The type of the `err` payload, if any.
  std::optional<ValType> err() const;
  /// Whether `other` is the same type.
  bool operator==(const ResultType &other) const { return weft_component_result_type_equal(ptr.get(), other.ptr.get()); }
  /// Whether `other` is another type.
  bool operator!=(const ResultType &other) const { return !(*this == other); }
  /// The C object.
  const weft_component_result_type_t *capi() const { return ptr.get(); }
};

/// A `flags` type. Copies clone; a moved-from object is empty.
class FlagsType {
  struct Deleter {
    void operator()(weft_component_flags_type_t *t) const { weft_component_flags_type_delete(t); }
  };
  std::unique_ptr<weft_component_flags_type_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit FlagsType(weft_component_flags_type_t *raw) : ptr(raw) {}
  /// A copy.
  FlagsType(const FlagsType &other) : ptr(other.ptr ? weft_component_flags_type_clone(other.ptr.get()) : nullptr) {}
  /// A copy.
  FlagsType &operator=(const FlagsType &other) {
    if (this != &other)
      ptr.reset(other.ptr ? weft_component_flags_type_clone(other.ptr.get()) : nullptr);
    return *this;
  }
  /// Moves.
  FlagsType(FlagsType &&) = default;
  /// Moves.
  FlagsType &operator=(FlagsType &&) = default;
  /// The number of flags.
  size_t names_count() const { return weft_component_flags_type_names_count(ptr.get()); }
  /// Flag `nth`, valid as long as this type (nullopt out of bounds).
  std::optional<std::string_view> names_nth(size_t nth) const {
    const char *name = nullptr;
    size_t len = 0;
    if (!weft_component_flags_type_names_nth(ptr.get(), nth, &name, &len))
      return std::nullopt;
    return std::string_view(name, len);
  }
  /// Whether `other` is the same type.
  bool operator==(const FlagsType &other) const { return weft_component_flags_type_equal(ptr.get(), other.ptr.get()); }
  /// Whether `other` is another type.
  bool operator!=(const FlagsType &other) const { return !(*this == other); }
  /// The C object.
  const weft_component_flags_type_t *capi() const { return ptr.get(); }
};

/// A `future` type. Copies clone; a moved-from object is empty.
class FutureType {
  struct Deleter {
    void operator()(weft_component_future_type_t *t) const { weft_component_future_type_delete(t); }
  };
  std::unique_ptr<weft_component_future_type_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit FutureType(weft_component_future_type_t *raw) : ptr(raw) {}
  /// A copy.
  FutureType(const FutureType &other) : ptr(other.ptr ? weft_component_future_type_clone(other.ptr.get()) : nullptr) {}
  /// A copy.
  FutureType &operator=(const FutureType &other) {
    if (this != &other)
      ptr.reset(other.ptr ? weft_component_future_type_clone(other.ptr.get()) : nullptr);
    return *this;
  }
  /// Moves.
  FutureType(FutureType &&) = default;
  /// Moves.
  FutureType &operator=(FutureType &&) = default;
  /// The type of the value, if any.
  std::optional<ValType> ty() const;
  /// Whether `other` is the same type.
  bool operator==(const FutureType &other) const { return weft_component_future_type_equal(ptr.get(), other.ptr.get()); }
  /// Whether `other` is another type.
  bool operator!=(const FutureType &other) const { return !(*this == other); }
  /// The C object.
  const weft_component_future_type_t *capi() const { return ptr.get(); }
};

/// A `stream` type. Copies clone; a moved-from object is empty.
class StreamType {
  struct Deleter {
    void operator()(weft_component_stream_type_t *t) const { weft_component_stream_type_delete(t); }
  };
  std::unique_ptr<weft_component_stream_type_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit StreamType(weft_component_stream_type_t *raw) : ptr(raw) {}
  /// A copy.
  StreamType(const StreamType &other) : ptr(other.ptr ? weft_component_stream_type_clone(other.ptr.get()) : nullptr) {}
  /// A copy.
  StreamType &operator=(const StreamType &other) {
    if (this != &other)
      ptr.reset(other.ptr ? weft_component_stream_type_clone(other.ptr.get()) : nullptr);
    return *this;
  }
  /// Moves.
  StreamType(StreamType &&) = default;
  /// Moves.
  StreamType &operator=(StreamType &&) = default;
  /// The type of the elements, if any.
  std::optional<ValType> ty() const;
  /// Whether `other` is the same type.
  bool operator==(const StreamType &other) const { return weft_component_stream_type_equal(ptr.get(), other.ptr.get()); }
  /// Whether `other` is another type.
  bool operator!=(const StreamType &other) const { return !(*this == other); }
  /// The C object.
  const weft_component_stream_type_t *capi() const { return ptr.get(); }
};

/// A `map` type. Copies clone; a moved-from object is empty.
class MapType {
  struct Deleter {
    void operator()(weft_component_map_type_t *t) const { weft_component_map_type_delete(t); }
  };
  std::unique_ptr<weft_component_map_type_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit MapType(weft_component_map_type_t *raw) : ptr(raw) {}
  /// A copy.
  MapType(const MapType &other) : ptr(other.ptr ? weft_component_map_type_clone(other.ptr.get()) : nullptr) {}
  /// A copy.
  MapType &operator=(const MapType &other) {
    if (this != &other)
      ptr.reset(other.ptr ? weft_component_map_type_clone(other.ptr.get()) : nullptr);
    return *this;
  }
  /// Moves.
  MapType(MapType &&) = default;
  /// Moves.
  MapType &operator=(MapType &&) = default;
  /// The type of the keys.
  ValType key() const;
  /// The type of the values.
  ValType value() const;
  /// Whether `other` is the same type.
  bool operator==(const MapType &other) const { return weft_component_map_type_equal(ptr.get(), other.ptr.get()); }
  /// Whether `other` is another type.
  bool operator!=(const MapType &other) const { return !(*this == other); }
  /// The C object.
  const weft_component_map_type_t *capi() const { return ptr.get(); }
};

/// A component value type (`weft_component_valtype_t`). Copies clone; a
/// moved-from type is `bool`.
class ValType {
  weft_component_valtype_t ty;

  static weft_component_valtype_t prim(weft_component_valtype_kind_t kind) {
    weft_component_valtype_t t;
    t.kind = kind;
    t.of.list = nullptr;
    return t;
  }

public:
  /// Takes ownership of the C type `raw`.
  explicit ValType(weft_component_valtype_t raw) : ty(raw) {}
  /// A copy.
  ValType(const ValType &other) { weft_component_valtype_clone(&other.ty, &ty); }
  /// A copy.
  ValType &operator=(const ValType &other) {
    if (this != &other) {
      weft_component_valtype_delete(&ty);
      weft_component_valtype_clone(&other.ty, &ty);
    }
    return *this;
  }
  /// Takes `other`'s type, leaving it `bool`.
  ValType(ValType &&other) noexcept : ty(other.ty) { other.ty = prim(WEFT_COMPONENT_VALTYPE_BOOL); }
  /// Takes `other`'s type, leaving it `bool`.
  ValType &operator=(ValType &&other) noexcept {
    if (this != &other) {
      weft_component_valtype_delete(&ty);
      ty = other.ty;
      other.ty = prim(WEFT_COMPONENT_VALTYPE_BOOL);
    }
    return *this;
  }
  ~ValType() { weft_component_valtype_delete(&ty); }
  /// `bool`.
  static ValType new_bool() { return ValType(prim(WEFT_COMPONENT_VALTYPE_BOOL)); }
  /// `s8`.
  static ValType new_s8() { return ValType(prim(WEFT_COMPONENT_VALTYPE_S8)); }
  /// `s16`.
  static ValType new_s16() { return ValType(prim(WEFT_COMPONENT_VALTYPE_S16)); }
  /// `s32`.
  static ValType new_s32() { return ValType(prim(WEFT_COMPONENT_VALTYPE_S32)); }
  /// `s64`.
  static ValType new_s64() { return ValType(prim(WEFT_COMPONENT_VALTYPE_S64)); }
  /// `u8`.
  static ValType new_u8() { return ValType(prim(WEFT_COMPONENT_VALTYPE_U8)); }
  /// `u16`.
  static ValType new_u16() { return ValType(prim(WEFT_COMPONENT_VALTYPE_U16)); }
  /// `u32`.
  static ValType new_u32() { return ValType(prim(WEFT_COMPONENT_VALTYPE_U32)); }
  /// `u64`.
  static ValType new_u64() { return ValType(prim(WEFT_COMPONENT_VALTYPE_U64)); }
  /// `f32`.
  static ValType new_f32() { return ValType(prim(WEFT_COMPONENT_VALTYPE_F32)); }
  /// `f64`.
  static ValType new_f64() { return ValType(prim(WEFT_COMPONENT_VALTYPE_F64)); }
  /// `char`.
  static ValType new_char() { return ValType(prim(WEFT_COMPONENT_VALTYPE_CHAR)); }
  /// `string`.
  static ValType new_string() { return ValType(prim(WEFT_COMPONENT_VALTYPE_STRING)); }
  /// `error-context`.
  static ValType new_error_context() { return ValType(prim(WEFT_COMPONENT_VALTYPE_ERROR_CONTEXT)); }
  /// `own<ty>`.
  static ValType new_own(const ResourceType &ty) {
    weft_component_valtype_t t = prim(WEFT_COMPONENT_VALTYPE_OWN);
    t.of.own = weft_component_resource_type_clone(ty.capi());
    return ValType(t);
  }
  /// `borrow<ty>`.
  static ValType new_borrow(const ResourceType &ty) {
    weft_component_valtype_t t = prim(WEFT_COMPONENT_VALTYPE_BORROW);
    t.of.borrow = weft_component_resource_type_clone(ty.capi());
    return ValType(t);
  }
  /// The `list` type `ty`.
  ValType(const ListType &ty) : ty(prim(WEFT_COMPONENT_VALTYPE_LIST)) {
    this->ty.of.list = ty.capi() ? weft_component_list_type_clone(ty.capi()) : nullptr;
  }
  /// The `record` type `ty`.
  ValType(const RecordType &ty) : ty(prim(WEFT_COMPONENT_VALTYPE_RECORD)) {
    this->ty.of.record = ty.capi() ? weft_component_record_type_clone(ty.capi()) : nullptr;
  }
  /// The `tuple` type `ty`.
  ValType(const TupleType &ty) : ty(prim(WEFT_COMPONENT_VALTYPE_TUPLE)) {
    this->ty.of.tuple = ty.capi() ? weft_component_tuple_type_clone(ty.capi()) : nullptr;
  }
  /// The `variant` type `ty`.
  ValType(const VariantType &ty) : ty(prim(WEFT_COMPONENT_VALTYPE_VARIANT)) {
    this->ty.of.variant = ty.capi() ? weft_component_variant_type_clone(ty.capi()) : nullptr;
  }
  /// The `enum` type `ty`.
  ValType(const EnumType &ty) : ty(prim(WEFT_COMPONENT_VALTYPE_ENUM)) {
    this->ty.of.enum_ = ty.capi() ? weft_component_enum_type_clone(ty.capi()) : nullptr;
  }
  /// The `option` type `ty`.
  ValType(const OptionType &ty) : ty(prim(WEFT_COMPONENT_VALTYPE_OPTION)) {
    this->ty.of.option = ty.capi() ? weft_component_option_type_clone(ty.capi()) : nullptr;
  }
  /// The `result` type `ty`.
  ValType(const ResultType &ty) : ty(prim(WEFT_COMPONENT_VALTYPE_RESULT)) {
    this->ty.of.result = ty.capi() ? weft_component_result_type_clone(ty.capi()) : nullptr;
  }
  /// The `flags` type `ty`.
  ValType(const FlagsType &ty) : ty(prim(WEFT_COMPONENT_VALTYPE_FLAGS)) {
    this->ty.of.flags = ty.capi() ? weft_component_flags_type_clone(ty.capi()) : nullptr;
  }
  /// The `future` type `ty`.
  ValType(const FutureType &ty) : ty(prim(WEFT_COMPONENT_VALTYPE_FUTURE)) {
    this->ty.of.future = ty.capi() ? weft_component_future_type_clone(ty.capi()) : nullptr;
  }
  /// The `stream` type `ty`.
  ValType(const StreamType &ty) : ty(prim(WEFT_COMPONENT_VALTYPE_STREAM)) {
    this->ty.of.stream = ty.capi() ? weft_component_stream_type_clone(ty.capi()) : nullptr;
  }
  /// The `map` type `ty`.
  ValType(const MapType &ty) : ty(prim(WEFT_COMPONENT_VALTYPE_MAP)) {
    this->ty.of.map = ty.capi() ? weft_component_map_type_clone(ty.capi()) : nullptr;
  }
  /// The kind (`WEFT_COMPONENT_VALTYPE_*`).
  weft_component_valtype_kind_t kind() const { return ty.kind; }
  /// Whether it is `bool`.
  bool is_bool() const { return ty.kind == WEFT_COMPONENT_VALTYPE_BOOL; }
  /// Whether it is `s8`.
  bool is_s8() const { return ty.kind == WEFT_COMPONENT_VALTYPE_S8; }
  /// Whether it is `s16`.
  bool is_s16() const { return ty.kind == WEFT_COMPONENT_VALTYPE_S16; }
  /// Whether it is `s32`.
  bool is_s32() const { return ty.kind == WEFT_COMPONENT_VALTYPE_S32; }
  /// Whether it is `s64`.
  bool is_s64() const { return ty.kind == WEFT_COMPONENT_VALTYPE_S64; }
  /// Whether it is `u8`.
  bool is_u8() const { return ty.kind == WEFT_COMPONENT_VALTYPE_U8; }
  /// Whether it is `u16`.
  bool is_u16() const { return ty.kind == WEFT_COMPONENT_VALTYPE_U16; }
  /// Whether it is `u32`.
  bool is_u32() const { return ty.kind == WEFT_COMPONENT_VALTYPE_U32; }
  /// Whether it is `u64`.
  bool is_u64() const { return ty.kind == WEFT_COMPONENT_VALTYPE_U64; }
  /// Whether it is `f32`.
  bool is_f32() const { return ty.kind == WEFT_COMPONENT_VALTYPE_F32; }
  /// Whether it is `f64`.
  bool is_f64() const { return ty.kind == WEFT_COMPONENT_VALTYPE_F64; }
  /// Whether it is `char`.
  bool is_char() const { return ty.kind == WEFT_COMPONENT_VALTYPE_CHAR; }
  /// Whether it is `string`.
  bool is_string() const { return ty.kind == WEFT_COMPONENT_VALTYPE_STRING; }
  /// Whether it is `list`.
  bool is_list() const { return ty.kind == WEFT_COMPONENT_VALTYPE_LIST; }
  /// Whether it is `record`.
  bool is_record() const { return ty.kind == WEFT_COMPONENT_VALTYPE_RECORD; }
  /// Whether it is `tuple`.
  bool is_tuple() const { return ty.kind == WEFT_COMPONENT_VALTYPE_TUPLE; }
  /// Whether it is `variant`.
  bool is_variant() const { return ty.kind == WEFT_COMPONENT_VALTYPE_VARIANT; }
  /// Whether it is `enum`.
  bool is_enum() const { return ty.kind == WEFT_COMPONENT_VALTYPE_ENUM; }
  /// Whether it is `option`.
  bool is_option() const { return ty.kind == WEFT_COMPONENT_VALTYPE_OPTION; }
  /// Whether it is `result`.
  bool is_result() const { return ty.kind == WEFT_COMPONENT_VALTYPE_RESULT; }
  /// Whether it is `flags`.
  bool is_flags() const { return ty.kind == WEFT_COMPONENT_VALTYPE_FLAGS; }
  /// Whether it is `own`.
  bool is_own() const { return ty.kind == WEFT_COMPONENT_VALTYPE_OWN; }
  /// Whether it is `borrow`.
  bool is_borrow() const { return ty.kind == WEFT_COMPONENT_VALTYPE_BORROW; }
  /// Whether it is `future`.
  bool is_future() const { return ty.kind == WEFT_COMPONENT_VALTYPE_FUTURE; }
  /// Whether it is `stream`.
  bool is_stream() const { return ty.kind == WEFT_COMPONENT_VALTYPE_STREAM; }
  /// Whether it is `error-context`.
  bool is_error_context() const { return ty.kind == WEFT_COMPONENT_VALTYPE_ERROR_CONTEXT; }
  /// Whether it is `map`.
  bool is_map() const { return ty.kind == WEFT_COMPONENT_VALTYPE_MAP; }
  /// The `list` type, owned by this type (as in Wasmtime 48; an empty one for another
  /// kind, where Wasmtime 48 asserts).
  const ListType &list() const { return weft::detail::owner_or_empty<ListType>(is_list(), ty.of.list); }
  /// The `record` type, owned by this type (as in Wasmtime 48; an empty one for another
  /// kind, where Wasmtime 48 asserts).
  const RecordType &record() const { return weft::detail::owner_or_empty<RecordType>(is_record(), ty.of.record); }
  /// The `tuple` type, owned by this type (as in Wasmtime 48; an empty one for another
  /// kind, where Wasmtime 48 asserts).
  const TupleType &tuple() const { return weft::detail::owner_or_empty<TupleType>(is_tuple(), ty.of.tuple); }
  /// The `variant` type, owned by this type (as in Wasmtime 48; an empty one for another
  /// kind, where Wasmtime 48 asserts).
  const VariantType &variant() const { return weft::detail::owner_or_empty<VariantType>(is_variant(), ty.of.variant); }
  /// The `enum` type, owned by this type (as in Wasmtime 48; an empty one for another
  /// kind, where Wasmtime 48 asserts).
  const EnumType &enum_() const { return weft::detail::owner_or_empty<EnumType>(is_enum(), ty.of.enum_); }
  /// The `option` type, owned by this type (as in Wasmtime 48; an empty one for another
  /// kind, where Wasmtime 48 asserts).
  const OptionType &option() const { return weft::detail::owner_or_empty<OptionType>(is_option(), ty.of.option); }
  /// The `result` type, owned by this type (as in Wasmtime 48; an empty one for another
  /// kind, where Wasmtime 48 asserts).
  const ResultType &result() const { return weft::detail::owner_or_empty<ResultType>(is_result(), ty.of.result); }
  /// The `flags` type, owned by this type (as in Wasmtime 48; an empty one for another
  /// kind, where Wasmtime 48 asserts).
  const FlagsType &flags() const { return weft::detail::owner_or_empty<FlagsType>(is_flags(), ty.of.flags); }
  /// The `future` type, owned by this type (as in Wasmtime 48; an empty one for another
  /// kind, where Wasmtime 48 asserts).
  const FutureType &future() const { return weft::detail::owner_or_empty<FutureType>(is_future(), ty.of.future); }
  /// The `stream` type, owned by this type (as in Wasmtime 48; an empty one for another
  /// kind, where Wasmtime 48 asserts).
  const StreamType &stream() const { return weft::detail::owner_or_empty<StreamType>(is_stream(), ty.of.stream); }
  /// The `map` type, owned by this type (as in Wasmtime 48; an empty one for another
  /// kind, where Wasmtime 48 asserts).
  const MapType &map() const { return weft::detail::owner_or_empty<MapType>(is_map(), ty.of.map); }
  /// The resource type of `own`, owned by this type (as in Wasmtime 48; an empty one for another
  /// kind, where Wasmtime 48 asserts).
  const ResourceType &own() const { return weft::detail::owner_or_empty<ResourceType>(is_own(), ty.of.own); }
  /// The resource type of `borrow`, owned by this type (as in Wasmtime 48; an empty one for another
  /// kind, where Wasmtime 48 asserts).
  const ResourceType &borrow() const { return weft::detail::owner_or_empty<ResourceType>(is_borrow(), ty.of.borrow); }
  /// Whether `other` is the same type.
  bool operator==(const ValType &other) const { return weft_component_valtype_equal(&ty, &other.ty); }
  /// Whether `other` is another type.
  bool operator!=(const ValType &other) const { return !(*this == other); }
  /// The C type, still owned by this object.
  const weft_component_valtype_t *capi() const { return &ty; }
  /// The C type, still owned by this object.
  weft_component_valtype_t *capi() { return &ty; }
};

/// A case of a variant: its name (valid as long as the variant type) and
/// payload type, if any.
struct VariantType::Case {
  /// The name.
  std::string_view name;
  /// The payload type, if any.
  std::optional<ValType> payload;
};

inline ValType ListType::element() const {
  weft_component_valtype_t t;
  weft_component_list_type_element(ptr.get(), &t);
  return ValType(t);
}
inline std::optional<std::pair<std::string_view, ValType>> RecordType::field_nth(size_t nth) const {
  const char *name = nullptr;
  size_t len = 0;
  weft_component_valtype_t t;
  if (!weft_component_record_type_field_nth(ptr.get(), nth, &name, &len, &t))
    return std::nullopt;
  return std::make_pair(std::string_view(name, len), ValType(t));
}
inline std::optional<ValType> TupleType::types_nth(size_t nth) const {
  weft_component_valtype_t t;
  if (!weft_component_tuple_type_types_nth(ptr.get(), nth, &t))
    return std::nullopt;
  return ValType(t);
}
inline std::optional<VariantType::Case> VariantType::case_nth(size_t nth) const {
  const char *name = nullptr;
  size_t len = 0;
  bool has_payload = false;
  weft_component_valtype_t t;
  if (!weft_component_variant_type_case_nth(ptr.get(), nth, &name, &len, &has_payload, &t))
    return std::nullopt;
  Case c{std::string_view(name, len), std::nullopt};
  if (has_payload)
    c.payload = ValType(t);
  return c;
}
inline ValType OptionType::ty() const {
  weft_component_valtype_t t;
  weft_component_option_type_ty(ptr.get(), &t);
  return ValType(t);
}
inline std::optional<ValType> ResultType::ok() const {
  weft_component_valtype_t t;
  if (!weft_component_result_type_ok(ptr.get(), &t))
    return std::nullopt;
  return ValType(t);
}
inline std::optional<ValType> ResultType::err() const {
  weft_component_valtype_t t;
  if (!weft_component_result_type_err(ptr.get(), &t))
    return std::nullopt;
  return ValType(t);
}
inline std::optional<ValType> FutureType::ty() const {
  weft_component_valtype_t t;
  if (!weft_component_future_type_ty(ptr.get(), &t))
    return std::nullopt;
  return ValType(t);
}
inline std::optional<ValType> StreamType::ty() const {
  weft_component_valtype_t t;
  if (!weft_component_stream_type_ty(ptr.get(), &t))
    return std::nullopt;
  return ValType(t);
}
inline ValType MapType::key() const {
  weft_component_valtype_t t;
  weft_component_map_type_key(ptr.get(), &t);
  return ValType(t);
}
inline ValType MapType::value() const {
  weft_component_valtype_t t;
  weft_component_map_type_value(ptr.get(), &t);
  return ValType(t);
}

/// The type of a component function. Copies clone; a moved-from object is
/// empty.
class FuncType {
  struct Deleter {
    void operator()(weft_component_func_type_t *t) const { weft_component_func_type_delete(t); }
  };
  std::unique_ptr<weft_component_func_type_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit FuncType(weft_component_func_type_t *raw) : ptr(raw) {}
  /// A copy.
  FuncType(const FuncType &other) : ptr(other.ptr ? weft_component_func_type_clone(other.ptr.get()) : nullptr) {}
  /// A copy.
  FuncType &operator=(const FuncType &other) {
    if (this != &other)
      ptr.reset(other.ptr ? weft_component_func_type_clone(other.ptr.get()) : nullptr);
    return *this;
  }
  /// Moves.
  FuncType(FuncType &&) = default;
  /// Moves.
  FuncType &operator=(FuncType &&) = default;
  /// The number of parameters.
  size_t param_count() const { return weft_component_func_type_param_count(ptr.get()); }
  /// Whether it is an `async func`.
  bool async() const { return weft_component_func_type_async(ptr.get()); }
  /// Parameter `nth`: its name and type (nullopt out of bounds).
  std::optional<std::pair<std::string_view, ValType>> param_nth(size_t nth) const {
    const char *name = nullptr;
    size_t len = 0;
    weft_component_valtype_t t;
    if (!weft_component_func_type_param_nth(ptr.get(), nth, &name, &len, &t))
      return std::nullopt;
    return std::make_pair(std::string_view(name, len), ValType(t));
  }
  /// The result type, if the function has one.
  std::optional<ValType> result() const {
    weft_component_valtype_t t;
    if (!weft_component_func_type_result(ptr.get(), &t))
      return std::nullopt;
    return ValType(t);
  }
  /// The C object.
  const weft_component_func_type_t *capi() const { return ptr.get(); }
};

/// The type of a core module imported or exported by a component. Copies
/// clone; a moved-from object is empty.
class ModuleType {
  struct Deleter {
    void operator()(weft_module_type_t *t) const { weft_module_type_delete(t); }
  };
  std::unique_ptr<weft_module_type_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit ModuleType(weft_module_type_t *raw) : ptr(raw) {}
  /// A copy.
  ModuleType(const ModuleType &other) : ptr(other.ptr ? weft_module_type_clone(other.ptr.get()) : nullptr) {}
  /// A copy.
  ModuleType &operator=(const ModuleType &other) {
    if (this != &other)
      ptr.reset(other.ptr ? weft_module_type_clone(other.ptr.get()) : nullptr);
    return *this;
  }
  /// Moves.
  ModuleType(ModuleType &&) = default;
  /// Moves.
  ModuleType &operator=(ModuleType &&) = default;
  /// The number of imports.
  size_t import_count(const Engine &engine) const { return weft_module_type_import_count(ptr.get(), engine.capi()); }
  /// Import `nth` (nullopt out of bounds).
  std::optional<ImportType> import_nth(const Engine &engine, size_t nth) const {
    wasm_importtype_t *t = weft_module_type_import_nth(ptr.get(), engine.capi(), nth);
    if (!t)
      return std::nullopt;
    return ImportType(t);
  }
  /// The number of exports.
  size_t export_count(const Engine &engine) const { return weft_module_type_export_count(ptr.get(), engine.capi()); }
  /// Export `nth` (nullopt out of bounds).
  std::optional<ExportType> export_nth(const Engine &engine, size_t nth) const {
    wasm_exporttype_t *t = weft_module_type_export_nth(ptr.get(), engine.capi(), nth);
    if (!t)
      return std::nullopt;
    return ExportType(t);
  }
  /// The C object.
  const weft_module_type_t *capi() const { return ptr.get(); }
};

class ComponentItem;

/// The type of a component instance. Copies clone; a moved-from object is
/// empty.
class ComponentInstanceType {
  struct Deleter {
    void operator()(weft_component_instance_type_t *t) const { weft_component_instance_type_delete(t); }
  };
  std::unique_ptr<weft_component_instance_type_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit ComponentInstanceType(weft_component_instance_type_t *raw) : ptr(raw) {}
  /// A copy.
  ComponentInstanceType(const ComponentInstanceType &other)
      : ptr(other.ptr ? weft_component_instance_type_clone(other.ptr.get()) : nullptr) {}
  /// A copy.
  ComponentInstanceType &operator=(const ComponentInstanceType &other) {
    if (this != &other)
      ptr.reset(other.ptr ? weft_component_instance_type_clone(other.ptr.get()) : nullptr);
    return *this;
  }
  /// Moves.
  ComponentInstanceType(ComponentInstanceType &&) = default;
  /// Moves.
  ComponentInstanceType &operator=(ComponentInstanceType &&) = default;
  /// The number of exports.
  size_t export_count(const Engine &engine) const {
    return weft_component_instance_type_export_count(ptr.get(), engine.capi());
  }
  /// The export `name`, if any.
  std::optional<ComponentItem> export_get(const Engine &engine, std::string_view name) const;
  /// Export `nth`: its name and type (nullopt out of bounds).
  std::optional<std::pair<std::string_view, ComponentItem>> export_nth(const Engine &engine, size_t nth) const;
  /// The C object.
  const weft_component_instance_type_t *capi() const { return ptr.get(); }
};

/// The type of a component. Copies clone; a moved-from object is empty.
class ComponentType {
  struct Deleter {
    void operator()(weft_component_type_t *t) const { weft_component_type_delete(t); }
  };
  std::unique_ptr<weft_component_type_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit ComponentType(weft_component_type_t *raw) : ptr(raw) {}
  /// A copy.
  ComponentType(const ComponentType &other)
      : ptr(other.ptr ? weft_component_type_clone(other.ptr.get()) : nullptr) {}
  /// A copy.
  ComponentType &operator=(const ComponentType &other) {
    if (this != &other)
      ptr.reset(other.ptr ? weft_component_type_clone(other.ptr.get()) : nullptr);
    return *this;
  }
  /// Moves.
  ComponentType(ComponentType &&) = default;
  /// Moves.
  ComponentType &operator=(ComponentType &&) = default;
  /// The number of imports.
  size_t import_count(const Engine &engine) const { return weft_component_type_import_count(ptr.get(), engine.capi()); }
  /// The import `name`, if any.
  std::optional<ComponentItem> import_get(const Engine &engine, std::string_view name) const;
  /// Import `nth`: its name and type (nullopt out of bounds).
  std::optional<std::pair<std::string_view, ComponentItem>> import_nth(const Engine &engine, size_t nth) const;
  /// The number of exports.
  size_t export_count(const Engine &engine) const { return weft_component_type_export_count(ptr.get(), engine.capi()); }
  /// The export `name`, if any.
  std::optional<ComponentItem> export_get(const Engine &engine, std::string_view name) const;
  /// Export `nth`: its name and type (nullopt out of bounds).
  std::optional<std::pair<std::string_view, ComponentItem>> export_nth(const Engine &engine, size_t nth) const;
  /// The C object.
  const weft_component_type_t *capi() const { return ptr.get(); }
};

/// The type of an import or export of a component: a component, a
/// component instance, a core module, a component function, a resource, a
/// core function or a value type. Copies clone; a moved-from item is the
/// type `bool`.
class ComponentItem {
  weft_component_item_t item;

  static weft_component_item_t empty() {
    weft_component_item_t i;
    i.kind = WEFT_COMPONENT_ITEM_TYPE;
    i.of.type.kind = WEFT_COMPONENT_VALTYPE_BOOL;
    i.of.type.of.list = nullptr;
    return i;
  }

public:
  /// Takes ownership of the C item `raw`.
  explicit ComponentItem(weft_component_item_t raw) : item(raw) {}
  /// A copy.
  ComponentItem(const ComponentItem &other) { weft_component_item_clone(&other.item, &item); }
  /// A copy.
  ComponentItem &operator=(const ComponentItem &other) {
    if (this != &other) {
      weft_component_item_delete(&item);
      weft_component_item_clone(&other.item, &item);
    }
    return *this;
  }
  /// Takes `other`'s item.
  ComponentItem(ComponentItem &&other) noexcept : item(other.item) { other.item = empty(); }
  /// Takes `other`'s item.
  ComponentItem &operator=(ComponentItem &&other) noexcept {
    if (this != &other) {
      weft_component_item_delete(&item);
      item = other.item;
      other.item = empty();
    }
    return *this;
  }
  ~ComponentItem() { weft_component_item_delete(&item); }
  /// The kind (`WEFT_COMPONENT_ITEM_*`).
  weft_component_item_kind_t kind() const { return item.kind; }
  /// Whether it is a component.
  bool is_component() const { return item.kind == WEFT_COMPONENT_ITEM_COMPONENT; }
  /// Whether it is a component instance.
  bool is_component_instance() const { return item.kind == WEFT_COMPONENT_ITEM_COMPONENT_INSTANCE; }
  /// Whether it is a core module.
  bool is_module() const { return item.kind == WEFT_COMPONENT_ITEM_MODULE; }
  /// Whether it is a component function.
  bool is_component_func() const { return item.kind == WEFT_COMPONENT_ITEM_COMPONENT_FUNC; }
  /// Whether it is a resource.
  bool is_resource() const { return item.kind == WEFT_COMPONENT_ITEM_RESOURCE; }
  /// Whether it is a core function.
  bool is_core_func() const { return item.kind == WEFT_COMPONENT_ITEM_CORE_FUNC; }
  /// Whether it is a value type.
  bool is_type() const { return item.kind == WEFT_COMPONENT_ITEM_TYPE; }
  /// The component type, owned by this item (as in Wasmtime 48; an empty
  /// one for another kind, where Wasmtime 48 asserts).
  const ComponentType &component() const { return weft::detail::owner_or_empty<ComponentType>(is_component(), item.of.component); }
  /// The component instance type, owned by this item (as in Wasmtime 48;
  /// an empty one for another kind, where Wasmtime 48 asserts).
  const ComponentInstanceType &component_instance() const {
    return weft::detail::owner_or_empty<ComponentInstanceType>(is_component_instance(), item.of.component_instance);
  }
  /// The module type, owned by this item (as in Wasmtime 48; an empty one
  /// for another kind, where Wasmtime 48 asserts).
  const ModuleType &module() const { return weft::detail::owner_or_empty<ModuleType>(is_module(), item.of.module); }
  /// The component function type, owned by this item (as in Wasmtime 48;
  /// an empty one for another kind, where Wasmtime 48 asserts).
  const FuncType &component_func() const { return weft::detail::owner_or_empty<FuncType>(is_component_func(), item.of.component_func); }
  /// The resource type, owned by this item (as in Wasmtime 48; an empty one
  /// for another kind, where Wasmtime 48 asserts).
  const ResourceType &resource() const { return weft::detail::owner_or_empty<ResourceType>(is_resource(), item.of.resource); }
  /// The core function type, a view valid as long as this item (as in
  /// Wasmtime 48; a view of no type for another kind, where Wasmtime 48
  /// asserts).
  weft::FuncType::Ref core_func() const {
    return weft::FuncType::Ref(is_core_func() ? item.of.core_func : static_cast<const wasm_functype_t *>(nullptr));
  }
  /// The value type, owned by this item (as in Wasmtime 48; `bool` for
  /// another kind, where Wasmtime 48 asserts).
  const ValType &type() const {
    if (is_type())
      return weft::detail::owner_of<ValType>(item.of.type);
    static const ValType none = ValType::new_bool();
    return none;
  }
  /// The C item, still owned by this object.
  const weft_component_item_t &capi() const { return item; }
};

namespace detail {
inline std::optional<ComponentItem> item_of(bool found, weft_component_item_t raw) {
  if (!found)
    return std::nullopt;
  return ComponentItem(raw);
}
inline std::optional<std::pair<std::string_view, ComponentItem>> named_item_of(bool found, const char *name,
                                                                               size_t len, weft_component_item_t raw) {
  if (!found)
    return std::nullopt;
  return std::make_pair(std::string_view(name, len), ComponentItem(raw));
}
} // namespace detail

inline std::optional<ComponentItem> ComponentInstanceType::export_get(const Engine &engine,
                                                                      std::string_view name) const {
  weft_component_item_t raw;
  bool found = weft_component_instance_type_export_get(ptr.get(), engine.capi(), name.data(), name.size(), &raw);
  return detail::item_of(found, raw);
}
inline std::optional<std::pair<std::string_view, ComponentItem>>
ComponentInstanceType::export_nth(const Engine &engine, size_t nth) const {
  const char *name = nullptr;
  size_t len = 0;
  weft_component_item_t raw;
  bool found = weft_component_instance_type_export_nth(ptr.get(), engine.capi(), nth, &name, &len, &raw);
  return detail::named_item_of(found, name, len, raw);
}
inline std::optional<ComponentItem> ComponentType::import_get(const Engine &engine, std::string_view name) const {
  weft_component_item_t raw;
  bool found = weft_component_type_import_get(ptr.get(), engine.capi(), name.data(), name.size(), &raw);
  return detail::item_of(found, raw);
}
inline std::optional<std::pair<std::string_view, ComponentItem>> ComponentType::import_nth(const Engine &engine,
                                                                                         size_t nth) const {
  const char *name = nullptr;
  size_t len = 0;
  weft_component_item_t raw;
  bool found = weft_component_type_import_nth(ptr.get(), engine.capi(), nth, &name, &len, &raw);
  return detail::named_item_of(found, name, len, raw);
}
inline std::optional<ComponentItem> ComponentType::export_get(const Engine &engine, std::string_view name) const {
  weft_component_item_t raw;
  bool found = weft_component_type_export_get(ptr.get(), engine.capi(), name.data(), name.size(), &raw);
  return detail::item_of(found, raw);
}
inline std::optional<std::pair<std::string_view, ComponentItem>> ComponentType::export_nth(const Engine &engine,
                                                                                         size_t nth) const {
  const char *name = nullptr;
  size_t len = 0;
  weft_component_item_t raw;
  bool found = weft_component_type_export_nth(ptr.get(), engine.capi(), nth, &name, &len, &raw);
  return detail::named_item_of(found, name, len, raw);
}

} // namespace component
} // namespace weft

#endif // WEFT_COMPONENT_TYPES_HH
