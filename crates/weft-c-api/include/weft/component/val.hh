/**
 * \file weft/component/val.hh
 *
 * \brief C++ API: `Val`, a component value, and its aggregates `List`,
 * `Record` (of `RecordField`s), `Tuple`, `Variant`, `WitOption`,
 * `WitResult`, `Flag`, `Flags`, `Map` (of `MapEntry`s), and the resources
 * `ResourceAny` and `ResourceHost` (as Wasmtime 48's
 * `wasmtime/component/val.hh`).
 *
 * Each class owns its C payload (copies are deep, a moved-from object is
 * empty and safe to destroy) and has the layout of its C struct, so that
 * `Val::get_list()` and the like give views into the value.
 */

#ifndef WEFT_COMPONENT_VAL_HH
#define WEFT_COMPONENT_VAL_HH

#include <weft/component/types.hh>
#include <weft/store.hh>

namespace weft {
namespace component {

class Val;
class ResourceHost;
class List;
class Record;
class Tuple;
class Variant;
class WitOption;
class WitResult;
class Flags;
class Map;

/// A resource handle of a store (`own` or `borrow`). Copies are new handle
/// objects for the same resource; a moved-from object is empty.
class ResourceAny {
  friend class Val;
  weft_component_resource_any_t *ptr;

public:
  /// Takes ownership of `raw`.
  explicit ResourceAny(weft_component_resource_any_t *raw) : ptr(raw) {}
  /// Another handle object for the same resource.
  ResourceAny(const ResourceAny &other) : ptr(other.ptr ? weft_component_resource_any_clone(other.ptr) : nullptr) {}
  /// Another handle object for the same resource.
  ResourceAny &operator=(const ResourceAny &other) {
    if (this != &other) {
      weft_component_resource_any_delete(ptr);
      ptr = other.ptr ? weft_component_resource_any_clone(other.ptr) : nullptr;
    }
    return *this;
  }
  /// Takes `other`'s handle object.
  ResourceAny(ResourceAny &&other) noexcept : ptr(other.ptr) { other.ptr = nullptr; }
  /// Takes `other`'s handle object.
  ResourceAny &operator=(ResourceAny &&other) noexcept {
    if (this != &other) {
      weft_component_resource_any_delete(ptr);
      ptr = other.ptr;
      other.ptr = nullptr;
    }
    return *this;
  }
  ~ResourceAny() { weft_component_resource_any_delete(ptr); }
  /// Whether the handle is an `own` (else a `borrow`).
  bool owned() const { return weft_component_resource_any_owned(ptr); }
  /// The resource's type.
  ResourceType type() const { return ResourceType(weft_component_resource_any_type(ptr)); }
  /// Drops the resource (running its destructor for an `own` from a guest).
  Result<std::monostate> drop(Store::Context cx) const {
    if (weft_error_t *e = weft_component_resource_any_drop(cx.capi(), ptr))
      return Error(e);
    return std::monostate();
  }
  /// The host resource it holds (an error for a guest-defined resource).
  Result<ResourceHost> to_host(Store::Context cx) const;
  /// The C object.
  const weft_component_resource_any_t *capi() const { return ptr; }
};

/// A host resource: an `own` or `borrow`, a representation and a type
/// payload, all the host's. Copies are deep; a moved-from object is empty.
class ResourceHost {
  struct Deleter {
    void operator()(weft_component_resource_host_t *r) const { weft_component_resource_host_delete(r); }
  };
  std::unique_ptr<weft_component_resource_host_t, Deleter> ptr;

public:
  /// Takes ownership of `raw`.
  explicit ResourceHost(weft_component_resource_host_t *raw) : ptr(raw) {}
  /// A host resource of representation `rep` and type payload `ty` (as
  /// given to `ResourceType(uint32_t)`).
  ResourceHost(bool owned, uint32_t rep, uint32_t ty) : ptr(weft_component_resource_host_new(owned, rep, ty)) {}
  /// A copy.
  ResourceHost(const ResourceHost &other)
      : ptr(other.ptr ? weft_component_resource_host_clone(other.ptr.get()) : nullptr) {}
  /// A copy.
  ResourceHost &operator=(const ResourceHost &other) {
    if (this != &other)
      ptr.reset(other.ptr ? weft_component_resource_host_clone(other.ptr.get()) : nullptr);
    return *this;
  }
  /// Moves.
  ResourceHost(ResourceHost &&) = default;
  /// Moves.
  ResourceHost &operator=(ResourceHost &&) = default;
  /// Whether it is an `own`.
  bool owned() const { return weft_component_resource_host_owned(ptr.get()); }
  /// The representation.
  uint32_t rep() const { return weft_component_resource_host_rep(ptr.get()); }
  /// The type payload.
  uint32_t type() const { return weft_component_resource_host_type(ptr.get()); }
  /// The resource as a handle of the store of `cx`.
  Result<ResourceAny> to_any(Store::Context cx) const {
    weft_component_resource_any_t *out = nullptr;
    if (weft_error_t *e = weft_component_resource_host_to_any(cx.capi(), ptr.get(), &out))
      return Error(e);
    return ResourceAny(out);
  }
  /// The C object.
  const weft_component_resource_host_t *capi() const { return ptr.get(); }
};

inline Result<ResourceHost> ResourceAny::to_host(Store::Context cx) const {
  weft_component_resource_host_t *out = nullptr;
  if (weft_error_t *e = weft_component_resource_any_to_host(cx.capi(), ptr, &out))
    return Error(e);
  return ResourceHost(out);
}

/// The name of a set flag. Copies are deep; a moved-from flag is empty.
class Flag {
  wasm_name_t name_;

public:
  /// The flag `name`.
  explicit Flag(std::string_view name) { wasm_byte_vec_new(&name_, name.size(), name.data()); }
  /// A copy.
  Flag(const Flag &other) { wasm_byte_vec_copy(&name_, &other.name_); }
  /// A copy.
  Flag &operator=(const Flag &other) {
    if (this != &other) {
      wasm_byte_vec_delete(&name_);
      wasm_byte_vec_copy(&name_, &other.name_);
    }
    return *this;
  }
  /// Takes `other`'s name.
  Flag(Flag &&other) noexcept : name_(other.name_) { wasm_byte_vec_new_empty(&other.name_); }
  /// Takes `other`'s name.
  Flag &operator=(Flag &&other) noexcept {
    if (this != &other) {
      wasm_byte_vec_delete(&name_);
      name_ = other.name_;
      wasm_byte_vec_new_empty(&other.name_);
    }
    return *this;
  }
  ~Flag() { wasm_byte_vec_delete(&name_); }
  /// The name.
  std::string_view name() const { return std::string_view(name_.data, name_.size); }
  /// The C name.
  const wasm_name_t &capi() const { return name_; }
};

/// A component value (owning; layout-compatible with
/// `weft_component_val_t`). Copies are deep; a moved-from value is `false`.
class Val {
  weft_component_val_t raw;

