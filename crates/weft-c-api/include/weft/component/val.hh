/**
 * \file weft/component/val.hh
 *
 * \brief C++ API: `Val`, a component value (as Wasmtime 48's
 * `wasmtime/component/val.hh`, without its aggregate classes).
 */

#ifndef WEFT_COMPONENT_VAL_HH
#define WEFT_COMPONENT_VAL_HH

#include <weft/error.hh>

namespace weft {
namespace component {

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

} // namespace component
} // namespace weft

#endif // WEFT_COMPONENT_VAL_HH