  static weft_component_val_t *boxed(std::optional<Val> v) {
    if (!v)
      return nullptr;
    weft_component_val_t inner = v->release();
    return weft_component_val_new(&inner);
  }

public:
  /// `false`.
  Val() {
    raw.kind = WEFT_COMPONENT_BOOL;
    raw.of.boolean = false;
  }
  /// Takes the C value `v`.
  explicit Val(weft_component_val_t v) : raw(v) {}
  /// A `bool`.
  Val(bool v) {
    raw.kind = WEFT_COMPONENT_BOOL;
    raw.of.boolean = v;
  }
  /// An `s8`.
  Val(int8_t v) {
    raw.kind = WEFT_COMPONENT_S8;
    raw.of.s8 = v;
  }
  /// A `u8`.
  Val(uint8_t v) {
    raw.kind = WEFT_COMPONENT_U8;
    raw.of.u8 = v;
  }
  /// An `s16`.
  Val(int16_t v) {
    raw.kind = WEFT_COMPONENT_S16;
    raw.of.s16 = v;
  }
  /// A `u16`.
  Val(uint16_t v) {
    raw.kind = WEFT_COMPONENT_U16;
    raw.of.u16 = v;
  }
  /// An `s32`.
  Val(int32_t v) {
    raw.kind = WEFT_COMPONENT_S32;
    raw.of.s32 = v;
  }
  /// A `u32`.
  Val(uint32_t v) {
    raw.kind = WEFT_COMPONENT_U32;
    raw.of.u32 = v;
  }
  /// An `s64`.
  Val(int64_t v) {
    raw.kind = WEFT_COMPONENT_S64;
    raw.of.s64 = v;
  }
  /// A `u64`.
  Val(uint64_t v) {
    raw.kind = WEFT_COMPONENT_U64;
    raw.of.u64 = v;
  }
  /// A `f32`.
  Val(float v) {
    raw.kind = WEFT_COMPONENT_F32;
    raw.of.f32 = v;
  }
  /// A `f64`.
  Val(double v) {
    raw.kind = WEFT_COMPONENT_F64;
    raw.of.f64 = v;
  }
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
  /// A `list` (taken).
  Val(List list);
  /// A `record` (taken).
  Val(Record record);
  /// A `tuple` (taken).
  Val(Tuple tuple);
  /// A `variant` (taken).
  Val(Variant variant);
  /// An `option` (taken).
  Val(WitOption option);
  /// A `result` (taken).
  Val(WitResult result);
  /// A `flags` (taken).
  Val(Flags flags);
  /// A `map` (taken).
  Val(Map map);
  /// A resource (taken).
  Val(ResourceAny resource) {
    raw.kind = WEFT_COMPONENT_RESOURCE;
    raw.of.resource = resource.ptr;
    resource.ptr = nullptr;
  }
  /// A `list` of `items`.
  static Val list(std::vector<Val> items);
  /// A `record` of `fields`.
  static Val record(std::vector<std::pair<std::string_view, Val>> fields);
  /// An `option`: `some(payload)`, or `none` for nullopt.
  static Val option(std::optional<Val> payload);
  /// A deep copy.
  Val(const Val &other) { weft_component_val_clone(&other.raw, &raw); }
  /// A deep copy.
  Val &operator=(const Val &other) {
    if (this != &other) {
      weft_component_val_delete(&raw);
      weft_component_val_clone(&other.raw, &raw);
    }
    return *this;
  }
  /// Takes `other`'s value, leaving it `false`.
  Val(Val &&other) noexcept : raw(other.release()) {}
  /// Takes `other`'s value, leaving it `false`.
  Val &operator=(Val &&other) noexcept {
    if (this != &other) {
      weft_component_val_delete(&raw);
      raw = other.release();
    }
    return *this;
  }
  ~Val() { weft_component_val_delete(&raw); }
  /// Gives up the C value (the caller deletes it), leaving `false`.
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
  /// The `bool` (only for that kind).
  bool get_bool() const { return raw.of.boolean; }
  /// Whether it is a `s8`.
  bool is_s8() const { return raw.kind == WEFT_COMPONENT_S8; }
  /// The `s8` (only for that kind).
  int8_t get_s8() const { return raw.of.s8; }
  /// Whether it is a `u8`.
  bool is_u8() const { return raw.kind == WEFT_COMPONENT_U8; }
  /// The `u8` (only for that kind).
  uint8_t get_u8() const { return raw.of.u8; }
  /// Whether it is a `s16`.
  bool is_s16() const { return raw.kind == WEFT_COMPONENT_S16; }
  /// The `s16` (only for that kind).
  int16_t get_s16() const { return raw.of.s16; }
  /// Whether it is a `u16`.
  bool is_u16() const { return raw.kind == WEFT_COMPONENT_U16; }
  /// The `u16` (only for that kind).
  uint16_t get_u16() const { return raw.of.u16; }
  /// Whether it is a `s32`.
  bool is_s32() const { return raw.kind == WEFT_COMPONENT_S32; }
  /// The `s32` (only for that kind).
  int32_t get_s32() const { return raw.of.s32; }
  /// Whether it is a `u32`.
  bool is_u32() const { return raw.kind == WEFT_COMPONENT_U32; }
  /// The `u32` (only for that kind).
  uint32_t get_u32() const { return raw.of.u32; }
  /// Whether it is a `s64`.
  bool is_s64() const { return raw.kind == WEFT_COMPONENT_S64; }
  /// The `s64` (only for that kind).
  int64_t get_s64() const { return raw.of.s64; }
  /// Whether it is a `u64`.
  bool is_u64() const { return raw.kind == WEFT_COMPONENT_U64; }
  /// The `u64` (only for that kind).
  uint64_t get_u64() const { return raw.of.u64; }
  /// Whether it is a `f32`.
  bool is_f32() const { return raw.kind == WEFT_COMPONENT_F32; }
  /// The `f32` (only for that kind).
  float get_f32() const { return raw.of.f32; }
  /// Whether it is a `f64`.
  bool is_f64() const { return raw.kind == WEFT_COMPONENT_F64; }
  /// The `f64` (only for that kind).
  double get_f64() const { return raw.of.f64; }
  /// Whether it is a `char`.
  bool is_char() const { return raw.kind == WEFT_COMPONENT_CHAR; }
  /// The `char` (only for that kind).
  uint32_t get_char() const { return raw.of.character; }
  /// Whether it is a `string`.
  bool is_string() const { return raw.kind == WEFT_COMPONENT_STRING; }
  /// The `string`, a view into the value (only for that kind).
  std::string_view get_string() const { return std::string_view(raw.of.string.data, raw.of.string.size); }
  /// Whether it is an `enum`.
  bool is_enum() const { return raw.kind == WEFT_COMPONENT_ENUM; }
  /// The `enum` case, a view into the value (only for that kind).
  std::string_view get_enum() const { return std::string_view(raw.of.enumeration.data, raw.of.enumeration.size); }
  /// Whether it is a `list`.
  bool is_list() const { return raw.kind == WEFT_COMPONENT_LIST; }
  /// The `list` (only for that kind).
  const List &get_list() const;
  /// Whether it is a `record`.
  bool is_record() const { return raw.kind == WEFT_COMPONENT_RECORD; }
  /// The `record` (only for that kind).
  const Record &get_record() const;
  /// The field `name` of a `record`, if any.
  const Val *get_field(std::string_view name) const;
  /// Whether it is a `tuple`.
  bool is_tuple() const { return raw.kind == WEFT_COMPONENT_TUPLE; }
  /// The `tuple` (only for that kind).
  const Tuple &get_tuple() const;
  /// Whether it is a `variant`.
  bool is_variant() const { return raw.kind == WEFT_COMPONENT_VARIANT; }
  /// The `variant` (only for that kind).
  const Variant &get_variant() const;
  /// Whether it is an `option`.
  bool is_option() const { return raw.kind == WEFT_COMPONENT_OPTION; }
  /// The `option` (only for that kind).
  const WitOption &get_option() const;
  /// Whether it is a `result`.
  bool is_result() const { return raw.kind == WEFT_COMPONENT_RESULT; }
  /// The `result` (only for that kind).
  const WitResult &get_result() const;
  /// Whether it is a `flags`.
  bool is_flags() const { return raw.kind == WEFT_COMPONENT_FLAGS; }
  /// The `flags` (only for that kind).
  const Flags &get_flags() const;
  /// Whether it is a `map`.
  bool is_map() const { return raw.kind == WEFT_COMPONENT_MAP; }
  /// The `map` (only for that kind).
  const Map &get_map() const;
  /// Whether it is a resource.
  bool is_resource() const { return raw.kind == WEFT_COMPONENT_RESOURCE; }
  /// The resource (only for that kind).
  const ResourceAny &get_resource() const;
  /// The C value, still owned by this object.
  const weft_component_val_t &capi() const { return raw; }
};

static_assert(sizeof(Val) == sizeof(weft_component_val_t), "Val is a weft_component_val_t");

/// A field of a `record` value (layout-compatible with
/// `weft_component_valrecord_entry_t`; only seen through a `Record`).
class RecordField {
  wasm_name_t name_;
  weft_component_val_t val_;

public:
  RecordField() = delete;
  /// The field's name.
  std::string_view name() const { return std::string_view(name_.data, name_.size); }
  /// The field's value.
  const Val &value() const { return *reinterpret_cast<const Val *>(&val_); }
};

/// An entry of a `map` value (layout-compatible with
/// `weft_component_valmap_entry_t`; only seen through a `Map`).
class MapEntry {
  weft_component_val_t key_;
  weft_component_val_t value_;

public:
  MapEntry() = delete;
  /// The key.
  const Val &key() const { return *reinterpret_cast<const Val *>(&key_); }
  /// The value.
  const Val &value() const { return *reinterpret_cast<const Val *>(&value_); }
};

/// The elements of a `list` value. Copies are deep; a moved-from object is empty.
class List {
  friend class Val;
  weft_component_vallist_t raw;

public:
  /// Empty.
  List() { weft_component_vallist_new_empty(&raw); }
  /// The list of `values` (taken).
  explicit List(std::vector<Val> values) {
    weft_component_vallist_new_uninit(&raw, values.size());
    for (size_t i = 0; i < values.size(); i++)
      raw.data[i] = values[i].release();
  }
  /// A deep copy.
  List(const List &other) { weft_component_vallist_copy(&raw, &other.raw); }
  /// A deep copy.
  List &operator=(const List &other) {
    if (this != &other) {
      weft_component_vallist_delete(&raw);
      weft_component_vallist_copy(&raw, &other.raw);
    }
    return *this;
  }
  /// Takes `other`'s elements, leaving it empty.
  List(List &&other) noexcept : raw(other.raw) { weft_component_vallist_new_empty(&other.raw); }
  /// Takes `other`'s elements, leaving it empty.
  List &operator=(List &&other) noexcept {
    if (this != &other) {
      weft_component_vallist_delete(&raw);
      raw = other.raw;
      weft_component_vallist_new_empty(&other.raw);
    }
    return *this;
  }
  ~List() { weft_component_vallist_delete(&raw); }
  /// The number of elements.
  size_t size() const { return raw.size; }
  /// Element `i`.
  const Val &operator[](size_t i) const { return begin()[i]; }
  /// The first element.
  const Val *begin() const { return reinterpret_cast<const Val *>(raw.data); }
  /// Past the last element.
  const Val *end() const { return begin() + raw.size; }
  /// The C vector, still owned by this object.
  const weft_component_vallist_t &capi() const { return raw; }
};

/// The elements of a `tuple` value. Copies are deep; a moved-from object is empty.
class Tuple {
  friend class Val;
  weft_component_valtuple_t raw;

public:
  /// Empty.
  Tuple() { weft_component_valtuple_new_empty(&raw); }
  /// The tuple of `values` (taken).
  explicit Tuple(std::vector<Val> values) {
    weft_component_valtuple_new_uninit(&raw, values.size());
    for (size_t i = 0; i < values.size(); i++)
      raw.data[i] = values[i].release();
  }
  /// A deep copy.
  Tuple(const Tuple &other) { weft_component_valtuple_copy(&raw, &other.raw); }
  /// A deep copy.
  Tuple &operator=(const Tuple &other) {
    if (this != &other) {
      weft_component_valtuple_delete(&raw);
      weft_component_valtuple_copy(&raw, &other.raw);
    }
    return *this;
  }
  /// Takes `other`'s elements, leaving it empty.
  Tuple(Tuple &&other) noexcept : raw(other.raw) { weft_component_valtuple_new_empty(&other.raw); }
  /// Takes `other`'s elements, leaving it empty.
  Tuple &operator=(Tuple &&other) noexcept {
    if (this != &other) {
      weft_component_valtuple_delete(&raw);
      raw = other.raw;
      weft_component_valtuple_new_empty(&other.raw);
    }
    return *this;
  }
  ~Tuple() { weft_component_valtuple_delete(&raw); }
  /// The number of elements.
  size_t size() const { return raw.size; }
  /// Element `i`.
  const Val &operator[](size_t i) const { return begin()[i]; }
  /// The first element.
  const Val *begin() const { return reinterpret_cast<const Val *>(raw.data); }
  /// Past the last element.
  const Val *end() const { return begin() + raw.size; }
  /// The C vector, still owned by this object.
  const weft_component_valtuple_t &capi() const { return raw; }
};

/// The fields of a `record` value. Copies are deep; a moved-from object is empty.
class Record {
  friend class Val;
  weft_component_valrecord_t raw;

public:
  /// Empty.
  Record() { weft_component_valrecord_new_empty(&raw); }
  /// The record of `fields` (values taken).
  explicit Record(std::vector<std::pair<std::string_view, Val>> fields) {
    weft_component_valrecord_new_uninit(&raw, fields.size());
    for (size_t i = 0; i < fields.size(); i++) {
      wasm_byte_vec_delete(&raw.data[i].name);
      wasm_byte_vec_new(&raw.data[i].name, fields[i].first.size(), fields[i].first.data());
      raw.data[i].val = fields[i].second.release();
    }
  }
  /// A deep copy.
  Record(const Record &other) { weft_component_valrecord_copy(&raw, &other.raw); }
  /// A deep copy.
  Record &operator=(const Record &other) {
    if (this != &other) {
      weft_component_valrecord_delete(&raw);
      weft_component_valrecord_copy(&raw, &other.raw);
    }
    return *this;
  }
  /// Takes `other`'s elements, leaving it empty.
  Record(Record &&other) noexcept : raw(other.raw) { weft_component_valrecord_new_empty(&other.raw); }
  /// Takes `other`'s elements, leaving it empty.
  Record &operator=(Record &&other) noexcept {
    if (this != &other) {
      weft_component_valrecord_delete(&raw);
      raw = other.raw;
      weft_component_valrecord_new_empty(&other.raw);
    }
    return *this;
  }
  ~Record() { weft_component_valrecord_delete(&raw); }
  /// The number of fields.
  size_t size() const { return raw.size; }
  /// Field `i`.
  const RecordField &operator[](size_t i) const { return begin()[i]; }
  /// The first field.
  const RecordField *begin() const { return reinterpret_cast<const RecordField *>(raw.data); }
  /// Past the last field.
  const RecordField *end() const { return begin() + raw.size; }
  /// The C vector, still owned by this object.
  const weft_component_valrecord_t &capi() const { return raw; }
};

/// The set flags of a `flags` value. Copies are deep; a moved-from object is empty.
class Flags {
  friend class Val;
  weft_component_valflags_t raw;

public:
  /// Empty.
  Flags() { weft_component_valflags_new_empty(&raw); }
  /// The flags `flags`.
  explicit Flags(const std::vector<Flag> &flags) {
    weft_component_valflags_new_uninit(&raw, flags.size());
    for (size_t i = 0; i < flags.size(); i++) {
      wasm_byte_vec_delete(&raw.data[i]);
      wasm_byte_vec_copy(&raw.data[i], &flags[i].capi());
    }
  }
  /// A deep copy.
  Flags(const Flags &other) { weft_component_valflags_copy(&raw, &other.raw); }
  /// A deep copy.
  Flags &operator=(const Flags &other) {
    if (this != &other) {
      weft_component_valflags_delete(&raw);
      weft_component_valflags_copy(&raw, &other.raw);
    }
    return *this;
  }
  /// Takes `other`'s elements, leaving it empty.
  Flags(Flags &&other) noexcept : raw(other.raw) { weft_component_valflags_new_empty(&other.raw); }
  /// Takes `other`'s elements, leaving it empty.
  Flags &operator=(Flags &&other) noexcept {
    if (this != &other) {
      weft_component_valflags_delete(&raw);
      raw = other.raw;
      weft_component_valflags_new_empty(&other.raw);
    }
    return *this;
  }
  ~Flags() { weft_component_valflags_delete(&raw); }
  /// The number of flags.
  size_t size() const { return raw.size; }
  /// Flag `i`.
  const Flag &operator[](size_t i) const { return begin()[i]; }
  /// The first flag.
  const Flag *begin() const { return reinterpret_cast<const Flag *>(raw.data); }
  /// Past the last flag.
  const Flag *end() const { return begin() + raw.size; }
  /// The C vector, still owned by this object.
  const weft_component_valflags_t &capi() const { return raw; }
};

/// The entries of a `map` value. Copies are deep; a moved-from object is empty.
class Map {
  friend class Val;
  weft_component_valmap_t raw;

public:
  /// Empty.
  Map() { weft_component_valmap_new_empty(&raw); }
  /// The map of `entries` (taken).
  explicit Map(std::vector<std::pair<Val, Val>> entries) {
    weft_component_valmap_new_uninit(&raw, entries.size());
    for (size_t i = 0; i < entries.size(); i++) {
      raw.data[i].key = entries[i].first.release();
      raw.data[i].value = entries[i].second.release();
    }
  }
  /// A deep copy.
  Map(const Map &other) { weft_component_valmap_copy(&raw, &other.raw); }
  /// A deep copy.
  Map &operator=(const Map &other) {
    if (this != &other) {
      weft_component_valmap_delete(&raw);
      weft_component_valmap_copy(&raw, &other.raw);
    }
    return *this;
  }
  /// Takes `other`'s elements, leaving it empty.
  Map(Map &&other) noexcept : raw(other.raw) { weft_component_valmap_new_empty(&other.raw); }
  /// Takes `other`'s elements, leaving it empty.
  Map &operator=(Map &&other) noexcept {
    if (this != &other) {
      weft_component_valmap_delete(&raw);
      raw = other.raw;
      weft_component_valmap_new_empty(&other.raw);
    }
    return *this;
  }
  ~Map() { weft_component_valmap_delete(&raw); }
  /// The number of entrys.
  size_t size() const { return raw.size; }
  /// Entry `i`.
  const MapEntry &operator[](size_t i) const { return begin()[i]; }
  /// The first entry.
  const MapEntry *begin() const { return reinterpret_cast<const MapEntry *>(raw.data); }
  /// Past the last entry.
  const MapEntry *end() const { return begin() + raw.size; }
  /// The C vector, still owned by this object.
  const weft_component_valmap_t &capi() const { return raw; }
};

/// A `variant` value: a case and its payload, if any. Copies are deep; a
/// moved-from variant is empty.
class Variant {
  friend class Val;
  weft_component_valvariant_t raw;

  void clear() {
    wasm_byte_vec_new_empty(&raw.discriminant);
    raw.val = nullptr;
  }
  void destroy() {
    wasm_byte_vec_delete(&raw.discriminant);
    if (raw.val)
      weft_component_val_free(raw.val);
  }
  void copy_from(const Variant &other) {
    wasm_byte_vec_copy(&raw.discriminant, &other.raw.discriminant);
    raw.val = nullptr;
    if (other.raw.val) {
      weft_component_val_t v;
      weft_component_val_clone(other.raw.val, &v);
      raw.val = weft_component_val_new(&v);
    }
  }

public:
  /// The case `discriminant` with `payload` (taken).
  Variant(std::string_view discriminant, std::optional<Val> payload) {
    wasm_byte_vec_new(&raw.discriminant, discriminant.size(), discriminant.data());
    raw.val = nullptr;
    if (payload) {
      weft_component_val_t inner = payload->release();
      raw.val = weft_component_val_new(&inner);
    }
  }
  /// A deep copy.
  Variant(const Variant &other) { copy_from(other); }
  /// A deep copy.
  Variant &operator=(const Variant &other) {
    if (this != &other) {
      destroy();
      copy_from(other);
    }
    return *this;
  }
  /// Takes `other`'s case and payload.
  Variant(Variant &&other) noexcept : raw(other.raw) { other.clear(); }
  /// Takes `other`'s case and payload.
  Variant &operator=(Variant &&other) noexcept {
    if (this != &other) {
      destroy();
      raw = other.raw;
      other.clear();
    }
    return *this;
  }
  ~Variant() { destroy(); }
  /// The case's name.
  std::string_view discriminant() const { return std::string_view(raw.discriminant.data, raw.discriminant.size); }
  /// The payload (null if none).
  const Val *value() const { return reinterpret_cast<const Val *>(raw.val); }
};

/// An `option` value: `some(payload)` or `none`. Copies are deep; a
/// moved-from option is `none`.
class WitOption {
  friend class Val;
  weft_component_val_t *raw;

public:
  /// `some(payload)` (taken), or `none` for nullopt.
  explicit WitOption(std::optional<Val> payload) : raw(nullptr) {
    if (payload) {
      weft_component_val_t inner = payload->release();
      raw = weft_component_val_new(&inner);
    }
  }
  /// A deep copy.
  WitOption(const WitOption &other) : raw(nullptr) {
    if (other.raw) {
      weft_component_val_t v;
      weft_component_val_clone(other.raw, &v);
      raw = weft_component_val_new(&v);
    }
  }
  /// A deep copy.
  WitOption &operator=(const WitOption &other) {
    if (this != &other) {
      WitOption copy(other);
      std::swap(raw, copy.raw);
    }
    return *this;
  }
  /// Takes `other`'s payload.
  WitOption(WitOption &&other) noexcept : raw(other.raw) { other.raw = nullptr; }
  /// Takes `other`'s payload.
  WitOption &operator=(WitOption &&other) noexcept {
    std::swap(raw, other.raw);
    return *this;
  }
  ~WitOption() {
    if (raw)
      weft_component_val_free(raw);
  }
  /// The payload (null for `none`).
  const Val *value() const { return reinterpret_cast<const Val *>(raw); }
};

/// A `result` value: `ok` or `err`, with an optional payload. Copies are
/// deep; a moved-from result has no payload.
class WitResult {
  friend class Val;
  weft_component_valresult_t raw;

  WitResult(bool is_ok, std::optional<Val> payload) {
    raw.is_ok = is_ok;
    raw.val = nullptr;
    if (payload) {
      weft_component_val_t inner = payload->release();
      raw.val = weft_component_val_new(&inner);
    }
  }

public:
  /// `ok(payload)` (taken; nullopt for none).
  static WitResult ok(std::optional<Val> payload) { return WitResult(true, std::move(payload)); }
  /// `err(payload)` (taken; nullopt for none).
  static WitResult err(std::optional<Val> payload) { return WitResult(false, std::move(payload)); }
  /// A deep copy.
  WitResult(const WitResult &other) : WitResult(other.raw.is_ok, std::nullopt) {
    if (other.raw.val) {
      weft_component_val_t v;
      weft_component_val_clone(other.raw.val, &v);
      raw.val = weft_component_val_new(&v);
    }
  }
  /// A deep copy.
  WitResult &operator=(const WitResult &other) {
    if (this != &other) {
      WitResult copy(other);
      std::swap(raw, copy.raw);
    }
    return *this;
  }
  /// Takes `other`'s payload.
  WitResult(WitResult &&other) noexcept : raw(other.raw) { other.raw.val = nullptr; }
  /// Takes `other`'s payload.
  WitResult &operator=(WitResult &&other) noexcept {
    std::swap(raw, other.raw);
    return *this;
  }
  ~WitResult() {
    if (raw.val)
      weft_component_val_free(raw.val);
  }
  /// Whether it is `ok`.
  bool is_ok() const { return raw.is_ok; }
  /// The payload (null if none).
  const Val *payload() const { return reinterpret_cast<const Val *>(raw.val); }
};

static_assert(sizeof(List) == sizeof(weft_component_vallist_t), "List is a weft_component_vallist_t");
static_assert(sizeof(Record) == sizeof(weft_component_valrecord_t), "Record is a weft_component_valrecord_t");
static_assert(sizeof(Tuple) == sizeof(weft_component_valtuple_t), "Tuple is a weft_component_valtuple_t");
static_assert(sizeof(Flags) == sizeof(weft_component_valflags_t), "Flags is a weft_component_valflags_t");
static_assert(sizeof(Map) == sizeof(weft_component_valmap_t), "Map is a weft_component_valmap_t");
static_assert(sizeof(Variant) == sizeof(weft_component_valvariant_t), "Variant is a weft_component_valvariant_t");
static_assert(sizeof(WitOption) == sizeof(weft_component_val_t *), "WitOption is a pointer");
static_assert(sizeof(WitResult) == sizeof(weft_component_valresult_t), "WitResult is a weft_component_valresult_t");
static_assert(sizeof(ResourceAny) == sizeof(weft_component_resource_any_t *), "ResourceAny is a pointer");
static_assert(sizeof(RecordField) == sizeof(weft_component_valrecord_entry_t), "RecordField is an entry");
static_assert(sizeof(MapEntry) == sizeof(weft_component_valmap_entry_t), "MapEntry is an entry");
static_assert(sizeof(Flag) == sizeof(wasm_name_t), "Flag is a wasm_name_t");

inline Val::Val(List list) {
  raw.kind = WEFT_COMPONENT_LIST;
  raw.of.list = list.raw;
  weft_component_vallist_new_empty(&list.raw);
}
inline Val::Val(Record record) {
  raw.kind = WEFT_COMPONENT_RECORD;
  raw.of.record = record.raw;
  weft_component_valrecord_new_empty(&record.raw);
}
inline Val::Val(Tuple tuple) {
  raw.kind = WEFT_COMPONENT_TUPLE;
  raw.of.tuple = tuple.raw;
  weft_component_valtuple_new_empty(&tuple.raw);
}
inline Val::Val(Variant variant) {
  raw.kind = WEFT_COMPONENT_VARIANT;
  raw.of.variant = variant.raw;
  variant.clear();
}
inline Val::Val(WitOption option) {
  raw.kind = WEFT_COMPONENT_OPTION;
  raw.of.option = option.raw;
  option.raw = nullptr;
}
inline Val::Val(WitResult result) {
  raw.kind = WEFT_COMPONENT_RESULT;
  raw.of.result = result.raw;
  result.raw.val = nullptr;
}
inline Val::Val(Flags flags) {
  raw.kind = WEFT_COMPONENT_FLAGS;
  raw.of.flags = flags.raw;
  weft_component_valflags_new_empty(&flags.raw);
}
inline Val::Val(Map map) {
  raw.kind = WEFT_COMPONENT_MAP;
  raw.of.map = map.raw;
  weft_component_valmap_new_empty(&map.raw);
}
inline Val Val::list(std::vector<Val> items) { return Val(List(std::move(items))); }
inline Val Val::record(std::vector<std::pair<std::string_view, Val>> fields) {
  return Val(Record(std::move(fields)));
}
inline Val Val::option(std::optional<Val> payload) { return Val(WitOption(std::move(payload))); }
inline const List &Val::get_list() const { return *reinterpret_cast<const List *>(&raw.of.list); }
inline const Record &Val::get_record() const { return *reinterpret_cast<const Record *>(&raw.of.record); }
inline const Val *Val::get_field(std::string_view name) const {
  if (!is_record())
    return nullptr;
  for (const RecordField &f : get_record())
    if (f.name() == name)
      return &f.value();
  return nullptr;
}
inline const Tuple &Val::get_tuple() const { return *reinterpret_cast<const Tuple *>(&raw.of.tuple); }
inline const Variant &Val::get_variant() const { return *reinterpret_cast<const Variant *>(&raw.of.variant); }
inline const WitOption &Val::get_option() const { return *reinterpret_cast<const WitOption *>(&raw.of.option); }
inline const WitResult &Val::get_result() const { return *reinterpret_cast<const WitResult *>(&raw.of.result); }
inline const Flags &Val::get_flags() const { return *reinterpret_cast<const Flags *>(&raw.of.flags); }
inline const Map &Val::get_map() const { return *reinterpret_cast<const Map *>(&raw.of.map); }
inline const ResourceAny &Val::get_resource() const {
  return *reinterpret_cast<const ResourceAny *>(&raw.of.resource);
}

} // namespace component
} // namespace weft

#endif // WEFT_COMPONENT_VAL_HH
